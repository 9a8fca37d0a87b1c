package io.distlock.rediscluster.internal;

import io.distlock.LockOptions;
import io.distlock.spi.ServerList;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.WaitConfirmedDriver;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A {@code redis-cluster://} URI, parsed and checked before any I/O:
 * {@code redis-cluster://[user:password@]host:port[,host:port...][?option=value&...]}. The hosts
 * are seeds: any reachable one tells the client the cluster's slot map, and the client talks to
 * every primary the map names. A cluster has only database 0, so a path other than {@code /} or
 * {@code /0} is refused.
 *
 * <p>Options: {@code poolSize} (connections per primary, 1..64, default 8), {@code clientName},
 * {@code natMap} (the addresses the nodes announce, mapped to the ones this client must use:
 * {@code natMap=10.0.0.5:6379=203.0.113.7:7001,10.0.0.6:6379=203.0.113.7:7002}, for a cluster
 * behind NAT or port forwarding), {@code replicas} (0..{@value WaitConfirmedDriver#MAX_REPLICAS},
 * default 0: how many replicas of a lock's slot primary must acknowledge each grant and extension
 * with {@code WAIT}) with {@code waitTimeout} (ms {@code WAIT} may block,
 * 1..{@value WaitConfirmedDriver#MAX_WAIT_TIMEOUT_MILLIS}, default
 * {@value WaitConfirmedDriver#DEFAULT_WAIT_TIMEOUT_MILLIS}; only with {@code replicas}), and the TLS
 * options of every Redis-family backend with {@code tls=true}. Every message shows the URI without
 * its password.
 */
public final class ClusterSettings {

    /** The query options this backend understands (besides TLS's). */
    public static final Set<String> OPTIONS = Set.of("poolSize", "clientName", "natMap", "replicas", "waitTimeout");

    private final String shown;
    private final List<RedisEndpoint> seeds;
    private final int poolSize;
    private final Map<String, String> natMap;
    private final int replicas;
    private final Duration waitTimeout;

    private ClusterSettings(String shown, List<RedisEndpoint> seeds, int poolSize, Map<String, String> natMap, int replicas,
                            Duration waitTimeout) {
        this.shown = shown;
        this.seeds = seeds;
        this.poolSize = poolSize;
        this.natMap = natMap;
        this.replicas = replicas;
        this.waitTimeout = waitTimeout;
    }

    /**
     * @param uri     a {@code redis-cluster://} URI (its scheme is not checked: the caller was chosen by it)
     * @param options the client's options: their credentials, if the URI has none, are every node's
     * @return the settings
     * @throws IllegalArgumentException if the URI is malformed, names a database other than 0, lists
     *                                  a seed twice, or has an unknown, malformed or out-of-range
     *                                  option, or {@code waitTimeout} without {@code replicas}; the
     *                                  message never shows the password
     */
    public static ClusterSettings parse(URI uri, LockOptions options) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        String shown = RedisEndpoint.redacted(uri);
        List<RedisEndpoint> hosts = RedisEndpoint.parseNodes(uri, OPTIONS).stream()
                .map(host -> host.withCredentials(options)).toList();
        RedisEndpoint first = hosts.get(0);
        if (first.database() != 0) {
            throw new IllegalArgumentException("redis-cluster URI '" + shown + "' names database " + first.database()
                    + "; a Redis Cluster has only database 0 (leave the path out)");
        }
        for (int i = 0; i < hosts.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (hosts.get(i).endpoint().equals(hosts.get(j).endpoint())) {
                    throw new IllegalArgumentException("redis-cluster URI '" + shown + "' lists seed " + hosts.get(i).endpoint()
                            + " twice");
                }
            }
        }
        int poolSize = first.intOption("poolSize", 8, 1, 64);
        int replicas = first.intOption("replicas", 0, 0, WaitConfirmedDriver.MAX_REPLICAS);
        if (replicas == 0 && first.option("waitTimeout") != null) {
            throw new IllegalArgumentException("redis-cluster URI '" + shown + "' sets waitTimeout without replicas: WAIT is"
                    + " sent only with replicas=N (N >= 1)");
        }
        int waitTimeoutMillis = first.intOption("waitTimeout", WaitConfirmedDriver.DEFAULT_WAIT_TIMEOUT_MILLIS, 1,
                WaitConfirmedDriver.MAX_WAIT_TIMEOUT_MILLIS);
        Map<String, String> natMap = ServerList.natMap(first.option("natMap"), "redis-cluster URI '" + shown + "'");
        return new ClusterSettings(shown, hosts, poolSize, natMap, replicas, Duration.ofMillis(waitTimeoutMillis));
    }

    /** @return the seeds, in the URI's order, each with the credentials, TLS settings and options */
    public List<RedisEndpoint> seeds() {
        return seeds;
    }

    /** @return connections per primary */
    public int poolSize() {
        return poolSize;
    }

    /** @return how many replicas of a slot's primary must acknowledge a grant or an extension; 0: no {@code WAIT} */
    public int replicas() {
        return replicas;
    }

    /** @return how long {@code WAIT} may block (used only with {@link #replicas()}) */
    public Duration waitTimeout() {
        return waitTimeout;
    }

    /**
     * @param announced a node's address as the cluster announces it ({@code host:port})
     * @return the address to connect to: the natMap's, or the announced one
     */
    public String reachable(String announced) {
        return natMap.getOrDefault(announced, announced);
    }

    /** @return the URI without its password */
    @Override
    public String toString() {
        return shown;
    }
}
