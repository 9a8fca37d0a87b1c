package io.distlock.zookeeper.internal;

import io.distlock.Credentials;
import io.distlock.spi.ServerList;
import io.distlock.spi.TlsSettings;

import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A ZooKeeper ensemble as a connection URI names it:
 * {@code zookeeper://[user:password@]host:port[,host:port...][/chroot][?sessionTimeout=ms][&tls=true&trustStore=...]}.
 * The port defaults to 2181. The path is the chroot; a bare {@code /} is no path, as in
 * {@code redis://host:port/} and any URL, so {@code zookeeper://h:2181/} means the default chroot
 * {@value #DEFAULT_CHROOT}. A chroot that ends with {@code /} ({@code /a/}) is malformed: ZooKeeper
 * has no such path, and guessing {@code /a} would hide a typo. Every message and {@link #toString()} names the hosts and the chroot
 * and never the password; a malformed URI is reported without its user info.
 *
 * <p>{@code tls=true} turns TLS on, with the {@link TlsSettings} options (trust store, client key
 * store); those options without {@code tls=true} are an error, not silently ignored.
 *
 * <p>The authority is parsed here, not by {@link URI}: a list of hosts is not a server-based
 * authority, so {@code URI.getHost()} is null for it.
 */
public final class ZkEndpoint {

    /** The chroot used when the URI names none: every lock lives under it. */
    public static final String DEFAULT_CHROOT = "/distlock";

    private static final int DEFAULT_PORT = 2181;
    private static final Set<String> OPTIONS = options();
    private static final String USAGE = "zookeeper://[user:password@]host:port[,host:port...][/chroot]"
            + "[?sessionTimeout=ms][&tls=true[&trustStore=file&trustStorePassword=...&keyStore=file&keyStorePassword=...]]";

    private final List<String> hosts;
    private final String chroot;
    private final Credentials credentials;
    private final Map<String, String> options;
    private final TlsSettings tls;

    private ZkEndpoint(List<String> hosts, String chroot, Credentials credentials, Map<String, String> options, TlsSettings tls) {
        this.hosts = List.copyOf(hosts);
        this.chroot = chroot;
        this.credentials = credentials;
        this.options = Map.copyOf(options);
        this.tls = tls;
    }

    private static Set<String> options() {
        Set<String> known = new HashSet<>(TlsSettings.OPTIONS);
        known.add("sessionTimeout");
        known.add("tls");
        return Set.copyOf(known);
    }

    /**
     * @param uri the connection URI (its scheme was what chose this backend)
     * @return the endpoint
     * @throws IllegalArgumentException if there is no host, a port is not a number in 1..65535, a
     *                                  host is malformed, the chroot is not a valid znode path, the
     *                                  user info has no {@code :} or its user has one (a digest
     *                                  identity is {@code user:password}), an option is unknown or out of
     *                                  range, {@code tls} is not {@code true}/{@code false}, a TLS store
     *                                  option is given without {@code tls=true}, or a store cannot be
     *                                  read; the message never contains a password
     */
    public static ZkEndpoint parse(URI uri) {
        Objects.requireNonNull(uri, "uri");
        ServerList servers = ServerList.parse(uri, DEFAULT_PORT, OPTIONS, USAGE);
        String usage = " in " + ServerList.redacted(uri) + "; expected " + USAGE;
        String chroot = chroot(servers.path(), usage);
        Credentials credentials = null;
        if (servers.user().isPresent()) {
            String password = servers.password().orElse("");
            if (password.isEmpty()) {
                throw new IllegalArgumentException("the password is empty" + usage);
            }
            credentials = digestCredentials(Credentials.of(servers.user().get(), password), usage);
        }
        String where = String.join(",", servers.hosts()) + chroot;
        ZkEndpoint endpoint = new ZkEndpoint(servers.hosts(), chroot, credentials, servers.options(),
                tls(servers.options(), where, usage));
        endpoint.sessionTimeoutMillis(10_000); // validates the option now, not at connect
        return endpoint;
    }

    /**
     * Checks that credentials can be a ZooKeeper digest identity: {@code user:password}, split at the
     * first {@code :}, so a user name is required and may not hold one.
     *
     * @param credentials the credentials, of the URI or the options
     * @param where       the endpoint, for the message
     * @return {@code credentials}
     * @throws IllegalArgumentException if there is no user name or it holds a {@code :} (never shows the password)
     */
    static Credentials digestCredentials(Credentials credentials, String where) {
        String user = credentials.username().orElseThrow(() -> new IllegalArgumentException(
                "ZooKeeper digest authentication needs a user name as well as a password" + where));
        if (user.indexOf(':') >= 0) {
            throw new IllegalArgumentException("the ZooKeeper user name '" + user + "' contains ':', which ends a digest"
                    + " user name" + where);
        }
        return credentials;
    }

    private static TlsSettings tls(Map<String, String> options, String where, String usage) {
        String tls = options.get("tls");
        if (tls != null && !tls.equals("true") && !tls.equals("false")) {
            throw new IllegalArgumentException("tls must be true or false, was '" + tls + "'" + usage);
        }
        if (!"true".equals(tls)) {
            for (String option : TlsSettings.OPTIONS) {
                if (options.containsKey(option)) {
                    throw new IllegalArgumentException("the TLS option " + option + " is given without tls=true:"
                            + " add tls=true to connect over TLS" + usage);
                }
            }
            return null;
        }
        return TlsSettings.parse(options, where, "ZooKeeper URI");
    }

    private static String chroot(String path, String usage) {
        if (path == null || path.isEmpty() || path.equals("/")) {
            return DEFAULT_CHROOT;
        }
        if (path.endsWith("/")) {
            throw new IllegalArgumentException("the chroot '" + path + "' must not end with '/' (write "
                    + path.substring(0, path.length() - 1) + "; a bare '/' is no chroot, i.e. " + DEFAULT_CHROOT + ")" + usage);
        }
        if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
            throw new IllegalArgumentException("'" + path + "' is ZooKeeper's own tree, not a usable chroot" + usage);
        }
        for (String segment : path.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("'" + path + "' is not a usable chroot (an empty, '.' or '..'"
                        + " segment)" + usage);
            }
            for (char c : segment.toCharArray()) {
                if (c < 0x20 || c == 0x7f || (c >= 0xd800 && c <= 0xf8ff) || c >= 0xfff0) {
                    throw new IllegalArgumentException("the chroot contains a character ZooKeeper does not allow in"
                            + " a path (U+" + String.format(Locale.ROOT, "%04X", (int) c) + ")" + usage);
                }
            }
        }
        return path;
    }

    /** @return the ZooKeeper connect string: the hosts, comma-separated, without the chroot */
    public String connectString() {
        return String.join(",", hosts);
    }

    /** @return the znode under which every lock of this client lives (the URI's path, or {@value #DEFAULT_CHROOT}) */
    public String chroot() {
        return chroot;
    }

    /** @return the credentials of the URI's user info (a digest identity), if it carried any */
    public Optional<Credentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** @return the TLS settings if the URI says {@code tls=true}; empty for a plain connection */
    public Optional<TlsSettings> tls() {
        return Optional.ofNullable(tls);
    }

    /**
     * @param defaultMillis the session timeout when the URI sets none
     * @return the {@code sessionTimeout} option in milliseconds, 500 ms .. 10 min
     * @throws IllegalArgumentException if the option is not a number in range
     */
    public int sessionTimeoutMillis(int defaultMillis) {
        String value = options.get("sessionTimeout");
        if (value == null) {
            return defaultMillis;
        }
        try {
            int millis = Integer.parseInt(value);
            if (millis >= 500 && millis <= 600_000) {
                return millis;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("sessionTimeout must be a number of milliseconds in 500..600000, was '"
                + value + "' (" + this + ")");
    }

    /** @return {@code zookeeper://host:port,...<chroot>}: what messages name; never the password nor a TLS option */
    @Override
    public String toString() {
        return "zookeeper://" + connectString() + chroot;
    }
}
