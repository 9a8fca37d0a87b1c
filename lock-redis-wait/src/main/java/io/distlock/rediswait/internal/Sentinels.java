package io.distlock.rediswait.internal;

import io.distlock.LockOptions;
import io.distlock.redis.support.PendingReply.CommandCall;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisNode;
import io.distlock.spi.Watch;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The Sentinels of a {@code redis-wait://...?master=<name>} URI: asked for the primary's address
 * ({@code SENTINEL get-master-addr-by-name}), and a source of {@code +switch-master} events. One
 * kept connection at most per Sentinel, so that re-resolution after a failover pays no connect —
 * once that Sentinel has answered: until then (and again after its kept connection failed) a
 * question goes on a connection of its own, bounded as a whole (TCP connect, TLS handshake, reply)
 * by the asker's turn. The kept connection gives its connect and its TLS handshake a whole connect
 * timeout each, so that a frozen Sentinel over TLS took the time of the live ones (rule 5.8 over
 * TLS). A Sentinel is reached without credentials and without a database, over TLS with the data
 * nodes' stores when the URI says {@code tls=true}.
 */
final class Sentinels implements AutoCloseable {

    /** Where a Sentinel publishes that it moved a master to another address. */
    static final String SWITCH_MASTER = "+switch-master";

    /**
     * A primary's address as a Sentinel reports it.
     *
     * @param host host or address
     * @param port port
     */
    record Address(String host, int port) {
        boolean is(RedisEndpoint endpoint) {
            return endpoint.host().equals(host) && endpoint.port() == port;
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    private final String master;
    private final List<RedisNode> nodes = new ArrayList<>();
    private final CommandCall ask;
    private final long operationTimeoutNanos;
    /** The Sentinels whose last answer came: asked on their kept connection. */
    private final Set<Integer> answering = ConcurrentHashMap.newKeySet();

    Sentinels(List<RedisEndpoint> endpoints, String master, LockOptions options) {
        this.master = master;
        this.ask = new CommandCall("SENTINEL", List.of("get-master-addr-by-name", master));
        this.operationTimeoutNanos = options.operationTimeout().toNanos();
        for (RedisEndpoint endpoint : endpoints) {
            nodes.add(RedisNode.open(endpoint, options.connectTimeout(), options.operationTimeout(), 1));
        }
    }

    int size() {
        return nodes.size();
    }

    /** @return the master name they monitor */
    String master() {
        return master;
    }

    /** @return Sentinel {@code i}'s {@code host:port} */
    String endpoint(int i) {
        return nodes.get(i).endpoint().endpoint();
    }

    /** @return every Sentinel's {@code host:port}, comma-separated: the endpoint of a failure naming them all */
    String endpoints() {
        return nodes.stream().map(n -> n.endpoint().endpoint()).collect(Collectors.joining(","));
    }

    /**
     * Asks Sentinel {@code i} where the primary is.
     *
     * @param i             a Sentinel's index
     * @param deadlineNanos the latest moment to wait for its answer, connecting included (also bounded by the
     *                      operation timeout)
     * @return the address, or null if that Sentinel does not know the master name
     * @throws io.distlock.BackendUnavailableException if it does not answer in time
     * @throws io.distlock.LockException                if it answers an error
     */
    Address ask(int i, long deadlineNanos) {
        long until = Math.min(deadlineNanos, System.nanoTime() + operationTimeoutNanos);
        String operation = "ask for the primary of '" + master + "'";
        Object reply;
        if (answering.contains(i)) {
            try {
                reply = nodes.get(i).send(operation, false, List.of(ask)).await(until).value(0);
            } catch (RuntimeException e) {
                answering.remove(i);
                throw e;
            }
        } else {
            reply = RedisNode.askWithin(nodes.get(i).endpoint(), operation, List.of(ask), until).value(0);
            answering.add(i);
        }
        if (!(reply instanceof List<?> address) || address.size() != 2) {
            return null; // a null reply: no master of that name
        }
        return new Address(PrimaryCheck.text(address.get(0)), Integer.parseInt(PrimaryCheck.text(address.get(1))));
    }

    /**
     * @param i        a Sentinel's index
     * @param onSwitch called on every {@code +switch-master} it publishes (for any master), and once
     *                 after its connection recovers from a drop
     * @return the subscription
     */
    Watch subscribe(int i, Runnable onSwitch) {
        return nodes.get(i).subscribe(SWITCH_MASTER, onSwitch);
    }

    @Override
    public void close() {
        nodes.forEach(RedisNode::close);
    }

    @Override
    public String toString() {
        return "Sentinels[" + endpoints() + ", master " + master + "]";
    }
}
