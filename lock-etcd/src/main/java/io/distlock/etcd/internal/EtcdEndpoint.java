package io.distlock.etcd.internal;

import io.distlock.Credentials;
import io.distlock.spi.ServerList;
import io.distlock.spi.TlsSettings;

import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * An etcd cluster as a connection URI names it:
 * {@code etcd://[user:password@]host:port[,host:port...][/prefix][?sessionTtl=s][&tls=true[&trustStore=...]]}.
 * The port defaults to 2379; the prefix (the key under which every lock of the client lives) to
 * {@value #DEFAULT_PREFIX}; the session TTL to {@value #DEFAULT_SESSION_TTL_SECONDS} s. A prefix that
 * ends with {@code /} is malformed (a bare {@code /} is no prefix), as a ZooKeeper chroot is: guessing
 * would hide a typo. {@code tls=true} makes the client speak TLS to every member (https), with the
 * store options of {@link TlsSettings}; a store option without {@code tls=true} is malformed.
 * Every message and {@link #toString()} names the hosts and the prefix and never a password.
 */
public final class EtcdEndpoint {

    /** The prefix used when the URI names none. */
    public static final String DEFAULT_PREFIX = "/distlock";
    /** The session TTL, in seconds, when the URI sets none. */
    public static final int DEFAULT_SESSION_TTL_SECONDS = 10;
    /** The longest session TTL accepted, in seconds. */
    static final int MAX_SESSION_TTL_SECONDS = 3600;

    private static final int DEFAULT_PORT = 2379;
    private static final String USAGE = "etcd://[user:password@]host:port[,host:port...][/prefix][?sessionTtl=s]"
            + "[&tls=true[&trustStore=file&trustStorePassword=...&keyStore=file&keyStorePassword=...]]";
    private static final Set<String> OPTIONS;

    static {
        Set<String> options = new HashSet<>(TlsSettings.OPTIONS);
        options.add("sessionTtl");
        options.add("tls");
        OPTIONS = Set.copyOf(options);
    }

    private final ServerList servers;
    private final String prefix;
    private final int sessionTtlSeconds;
    private final TlsSettings tls;

    private EtcdEndpoint(ServerList servers, String prefix, int sessionTtlSeconds, TlsSettings tls) {
        this.servers = servers;
        this.prefix = prefix;
        this.sessionTtlSeconds = sessionTtlSeconds;
        this.tls = tls;
    }

    /**
     * @param uri the connection URI (its scheme was what chose this backend)
     * @return the endpoint
     * @throws IllegalArgumentException if there is no host, a host or port is malformed, the prefix
     *                                  ends with {@code /} or has an empty segment, the user info has
     *                                  no {@code :} or an empty password, an option is unknown,
     *                                  {@code sessionTtl} is not a whole number of seconds in 1..3600,
     *                                  {@code tls} is not {@code true} or {@code false}, a TLS store
     *                                  option is given without {@code tls=true}, or a store cannot be
     *                                  read ({@link TlsSettings#parse}); the message never contains a
     *                                  password
     */
    public static EtcdEndpoint parse(URI uri) {
        Objects.requireNonNull(uri, "uri");
        ServerList servers = ServerList.parse(uri, DEFAULT_PORT, OPTIONS, USAGE);
        String in = " in " + ServerList.redacted(uri) + "; expected " + USAGE;
        if (servers.user().isPresent() && servers.password().orElse("").isEmpty()) {
            throw new IllegalArgumentException("the URI's password is empty" + in);
        }
        return new EtcdEndpoint(servers, prefix(servers.path(), in), sessionTtl(servers.options().get("sessionTtl"), in),
                tls(servers, in));
    }

    private static TlsSettings tls(ServerList servers, String in) {
        Map<String, String> options = servers.options();
        String tls = options.get("tls");
        if (tls != null && !tls.equals("true") && !tls.equals("false")) {
            throw new IllegalArgumentException("tls must be true or false, was '" + tls + "'" + in);
        }
        Map<String, String> stores = options.entrySet().stream().filter(e -> TlsSettings.OPTIONS.contains(e.getKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        if (!"true".equals(tls)) {
            if (!stores.isEmpty()) {
                throw new IllegalArgumentException("the TLS option(s) " + new TreeSet<>(stores.keySet())
                        + " need tls=true: add tls=true to the query" + in);
            }
            return null;
        }
        return TlsSettings.parse(stores, String.join(",", servers.hosts()) + servers.path(), "etcd URI");
    }

    private static String prefix(String path, String in) {
        if (path.isEmpty() || path.equals("/")) {
            return DEFAULT_PREFIX;
        }
        if (path.endsWith("/")) {
            throw new IllegalArgumentException("the prefix '" + path + "' must not end with '/' (write "
                    + path.substring(0, path.length() - 1) + "; a bare '/' is no prefix, i.e. " + DEFAULT_PREFIX + ")" + in);
        }
        if (path.contains("//")) {
            throw new IllegalArgumentException("the prefix '" + path + "' has an empty segment" + in);
        }
        return path;
    }

    private static int sessionTtl(String value, String in) {
        if (value == null) {
            return DEFAULT_SESSION_TTL_SECONDS;
        }
        try {
            int seconds = Integer.parseInt(value);
            if (seconds >= 1 && seconds <= MAX_SESSION_TTL_SECONDS) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("sessionTtl must be a whole number of seconds in 1.." + MAX_SESSION_TTL_SECONDS
                + " (etcd lease TTLs are whole seconds), was '" + value + "'" + in);
    }

    /** @return {@code host:port} of every listed member */
    public List<String> hosts() {
        return servers.hosts();
    }

    /** @return the key prefix under which every lock of this client lives */
    public String prefix() {
        return prefix;
    }

    /** @return the TTL to ask for the client's session lease */
    public Duration sessionTtl() {
        return Duration.ofSeconds(sessionTtlSeconds);
    }

    /** @return the user and password of the URI's user info, if it has one (etcd authentication) */
    public Optional<Credentials> credentials() {
        return servers.user().map(user -> Credentials.of(user, servers.password().orElseThrow()));
    }

    /** @return the TLS settings if the URI says {@code tls=true}; empty for plain http */
    public Optional<TlsSettings> tls() {
        return Optional.ofNullable(tls);
    }

    /** @return {@code etcd://host:port,...<prefix>}: what messages name; never the password */
    @Override
    public String toString() {
        return "etcd://" + String.join(",", servers.hosts()) + prefix + (tls == null ? "" : "?tls=true");
    }
}
