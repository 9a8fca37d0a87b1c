package io.distlock.redis.support;

import io.distlock.Credentials;
import io.distlock.LockOptions;
import io.distlock.spi.UserInfo;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One Redis server as a connection string names it:
 * {@code redis://[user:password@]host[:port][/db][?option=value...]}, also
 * {@code redis://:password@host:port}. The port defaults to 6379 and the database to 0.
 *
 * <p>Every message and {@link #toString()} names the endpoint as {@code host:port} and never shows
 * the password; a malformed URI is reported with its user info replaced by {@code ***}.
 *
 * <p>Shared by the Redis-family backends (single, Redlock, Redis+WAIT, Tair): each passes the
 * query options it understands to {@link #parse(URI, Set)}. Every scheme also takes {@code tls=true}
 * (TLS, as {@code rediss://} does) and, with it, the TLS store options ({@link #TLS_OPTIONS}).
 *
 * <p><b>Credentials</b> come from the URI's user info or, with {@link #withCredentials(LockOptions)},
 * from {@link LockOptions#credentials()} — never both. Those of the options are read again at each
 * new connection ({@link #credentialsSupplier()}), so that a rotated secret is picked up.
 */
public final class RedisEndpoint {

    /** The query options of the single-Redis backend. */
    public static final Set<String> OPTIONS = Set.of("poolSize", "clientName");

    /**
     * The TLS query options, accepted on a {@code rediss://} URI or with {@code tls=true} only (see {@link RedisTls}):
     * {@code trustStore}, {@code trustStoreType}, {@code trustStorePassword}, {@code keyStore},
     * {@code keyStoreType}, {@code keyStorePassword}.
     */
    public static final Set<String> TLS_OPTIONS = Set.of("trustStore", "trustStoreType", "trustStorePassword",
            "keyStore", "keyStoreType", "keyStorePassword");

    /** The scheme of a Redis server that speaks TLS. */
    public static final String TLS_SCHEME = "rediss";

    /** The query option that turns TLS on for any Redis-family scheme: {@code tls=true}. */
    public static final String TLS_OPTION = "tls";

    private static final int DEFAULT_PORT = 6379;

    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final int database;
    private final Map<String, String> options;
    private final boolean tls;
    /** The credentials of {@link LockOptions}, read at each connect; null if the URI's (or none) are used. */
    private final Supplier<Optional<Credentials>> fromOptions;
    /** The user and password last read from {@link #fromOptions}: for messages and redaction only. */
    private final Last last;

    /** What {@link #fromOptions} gave last; shared by the copies of an endpoint ({@link #withAddress}). */
    private static final class Last {
        volatile String user;
        volatile String password;
    }

    private RedisEndpoint(String host, int port, String user, String password, int database, Map<String, String> options) {
        this(host, port, user, password, database, options, false, null, new Last());
    }

    private RedisEndpoint(String host, int port, String user, String password, int database, Map<String, String> options,
                          boolean tls, Supplier<Optional<Credentials>> fromOptions, Last last) {
        this.tls = tls;
        this.fromOptions = fromOptions;
        this.last = last;
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
        this.database = database;
        this.options = Map.copyOf(options);
    }

    /**
     * Builds an endpoint from its parts (for backends that list several nodes in one URI).
     *
     * @param host     host name or address, not blank
     * @param port     1..65535
     * @param user     the ACL user, or null for {@code default}
     * @param password the password, or null for none
     * @param database the database index, not negative
     * @return the endpoint, with no options
     * @throws IllegalArgumentException if a part is out of range (the message never shows the password)
     */
    public static RedisEndpoint of(String host, int port, String user, String password, int database) {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("Redis endpoint has no host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Redis port must be in 1..65535, was " + port + " (host " + host + ")");
        }
        if (database < 0) {
            throw new IllegalArgumentException("Redis database must not be negative, was " + database);
        }
        return new RedisEndpoint(host, port, emptyToNull(user), emptyToNull(password), database, Map.of());
    }

    /**
     * The same credentials, database and options at another address: for a server whose address
     * is learned at run time, such as the primary a Sentinel reports.
     *
     * @param host host name or address, not blank
     * @param port 1..65535
     * @return the endpoint at {@code host:port}
     * @throws IllegalArgumentException if the host is blank or the port out of range
     */
    public RedisEndpoint withAddress(String host, int port) {
        RedisEndpoint checked = of(host, port, null, null, 0); // the same checks as of(), no secret involved
        return new RedisEndpoint(checked.host, checked.port, user, password, database, options, tls, fromOptions, last);
    }

    /**
     * The same address and TLS settings, without credentials, database or other options: for a
     * server reached anonymously next to this one, such as a Sentinel.
     *
     * @return the endpoint
     */
    public RedisEndpoint withoutCredentials() {
        Map<String, String> tlsOnly = new LinkedHashMap<>();
        options.forEach((k, v) -> {
            if (TLS_OPTIONS.contains(k) || TLS_OPTION.equals(k)) {
                tlsOnly.put(k, v);
            }
        });
        return new RedisEndpoint(host, port, null, null, 0, tlsOnly, tls, null, new Last());
    }

    /**
     * Takes the credentials of {@code options} if the URI carried none ({@link UserInfo#either}).
     * The options' credentials (or supplier) are read now, to check them, and again at every new
     * connection.
     *
     * @param lockOptions the client's options
     * @return this endpoint if neither or only the URI has credentials; else a copy reading them from the options
     * @throws IllegalArgumentException      if the URI and the options both carry credentials
     * @throws io.distlock.LockException     if the options' credentials supplier fails
     */
    public RedisEndpoint withCredentials(LockOptions lockOptions) {
        Objects.requireNonNull(lockOptions, "lockOptions");
        Optional<Credentials> fromUri = password == null ? Optional.empty() : Optional.of(Credentials.of(user, password));
        Optional<Credentials> chosen = UserInfo.either(fromUri, lockOptions, endpoint());
        if (fromUri.isPresent() || chosen.isEmpty()) {
            return this;
        }
        if (user != null) {
            throw new IllegalArgumentException("Redis URI for " + endpoint() + " names user '" + user
                    + "' without a password while LockOptions carry credentials: give them in one place");
        }
        RedisEndpoint copy = new RedisEndpoint(host, port, null, null, database, options, tls, lockOptions::credentials, new Last());
        copy.remember(chosen.get());
        return copy;
    }

    /**
     * What a new connection authenticates with: the URI's credentials, or those the options give
     * now (read on each call).
     *
     * @return the credentials; empty if none were given anywhere
     * @throws io.distlock.LockException if the options' credentials supplier fails
     */
    public Optional<Credentials> currentCredentials() {
        if (fromOptions == null) {
            return password == null ? Optional.empty() : Optional.of(Credentials.of(user, password));
        }
        Optional<Credentials> now = fromOptions.get();
        now.ifPresent(this::remember);
        return now;
    }

    /** @return true if connections authenticate (the URI or the options carry credentials) */
    public boolean hasCredentials() {
        return password != null || fromOptions != null;
    }

    /**
     * @return a supplier that gives {@link #currentCredentials()} each time it is called, or null
     *         if there are no credentials at all (the connection then does not authenticate)
     */
    public Supplier<Optional<Credentials>> credentialsSupplier() {
        return hasCredentials() ? this::currentCredentials : null;
    }

    private void remember(Credentials credentials) {
        last.user = credentials.username().orElse(null);
        char[] secret = credentials.password();
        last.password = new String(secret);
        java.util.Arrays.fill(secret, '\0');
    }

    /**
     * Parses {@code redis://[user:password@]host[:port][/db][?option=value&...]}.
     *
     * The scheme {@code rediss}, or the option {@code tls=true} with any scheme, makes a
     * {@linkplain #tls() TLS} endpoint; otherwise it is plain. The option {@code tls} and the
     * {@linkplain #TLS_OPTIONS TLS options} are understood whatever {@code allowed} says.
     *
     * @param uri     the connection URI (the caller was chosen by its scheme)
     * @param allowed the query options the caller understands
     * @return the endpoint
     * @throws IllegalArgumentException if there is no host, the port or database is not a number in
     *                                  range, the user info has no {@code :}, an option is unknown, or
     *                                  a {@linkplain #TLS_OPTIONS TLS option} is given on a URI that is
     *                                  neither {@code rediss://} nor {@code tls=true}, {@code tls} is
     *                                  not {@code true}/{@code false}, or an option is given twice;
     *                                  the message never contains the password
     */
    public static RedisEndpoint parse(URI uri, Set<String> allowed) {
        Objects.requireNonNull(uri, "uri");
        String shown = redacted(uri);
        if (uri.isOpaque()) {
            throw new IllegalArgumentException("Redis URI '" + shown + "' must look like redis://host:port");
        }
        String host = uri.getHost();
        if (host == null) {
            String authority = uri.getRawAuthority();
            String hostPort = authority == null ? "" : authority.substring(authority.lastIndexOf('@') + 1);
            int colon = hostPort.lastIndexOf(':');
            if (colon > 0 && !hostPort.endsWith("]")) {
                throw new IllegalArgumentException("Redis URI '" + shown + "' has a bad port '"
                        + hostPort.substring(colon + 1) + "'; expected a number in 1..65535");
            }
            throw new IllegalArgumentException("Redis URI '" + shown + "' has no host; expected redis://host:port");
        }
        int port = uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort();
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Redis URI '" + shown + "' has port " + port + "; expected 1..65535");
        }
        String user = null;
        String password = null;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("Redis URI '" + shown
                        + "' has user info without ':'; write redis://user:password@host or redis://:password@host");
            }
            user = emptyToNull(decode(userInfo.substring(0, colon), shown));
            password = emptyToNull(decode(userInfo.substring(colon + 1), shown));
        }
        boolean rediss = TLS_SCHEME.equalsIgnoreCase(uri.getScheme());
        Map<String, String> options = options(uri, allowed, shown, rediss);
        boolean tls = rediss || "true".equals(options.get(TLS_OPTION));
        return new RedisEndpoint(host, port, user, password, database(uri.getPath(), shown), options, tls, null, new Last());
    }

    /**
     * Parses a URI that lists several servers sharing one user info, database and options:
     * {@code scheme://[user:password@]host1:port1,host2:port2,...[/db][?option=value&...]} (each
     * port defaults to 6379). {@link URI} cannot parse a bracketed IPv6 literal in such a list: name
     * IPv6 nodes by host name. Duplicates are not checked here.
     *
     * @param uri     the connection URI (its scheme is not checked)
     * @param allowed the query options the caller understands
     * @return one endpoint per listed server, in order, each carrying the shared options
     * @throws IllegalArgumentException if the URI lists no server, a host is empty, a port is not a
     *                                  number in range, or anything {@link #parse} rejects; the
     *                                  message never contains the password
     */
    public static List<RedisEndpoint> parseNodes(URI uri, Set<String> allowed) {
        Objects.requireNonNull(uri, "uri");
        String shown = redacted(uri);
        String authority = uri.getRawAuthority();
        if (uri.isOpaque() || authority == null || authority.isEmpty()) {
            throw new IllegalArgumentException("URI '" + shown + "' must look like " + uri.getScheme()
                    + "://host1:port1,host2:port2,host3:port3");
        }
        int at = authority.lastIndexOf('@');
        String userInfo = at >= 0 ? authority.substring(0, at) : null;
        List<RedisEndpoint> nodes = new ArrayList<>();
        for (String hostPort : authority.substring(at + 1).split(",", -1)) {
            // Reuse the one-server parser for each host, with the shared user info, path and query.
            String single = uri.getScheme() + "://" + (userInfo != null ? userInfo + "@" : "") + hostPort
                    + (uri.getRawPath() != null ? uri.getRawPath() : "")
                    + (uri.getRawQuery() != null ? "?" + uri.getRawQuery() : "");
            if (hostPort.isBlank()) {
                throw new IllegalArgumentException("URI '" + shown + "' has an empty host in its list of servers");
            }
            URI one;
            try {
                one = new URI(single);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("URI '" + shown + "' has a malformed server '" + hostPort + "'");
            }
            nodes.add(parse(one, allowed));
        }
        return List.copyOf(nodes);
    }

    private static int database(String path, String shown) {
        if (path == null || path.isEmpty() || path.equals("/")) {
            return 0;
        }
        String db = path.substring(1);
        if (!db.matches("[0-9]{1,9}")) {
            throw new IllegalArgumentException("Redis URI '" + shown + "' names database '" + db
                    + "'; expected a database number such as /0");
        }
        return Integer.parseInt(db);
    }

    private static Map<String, String> options(URI uri, Set<String> allowed, String shown, boolean rediss) {
        Map<String, String> options = new LinkedHashMap<>();
        String query = uri.getRawQuery();
        if (query == null || query.isEmpty()) {
            return options;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = decode(eq < 0 ? pair : pair.substring(0, eq), shown);
            if (!allowed.contains(key) && !TLS_OPTIONS.contains(key) && !TLS_OPTION.equals(key)) {
                // Only the option's name is shown: its value might be a secret.
                java.util.TreeSet<String> known = new java.util.TreeSet<>(allowed);
                known.add(TLS_OPTION);
                known.addAll(TLS_OPTIONS);
                throw new IllegalArgumentException("Redis URI '" + shown + "' has unknown option '" + key
                        + "'; known options: " + known);
            }
            if (options.containsKey(key)) {
                throw new IllegalArgumentException("Redis URI '" + shown + "' gives option '" + key + "' twice");
            }
            options.put(key, eq < 0 ? "" : decode(pair.substring(eq + 1), shown));
        }
        String tlsValue = options.get(TLS_OPTION);
        if (tlsValue != null && !tlsValue.equals("true") && !tlsValue.equals("false")) {
            throw new IllegalArgumentException("Redis URI '" + shown + "' has tls='" + tlsValue + "'; expected tls=true or tls=false");
        }
        if (rediss && "false".equals(tlsValue)) {
            throw new IllegalArgumentException("Redis URI '" + shown + "' is rediss:// (TLS) but says tls=false; use redis://"
                    + " for a plain connection");
        }
        if (!rediss && !"true".equals(tlsValue)) {
            for (String key : options.keySet()) {
                if (TLS_OPTIONS.contains(key)) {
                    throw new IllegalArgumentException("Redis URI '" + shown + "' has the TLS option '" + key
                            + "' on a plain connection; add tls=true (" + uri.getScheme() + "://host:port?tls=true&" + key
                            + "=...), or use rediss://host:port?" + key + "=... for a single server");
                }
            }
        }
        return options;
    }

    /** @return the host name or address */
    public String host() {
        return host;
    }

    /** @return the port */
    public int port() {
        return port;
    }

    /**
     * @return the ACL user of the URI, or the one the options' credentials gave last; null for the
     *         default user
     */
    public String user() {
        return fromOptions == null ? user : last.user;
    }

    /**
     * @return the password of the URI, or the one the options' credentials gave last; null for none.
     *         Never put it in a message: it is for redaction
     */
    public String password() {
        return fromOptions == null ? password : last.password;
    }

    /**
     * @return true for a {@code rediss://} or {@code ?tls=true} endpoint: connections speak TLS and
     *         verify the server's name
     */
    public boolean tls() {
        return tls;
    }

    /** @return the database index */
    public int database() {
        return database;
    }

    /**
     * @param name a query option name
     * @return its value, or null if absent
     */
    public String option(String name) {
        return options.get(name);
    }

    /**
     * Reads an integer query option.
     *
     * @param name         the option
     * @param defaultValue the value if absent
     * @param min          smallest accepted value
     * @param max          largest accepted value
     * @return the value
     * @throws IllegalArgumentException if present but not an integer in range
     */
    public int intOption(String name, int defaultValue, int min, int max) {
        String value = options.get(name);
        if (value == null) {
            return defaultValue;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException ignored) {
            // Reported below with the accepted range.
        }
        throw new IllegalArgumentException("Redis URI option " + name + " must be an integer in " + min + ".." + max
                + ", was '" + value + "' (endpoint " + this + ")");
    }

    /** @return {@code host:port}, without credentials: the name to put in messages */
    public String endpoint() {
        return (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * Replaces any secret in {@code text} (for example a server message that echoes it) with
     * {@code ***}.
     *
     * @param text a message, or null
     * @return the message without the password or the TLS store passwords
     */
    public String redact(String text) {
        if (text == null) {
            return null;
        }
        String out = text;
        for (String secret : new String[] {password, last.password, options.get("trustStorePassword"),
                options.get("keyStorePassword")}) {
            if (secret != null && !secret.isEmpty()) {
                out = out.replace(secret, "***");
            }
        }
        return out;
    }

    /** @return {@code host:port} */
    @Override
    public String toString() {
        return endpoint();
    }

    /**
     * @param uri a connection URI
     * @return the URI with its user info and query values replaced by {@code ***}: fit for a message
     */
    public static String redacted(URI uri) {
        StringBuilder out = new StringBuilder();
        if (uri.getScheme() != null) {
            out.append(uri.getScheme()).append(':');
        }
        String authority = uri.getRawAuthority();
        if (authority != null) {
            int at = authority.lastIndexOf('@');
            out.append("//").append(at >= 0 ? "***@" + authority.substring(at + 1) : authority);
            if (uri.getRawPath() != null) {
                out.append(uri.getRawPath());
            }
        } else if (uri.isOpaque()) {
            return out.append("***").toString(); // no structure to tell a secret from a host by
        }
        if (uri.getRawQuery() != null) {
            out.append('?').append(uri.getRawQuery().replaceAll("=[^&]*", "=***"));
        }
        return out.toString();
    }

    // URI.getUserInfo() would decode too, but also accepts malformed escapes silently; decode by
    // hand so that a bad escape is an error whose message cannot contain the secret.
    private static String decode(String raw, String shown) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw new IllegalArgumentException("Redis URI '" + shown + "' has a malformed %-escape");
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
