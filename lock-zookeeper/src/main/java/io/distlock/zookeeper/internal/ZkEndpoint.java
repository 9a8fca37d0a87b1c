package io.distlock.zookeeper.internal;

import io.distlock.spi.ServerList;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A ZooKeeper ensemble as a connection URI names it:
 * {@code zookeeper://[user:password@]host:port[,host:port...][/chroot][?sessionTimeout=ms]}.
 * The port defaults to 2181. The path is the chroot; a bare {@code /} is no path, as in
 * {@code redis://host:port/} and any URL, so {@code zookeeper://h:2181/} means the default chroot
 * {@value #DEFAULT_CHROOT}. A chroot that ends with {@code /} ({@code /a/}) is malformed: ZooKeeper
 * has no such path, and guessing {@code /a} would hide a typo. Every message and {@link #toString()} names the hosts and the chroot
 * and never the password; a malformed URI is reported without its user info.
 *
 * <p>The authority is parsed here, not by {@link URI}: a list of hosts is not a server-based
 * authority, so {@code URI.getHost()} is null for it.
 */
public final class ZkEndpoint {

    /** The chroot used when the URI names none: every lock lives under it. */
    public static final String DEFAULT_CHROOT = "/distlock";

    private static final int DEFAULT_PORT = 2181;
    private static final Set<String> OPTIONS = Set.of("sessionTimeout");
    private static final String USAGE = "zookeeper://[user:password@]host:port[,host:port...][/chroot][?sessionTimeout=ms]";

    private final List<String> hosts;
    private final String chroot;
    private final String user;
    private final String password;
    private final Map<String, String> options;

    private ZkEndpoint(List<String> hosts, String chroot, String user, String password, Map<String, String> options) {
        this.hosts = List.copyOf(hosts);
        this.chroot = chroot;
        this.user = user;
        this.password = password;
        this.options = Map.copyOf(options);
    }

    /**
     * @param uri the connection URI (its scheme was what chose this backend)
     * @return the endpoint
     * @throws IllegalArgumentException if there is no host, a port is not a number in 1..65535, a
     *                                  host is malformed, the chroot is not a valid znode path, the
     *                                  user info has no {@code :}, or an option is unknown or out of
     *                                  range; the message never contains the password
     */
    public static ZkEndpoint parse(URI uri) {
        Objects.requireNonNull(uri, "uri");
        ServerList servers = ServerList.parse(uri, DEFAULT_PORT, OPTIONS, USAGE);
        String usage = " in " + ServerList.redacted(uri) + "; expected " + USAGE;
        ZkEndpoint endpoint = new ZkEndpoint(servers.hosts(), chroot(servers.path(), usage), servers.user().orElse(null),
                servers.password().orElse(null), servers.options());
        endpoint.sessionTimeoutMillis(10_000); // validates the option now, not at connect
        return endpoint;
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

    /** @return true if the URI carried user:password, for ZooKeeper digest authentication */
    public boolean authenticated() {
        return user != null;
    }

    /** @return {@code user:password}, the digest credentials; never logged */
    public byte[] digestCredentials() {
        return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
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

    /** @return {@code zookeeper://host:port,...<chroot>}: what messages name; never the password */
    @Override
    public String toString() {
        return "zookeeper://" + connectString() + chroot;
    }
}
