package io.distlock.redlock.internal;

import io.distlock.redis.support.RedisEndpoint;

import io.distlock.LockOptions;

import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A {@code redlock://} URI, parsed and checked:
 * {@code redlock://[user:password@]host1:port1,host2:port2,host3:port3[/db][?option=value&...]}.
 *
 * <p>Refused, with an {@link IllegalArgumentException} that never shows the password: fewer than
 * {@value #MIN_NODES} nodes (one node is {@code redis://}; two nodes make a quorum of two, which
 * survives no failure at all and so is worse than one), more than {@value #MAX_NODES}, the same
 * {@code host:port} twice (one server would cast two votes), and option values out of range. An
 * even number of nodes is allowed: the quorum is still {@code N/2 + 1} (4 nodes need 3, and
 * tolerate one failure, like 3).
 *
 * @param nodes        the independent Redis servers, in URI order
 * @param nodeTimeout  the per-node bound of every fan-out: how long one node may take to answer
 * @param restartDelay how long a node that (re)started keeps out of votes; zero: no delay
 * @param poolSize     connections per node and client
 */
public record RedlockSettings(List<RedisEndpoint> nodes, Duration nodeTimeout, Duration restartDelay, int poolSize) {

    /** The query options {@code redlock://} understands. */
    public static final Set<String> OPTIONS = Set.of("nodeTimeout", "restartDelay", "poolSize", "clientName");

    /** The fewest nodes accepted. */
    public static final int MIN_NODES = 3;

    /** The most nodes accepted. */
    public static final int MAX_NODES = 15;

    /** The default per-node timeout, in ms: long enough for a loaded LAN node, short next to any lease. */
    public static final int DEFAULT_NODE_TIMEOUT_MILLIS = 50;

    /**
     * @param nodes        the nodes
     * @param nodeTimeout  the per-node timeout
     * @param restartDelay the restart delay
     * @param poolSize     connections per node
     */
    public RedlockSettings {
        nodes = List.copyOf(nodes);
        Objects.requireNonNull(nodeTimeout, "nodeTimeout");
        Objects.requireNonNull(restartDelay, "restartDelay");
    }

    /**
     * @param uri a {@code redlock://} URI
     * @return the settings
     * @throws IllegalArgumentException if the URI is malformed or breaks a rule of the class comment
     */
    public static RedlockSettings parse(URI uri) {
        return parse(uri, LockOptions.defaults());
    }

    /**
     * @param uri     a {@code redlock://} URI
     * @param options the client's options: their credentials, if the URI has none, are every node's
     * @return the settings
     * @throws IllegalArgumentException if the URI is malformed or breaks a rule of the class comment,
     *                                  or the URI and the options both carry credentials
     */
    public static RedlockSettings parse(URI uri, LockOptions options) {
        List<RedisEndpoint> nodes = new java.util.ArrayList<>();
        for (RedisEndpoint node : RedisEndpoint.parseNodes(uri, OPTIONS)) {
            nodes.add(node.withCredentials(options));
        }
        if (nodes.size() < MIN_NODES) {
            throw new IllegalArgumentException("redlock needs at least " + MIN_NODES + " independent Redis nodes, the URI lists "
                    + nodes.size() + " (" + nodes + "): with one node use redis://; two nodes need both for a quorum,"
                    + " so they survive no failure");
        }
        if (nodes.size() > MAX_NODES) {
            throw new IllegalArgumentException("redlock accepts at most " + MAX_NODES + " nodes, the URI lists " + nodes.size());
        }
        Set<String> seen = new HashSet<>();
        for (RedisEndpoint node : nodes) {
            if (!seen.add(node.endpoint().toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("redlock URI lists node " + node + " twice: one server would cast two"
                        + " votes; list each independent Redis server once");
            }
        }
        RedisEndpoint first = nodes.get(0);
        int nodeTimeout = first.intOption("nodeTimeout", DEFAULT_NODE_TIMEOUT_MILLIS, 1, 60_000);
        int restartDelay = first.intOption("restartDelay", 0, 0, 86_400_000);
        int poolSize = first.intOption("poolSize", 8, 1, 64);
        return new RedlockSettings(nodes, Duration.ofMillis(nodeTimeout), Duration.ofMillis(restartDelay), poolSize);
    }

    /** @return {@code N/2 + 1}: the nodes that must agree */
    public int quorum() {
        return nodes.size() / 2 + 1;
    }

    /**
     * Refuses a lease time a slow node could eat: the fan-out alone may take a per-node timeout,
     * and the lease must still be worth having after it.
     *
     * @param leaseTime the lease time asked for
     * @throws IllegalArgumentException if it is shorter than twice the per-node timeout
     */
    public void checkLeaseTime(Duration leaseTime) {
        if (leaseTime.toNanos() < 2 * nodeTimeout.toNanos()) { // not Duration.multipliedBy: BigDecimal on every call
            throw new IllegalArgumentException("redlock lease time " + leaseTime.toMillis() + " ms is shorter than twice the"
                    + " per-node timeout (nodeTimeout=" + nodeTimeout.toMillis() + " ms): one slow node could use up the whole"
                    + " lease; ask for at least " + nodeTimeout.multipliedBy(2).toMillis() + " ms or lower nodeTimeout");
        }
    }

    @Override
    public String toString() {
        return "redlock" + nodes + "[quorum " + quorum() + ", nodeTimeout " + nodeTimeout.toMillis() + " ms, restartDelay "
                + restartDelay.toMillis() + " ms]";
    }
}
