package io.distlock.cli.bench;

import io.distlock.Credentials;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Where the raw floor can run for a target URI, or why it cannot. The floor is the least a lock on the
 * same server costs — {@code SET key token NX PX} and a compare-and-delete script, sent by a plain
 * Jedis connection — so it exists only for a single Redis-protocol server the raw client can reach
 * exactly as the backend does: {@code redis://}, {@code tair://} and a fixed {@code redis-wait://}
 * primary. Only what the floor needs is read from the URI (host, port, database, user info, and for
 * {@code redis-wait} its {@code replicas} and {@code waitTimeout}); anything it cannot honour (TLS,
 * Sentinel, several hosts, an option it does not know) gives a reason instead of a floor measured on
 * different terms.
 */
public sealed interface FloorPlan permits FloorPlan.At, FloorPlan.None {

    /**
     * The server the floor runs on.
     *
     * @param host              the server's host, as the URI names it
     * @param port              its port
     * @param database          the database to {@code SELECT}
     * @param user              the ACL user, or null
     * @param password          the password, or null
     * @param waitReplicas      for {@code redis-wait}: how many replicas must acknowledge the {@code SET}
     *                          (the backend's {@code WAIT}); 0 elsewhere
     * @param waitTimeoutMillis for {@code redis-wait}: how long {@code WAIT} may block
     */
    record At(String host, int port, int database, String user, String password, int waitReplicas,
              long waitTimeoutMillis) implements FloorPlan {

        /** @return host:port, as messages name the server */
        public String endpoint() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }

        /** @return what the floor's acquire sends, for the row's label */
        public String acquireCommands() {
            return waitReplicas > 0 ? "SET NX PX + WAIT " + waitReplicas + ", pipelined" : "SET NX PX";
        }

        /** @return what one floor acquire and release send, for the row's label */
        public String commands() {
            return acquireCommands() + "; EVALSHA compare-and-delete";
        }

        /** Never shows the password. */
        @Override
        public String toString() {
            return "FloorPlan.At[" + endpoint() + "/" + database + (user == null ? "" : ", user " + user)
                    + (password == null ? "" : ", password ***") + ", " + commands() + "]";
        }
    }

    /**
     * No floor for this target.
     *
     * @param reason why, as a sentence the command prints ("no raw floor for zookeeper: ...")
     */
    record None(String reason) implements FloorPlan {
    }

    /**
     * Reads the floor's server from the URI the bench runs against.
     *
     * @param uri         the target URI (Locks.connect checks it; only what the floor needs is read here)
     * @param credentials the credentials given outside the URI ({@code --password-file}, the environment),
     *                    used when the URI carries no user info, as the backend does
     * @return where the floor runs, or why it does not
     */
    static FloorPlan of(String uri, Optional<Credentials> credentials) {
        // Options that shape the backend's connection pool or its name, not what one request costs.
        Set<String> ignored = Set.of("poolSize", "clientName");
        Set<String> tls = Set.of("tls", "trustStore", "trustStoreType", "trustStorePassword", "keyStore",
                "keyStoreType", "keyStorePassword");
        URI u;
        try {
            u = new URI(uri);
        } catch (URISyntaxException e) {
            return new None("no raw floor: the URI cannot be read as one server");
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("rediss")) {
            return new None("no raw floor for rediss: the raw client does not set TLS up, and a floor without it"
                    + " would not be the same work");
        }
        if (!Set.of("redis", "tair", "redis-wait").contains(scheme)) {
            return new None("no raw floor for " + (scheme.isEmpty() ? "this URI" : scheme)
                    + ": only a single Redis-protocol server (redis, tair, a redis-wait primary) has one");
        }
        // Several hosts make the authority registry-based: no host, a comma list instead.
        if (u.getHost() == null || u.getRawAuthority() == null || u.getRawAuthority().contains(",")) {
            return new None("no raw floor for " + scheme + ": the URI names several hosts (or none the raw client reads)");
        }
        int port = u.getPort() < 0 ? 6379 : u.getPort();
        int database = 0;
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        if (!path.isEmpty() && !path.equals("/")) {
            try {
                database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                return new None("no raw floor for " + scheme + ": the path '" + path + "' is not a database number");
            }
        }
        int replicas = scheme.equals("redis-wait") ? 1 : 0;
        long waitTimeout = 50;
        if (u.getRawQuery() != null && !u.getRawQuery().isEmpty()) {
            for (String pair : u.getRawQuery().split("&")) {
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                if (name == null || value == null) {
                    return new None("no raw floor for " + scheme + ": the query cannot be decoded");
                }
                if (ignored.contains(name) || (name.equals("tls") && value.equals("false"))) {
                    continue;
                }
                if (tls.contains(name)) {
                    return new None("no raw floor for " + scheme + " over TLS: the raw client does not set TLS up,"
                            + " and a floor without it would not be the same work");
                }
                if (scheme.equals("redis-wait") && name.equals("master")) {
                    return new None("no raw floor for redis-wait through Sentinel: the raw client talks to one fixed server");
                }
                try {
                    if (scheme.equals("redis-wait") && name.equals("replicas")) {
                        replicas = Integer.parseInt(value);
                        continue;
                    }
                    if (scheme.equals("redis-wait") && name.equals("waitTimeout")) {
                        waitTimeout = Long.parseLong(value);
                        continue;
                    }
                } catch (NumberFormatException e) {
                    return new None("no raw floor for " + scheme + ": option '" + name + "' is not a number");
                }
                return new None("no raw floor for " + scheme + ": the raw client cannot honour option '" + name + "'");
            }
        }
        String user = null;
        String password = null;
        if (u.getRawUserInfo() != null) {
            String info = u.getRawUserInfo();
            int colon = info.indexOf(':');
            user = colon < 0 ? null : emptyToNull(decode(info.substring(0, colon)));
            password = emptyToNull(decode(colon < 0 ? info : info.substring(colon + 1)));
        } else if (credentials.isPresent()) {
            user = credentials.get().username().orElse(null);
            password = new String(credentials.get().password());
        }
        return new At(u.getHost().startsWith("[") ? u.getHost().substring(1, u.getHost().length() - 1) : u.getHost(),
                port, database, user, password, replicas, waitTimeout);
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    // Percent-decoding by hand: URLDecoder would turn '+' into a space, which user info does not.
    private static String decode(String raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    return null;
                }
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                int codePoint = raw.codePointAt(i);
                byte[] bytes = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
                out.write(bytes, 0, bytes.length);
                i += Character.charCount(codePoint) - 1;
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
