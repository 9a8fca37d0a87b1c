package io.distlock.etcd.internal;

import io.distlock.spi.ServerList;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An etcd cluster as a connection URI names it:
 * {@code etcd://[user:password@]host:port[,host:port...][/prefix][?sessionTtl=s]}. The port defaults
 * to 2379; the prefix (the key under which every lock of the client lives) to {@value #DEFAULT_PREFIX};
 * the session TTL to {@value #DEFAULT_SESSION_TTL_SECONDS} s. A prefix that ends with {@code /} is
 * malformed (a bare {@code /} is no prefix), as a ZooKeeper chroot is: guessing would hide a typo.
 * Every message and {@link #toString()} names the hosts and the prefix and never the password.
 */
public final class EtcdEndpoint {

    /** The prefix used when the URI names none. */
    public static final String DEFAULT_PREFIX = "/distlock";
    /** The session TTL, in seconds, when the URI sets none. */
    public static final int DEFAULT_SESSION_TTL_SECONDS = 10;
    /** The longest session TTL accepted, in seconds. */
    static final int MAX_SESSION_TTL_SECONDS = 3600;

    private static final int DEFAULT_PORT = 2379;
    private static final String USAGE = "etcd://[user:password@]host:port[,host:port...][/prefix][?sessionTtl=s]";

    private final ServerList servers;
    private final String prefix;
    private final int sessionTtlSeconds;

    private EtcdEndpoint(ServerList servers, String prefix, int sessionTtlSeconds) {
        this.servers = servers;
        this.prefix = prefix;
        this.sessionTtlSeconds = sessionTtlSeconds;
    }

    /**
     * @param uri the connection URI (its scheme was what chose this backend)
     * @return the endpoint
     * @throws IllegalArgumentException if there is no host, a host or port is malformed, the prefix
     *                                  ends with {@code /} or has an empty segment, the user info has
     *                                  no {@code :}, an option is unknown, or {@code sessionTtl} is
     *                                  not a whole number of seconds in 1..3600; the message never
     *                                  contains the password
     */
    public static EtcdEndpoint parse(URI uri) {
        Objects.requireNonNull(uri, "uri");
        ServerList servers = ServerList.parse(uri, DEFAULT_PORT, Set.of("sessionTtl"), USAGE);
        String in = " in " + ServerList.redacted(uri) + "; expected " + USAGE;
        return new EtcdEndpoint(servers, prefix(servers.path(), in), sessionTtl(servers.options().get("sessionTtl"), in));
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

    /** @return the user, if the URI named one (etcd authentication) */
    public Optional<String> user() {
        return servers.user();
    }

    /** @return the password, if the URI named one; never logged */
    public Optional<String> password() {
        return servers.password();
    }

    /** @return {@code etcd://host:port,...<prefix>}: what messages name; never the password */
    @Override
    public String toString() {
        return "etcd://" + String.join(",", servers.hosts()) + prefix;
    }
}
