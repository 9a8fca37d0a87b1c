package io.distlock.hazelcast.internal;

import io.distlock.spi.ServerList;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A Hazelcast cluster as a connection URI names it:
 * {@code hazelcast://host:port[,host:port...][/cluster-name][?smartRouting=false]} for the CP
 * Subsystem's lock, {@code hazelcast-map://host:port[,...][/cluster-name][?map=name][&smartRouting=false]}
 * for the map lock. The port defaults to 5701, the cluster name to Hazelcast's own default
 * ({@value #DEFAULT_CLUSTER_NAME}), the map to {@value #DEFAULT_MAP}. {@code smartRouting=false}
 * makes the client send every call through one connection (Hazelcast's unisocket mode) instead of
 * to the member that owns it. {@code natMap} maps the addresses members announce to the ones this
 * client must use ({@code 10.0.0.5:5701=203.0.113.7:7001,...}), for members behind NAT or port
 * forwarding: every connection, to a listed member or to one learnt from the member list, goes to
 * the mapped address.
 *
 * <p>User info is refused: Hazelcast Community has no client authentication (security is an
 * Enterprise feature; a Community member accepts any credentials), so a password in the URI would
 * protect nothing while looking as if it did. The cluster name is what a client must know.
 */
public final class HazelcastEndpoint {

    /** Hazelcast's default cluster name. */
    public static final String DEFAULT_CLUSTER_NAME = "dev";
    /** The map whose entries' locks {@code hazelcast-map://} takes when the URI names none. */
    public static final String DEFAULT_MAP = "distlock";
    private static final int DEFAULT_PORT = 5701;
    private static final String CP_USAGE = "hazelcast://host:port[,host:port...][/cluster-name][?smartRouting=false]"
            + "[&natMap=announced-host:port=reachable-host:port,...]";
    private static final String MAP_USAGE = "hazelcast-map://host:port[,host:port...][/cluster-name][?map=name]"
            + "[&smartRouting=false][&natMap=announced-host:port=reachable-host:port,...]";

    private final List<String> members;
    private final String clusterName;
    private final String map;
    private final boolean smartRouting;
    private final Map<String, String> natMap;

    private HazelcastEndpoint(List<String> members, String clusterName, String map, boolean smartRouting,
                              Map<String, String> natMap) {
        this.members = members;
        this.clusterName = clusterName;
        this.map = map;
        this.smartRouting = smartRouting;
        this.natMap = natMap;
    }

    /**
     * @param uri     the connection URI (its scheme chose this backend)
     * @param withMap whether the URI is a {@code hazelcast-map://} one (the {@code map} option allowed)
     * @return the endpoint
     * @throws IllegalArgumentException if there is no member, a host or port is malformed, the URI has
     *                                  user info (Community has no client authentication), the cluster
     *                                  name is empty or has a {@code /}, an option is unknown, or
     *                                  {@code smartRouting} is not {@code true} or {@code false}, or
     *                                  {@code natMap} is malformed ({@link ServerList#natMap}); the
     *                                  message never contains a password
     */
    public static HazelcastEndpoint parse(URI uri, boolean withMap) {
        Objects.requireNonNull(uri, "uri");
        String usage = withMap ? MAP_USAGE : CP_USAGE;
        ServerList servers = ServerList.parse(uri, DEFAULT_PORT, withMap ? Set.of("map", "smartRouting", "natMap")
                : Set.of("smartRouting", "natMap"), usage);
        String in = " in " + ServerList.redacted(uri) + "; expected " + usage;
        if (servers.user().isPresent()) {
            throw new IllegalArgumentException("Hazelcast Community has no client authentication (it is an Enterprise"
                    + " feature; a Community member accepts any credentials), so the URI may not carry a user or"
                    + " password: the cluster name is what a client must know" + in);
        }
        String path = servers.path();
        String clusterName = path.isEmpty() || path.equals("/") ? DEFAULT_CLUSTER_NAME : path.substring(1);
        if (clusterName.isEmpty() || clusterName.contains("/")) {
            throw new IllegalArgumentException("the cluster name '" + clusterName + "' is empty or has a '/'" + in);
        }
        String map = servers.options().getOrDefault("map", DEFAULT_MAP);
        if (map.isBlank()) {
            throw new IllegalArgumentException("the map name is blank" + in);
        }
        String smart = servers.options().getOrDefault("smartRouting", "true");
        if (!smart.equals("true") && !smart.equals("false")) {
            throw new IllegalArgumentException("smartRouting must be true or false, not '" + smart + "'" + in);
        }
        Map<String, String> natMap = ServerList.natMap(servers.options().get("natMap"), "the URI " + ServerList.redacted(uri));
        return new HazelcastEndpoint(servers.hosts(), clusterName, map, Boolean.parseBoolean(smart), natMap);
    }

    /** @return {@code host:port} of every listed member, in order */
    public List<String> members() {
        return members;
    }

    /** @return the cluster name the client presents */
    public String clusterName() {
        return clusterName;
    }

    /** @return the map whose entries' locks the map lock takes */
    public String map() {
        return map;
    }

    /** @return false for Hazelcast's unisocket mode: only the listed members are spoken to */
    public boolean smartRouting() {
        return smartRouting;
    }

    /** @return announced {@code host:port} to the {@code host:port} this client connects to instead; often empty */
    public Map<String, String> natMap() {
        return natMap;
    }

    /** @return the members and the cluster name, as messages name them: {@code host:port,... (cluster 'name')} */
    @Override
    public String toString() {
        return String.join(",", members) + " (cluster '" + clusterName + "')";
    }
}
