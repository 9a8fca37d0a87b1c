package io.distlock.zookeeper.internal;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
        String safe = uri.getScheme() + "://" + (uri.getRawUserInfo() != null ? "***@" : "")
                + hostPart(uri.getRawAuthority()) + (uri.getRawPath() == null ? "" : uri.getRawPath());
        String usage = " in " + safe + "; expected zookeeper://[user:password@]host:port[,host:port...][/chroot][?sessionTimeout=ms]";
        if (uri.isOpaque() || uri.getRawAuthority() == null || uri.getRawAuthority().isEmpty()) {
            throw new IllegalArgumentException("no ZooKeeper host" + usage);
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException("a fragment is not allowed" + usage);
        }
        String authority = uri.getRawAuthority();
        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            int colon = userInfo.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("user info must be user:password (digest authentication)" + usage);
            }
            user = decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
            authority = authority.substring(at + 1);
        }
        List<String> hosts = new ArrayList<>();
        for (String hostPort : authority.split(",", -1)) {
            hosts.add(hostAndPort(hostPort, usage));
        }
        String chroot = chroot(uri.getPath(), usage);
        Map<String, String> options = new LinkedHashMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                if (!OPTIONS.contains(key)) {
                    throw new IllegalArgumentException("unknown option '" + key + "' (known: " + OPTIONS + ")" + usage);
                }
                options.put(key, eq < 0 ? "" : decode(pair.substring(eq + 1)));
            }
        }
        ZkEndpoint endpoint = new ZkEndpoint(hosts, chroot, user, password, options);
        endpoint.sessionTimeoutMillis(10_000); // validates the option now, not at connect
        return endpoint;
    }

    private static String hostPart(String authority) {
        if (authority == null) {
            return "";
        }
        int at = authority.lastIndexOf('@');
        return at < 0 ? authority : authority.substring(at + 1);
    }

    private static String hostAndPort(String hostPort, String usage) {
        if (hostPort.isEmpty()) {
            throw new IllegalArgumentException("empty host in the host list" + usage);
        }
        String host;
        String port;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("unclosed IPv6 address '" + hostPort + "'" + usage);
            }
            host = hostPort.substring(0, close + 1);
            String rest = hostPort.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw new IllegalArgumentException("malformed host '" + hostPort + "'" + usage);
            }
            port = rest.isEmpty() ? null : rest.substring(1);
        } else {
            int colon = hostPort.lastIndexOf(':');
            host = colon < 0 ? hostPort : hostPort.substring(0, colon);
            port = colon < 0 ? null : hostPort.substring(colon + 1);
            if (host.isEmpty() || !host.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException("malformed host '" + host + "'" + usage);
            }
        }
        int number = DEFAULT_PORT;
        if (port != null) {
            try {
                number = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("port '" + port + "' of host " + host + " is not a number" + usage);
            }
            if (number < 1 || number > 65535) {
                throw new IllegalArgumentException("port " + number + " of host " + host + " is not in 1..65535" + usage);
            }
        }
        return host.toLowerCase(Locale.ROOT) + ":" + number;
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

    private static String decode(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
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
