package io.distlock.spi;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The parts of a connection URI that names a list of servers, for backends whose clients talk to
 * an ensemble or a cluster: {@code scheme://[user:password@]host:port[,host:port...][/path][?option=value&...]}.
 *
 * <p>A list of hosts is not a server-based authority, so {@link URI#getHost()} is null for it; this
 * parses the authority itself. Hosts are names or IPv4 addresses (a bracketed IPv6 literal is
 * accepted too), lower-cased, each with its port or the backend's default. Options are checked
 * against the names the backend knows. Every message names the hosts and the path and never the
 * password (nor an option's value, which might be a secret).
 *
 * @param scheme   the URI's scheme, lower-case
 * @param hosts    {@code host:port} of every listed server, in order, not empty
 * @param user     the user, if the URI carried user info
 * @param password the password, if the URI carried user info; never log it
 * @param path     the decoded path, or the empty string
 * @param options  the decoded options, in the order given
 */
public record ServerList(String scheme, List<String> hosts, Optional<String> user, Optional<String> password,
                         String path, Map<String, String> options) {

    /**
     * @param scheme   the scheme
     * @param hosts    the servers
     * @param user     the user
     * @param password the password
     * @param path     the path
     * @param options  the options
     * @throws NullPointerException if a component is null
     */
    public ServerList {
        Objects.requireNonNull(scheme, "scheme");
        hosts = List.copyOf(hosts);
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(path, "path");
        options = Map.copyOf(options);
    }

    /**
     * @param uri         the connection URI
     * @param defaultPort the port of a host that names none
     * @param known       the option names the backend understands
     * @param usage       what a well-formed URI of this backend looks like, for messages
     * @return the parsed list
     * @throws IllegalArgumentException if there is no host, a host is empty or malformed, a port is
     *                                  not a number in 1..65535, the user info has no {@code :}, the
     *                                  URI has a fragment, or an option is unknown; the message
     *                                  never contains the password
     */
    public static ServerList parse(URI uri, int defaultPort, Set<String> known, String usage) {
        Objects.requireNonNull(uri, "uri");
        String in = " in " + redacted(uri) + "; expected " + usage;
        if (uri.isOpaque() || uri.getRawAuthority() == null || uri.getRawAuthority().isEmpty()) {
            throw new IllegalArgumentException("no host" + in);
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException("a fragment is not allowed" + in);
        }
        String authority = uri.getRawAuthority();
        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            int colon = userInfo.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("user info must be user:password" + in);
            }
            user = decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
            authority = authority.substring(at + 1);
        }
        List<String> hosts = new ArrayList<>();
        for (String hostPort : authority.split(",", -1)) {
            hosts.add(hostAndPort(hostPort, defaultPort, in));
        }
        Map<String, String> options = new LinkedHashMap<>();
        if (uri.getRawQuery() != null && !uri.getRawQuery().isEmpty()) {
            for (String pair : uri.getRawQuery().split("&")) {
                int eq = pair.indexOf('=');
                String key = decode(eq < 0 ? pair : pair.substring(0, eq));
                if (!known.contains(key)) {
                    throw new IllegalArgumentException("unknown option '" + key + "' (known: " + new TreeSet<>(known) + ")" + in);
                }
                options.put(key, eq < 0 ? "" : decode(pair.substring(eq + 1)));
            }
        }
        return new ServerList(uri.getScheme().toLowerCase(Locale.ROOT), hosts, Optional.ofNullable(user),
                Optional.ofNullable(password), uri.getPath() == null ? "" : uri.getPath(), options);
    }

    /**
     * The end of one listed server's turn, for a client that tries the servers one after another
     * within one deadline (a connect): the last server may use all that is left; any other at most
     * half of it, so that a server that accepts connections and never answers (a frozen process)
     * listed first leaves the next one time to answer (TCK rule 5.8).
     *
     * @param deadlineNanos the deadline of the whole attempt, on {@link System#nanoTime()}'s clock
     * @param turn          the server's place in the order tried, from 0
     * @param turns         how many servers are tried
     * @return the moment this server's turn ends, on the same clock, never after {@code deadlineNanos}
     */
    public static long turnDeadline(long deadlineNanos, int turn, int turns) {
        long now = System.nanoTime();
        return turn >= turns - 1 ? deadlineNanos : now + Math.max(0, deadlineNanos - now) / 2;
    }

    /**
     * @param uri a connection URI
     * @return {@code scheme://[***@]hosts/path}: the URI without its user info and query, for messages
     */
    public static String redacted(URI uri) {
        String authority = uri.getRawAuthority();
        String hosts = authority == null ? "" : authority.substring(authority.lastIndexOf('@') + 1);
        return uri.getScheme() + "://" + (authority != null && authority.contains("@") ? "***@" : "")
                + hosts + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    /**
     * Parses a {@code natMap} option: the addresses servers announce (to each other, and in the
     * topology a client learns from them), each mapped to the address this client must use instead —
     * for servers behind NAT or port forwarding:
     * {@code 10.0.0.5:6379=203.0.113.7:7001,10.0.0.6:6379=203.0.113.7:7002}.
     *
     * @param value the option's value, or null if the URI has none
     * @param uri   how messages name the URI, for example {@code "redis-cluster URI 'redis-cluster://h:1'"};
     *              never with a password
     * @return announced {@code host:port} to reachable {@code host:port}, in the order given; empty for null
     * @throws IllegalArgumentException if an entry is not {@code host:port=host:port} (the message gives
     *                                  its number, not its text: a mistyped URI may have put a secret
     *                                  there) or an announced address is mapped twice
     */
    public static Map<String, String> natMap(String value, String uri) {
        Map<String, String> map = new LinkedHashMap<>();
        if (value == null) {
            return map;
        }
        String[] pairs = value.split(",", -1);
        for (int i = 0; i < pairs.length; i++) {
            String pair = pairs[i];
            int eq = pair.indexOf('=');
            String from = eq < 0 ? "" : pair.substring(0, eq).strip();
            String to = eq < 0 ? "" : pair.substring(eq + 1).strip();
            if (!isHostPort(from) || !isHostPort(to)) {
                throw new IllegalArgumentException(uri + " has a malformed natMap entry (number " + (i + 1)
                        + "); expected announced-host:port=reachable-host:port, entries separated by commas");
            }
            if (map.put(from, to) != null) {
                throw new IllegalArgumentException(uri + " maps " + from + " twice in natMap");
            }
        }
        return Collections.unmodifiableMap(map);
    }

    private static boolean isHostPort(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            return false;
        }
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            return port >= 1 && port <= 65535;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String hostAndPort(String hostPort, int defaultPort, String in) {
        if (hostPort.isEmpty()) {
            throw new IllegalArgumentException("empty host in the host list" + in);
        }
        String host;
        String port;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("unclosed IPv6 address '" + hostPort + "'" + in);
            }
            host = hostPort.substring(0, close + 1);
            String rest = hostPort.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw new IllegalArgumentException("malformed host '" + hostPort + "'" + in);
            }
            port = rest.isEmpty() ? null : rest.substring(1);
        } else {
            int colon = hostPort.lastIndexOf(':');
            host = colon < 0 ? hostPort : hostPort.substring(0, colon);
            port = colon < 0 ? null : hostPort.substring(colon + 1);
            if (host.isEmpty() || !host.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException("malformed host '" + host + "'" + in);
            }
        }
        int number = defaultPort;
        if (port != null) {
            try {
                number = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("port '" + port + "' of host " + host + " is not a number" + in);
            }
            if (number < 1 || number > 65535) {
                throw new IllegalArgumentException("port " + number + " of host " + host + " is not in 1..65535" + in);
            }
        }
        return host.toLowerCase(Locale.ROOT) + ":" + number;
    }

    private static String decode(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** @return {@code scheme://host:port,...path}: what messages name; never the password */
    @Override
    public String toString() {
        return scheme + "://" + String.join(",", hosts) + path;
    }
}
