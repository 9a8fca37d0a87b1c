package io.distlock.redlock;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.NodeFaults;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.RedisNodes;

import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK against three real, independent {@code redis-server} processes, each behind a fault
 * proxy, with every node fault: kill, restart without persistence, pause, latency, partition.
 * Without a restart delay, rule 4.3 finds the expected double grant (see the verdict).
 */
class RedlockTckTest extends LockVerification {

    private static RedisNodes nodes;

    @BeforeAll
    static void startServers() {
        nodes = RedisNodes.start(3);
    }

    @AfterAll
    static void stopServers() {
        nodes.close();
    }

    /** @return the servers, for {@link TckHooksTest} */
    static RedisNodes nodes() {
        return nodes;
    }

    /** The default per-node timeout (50 ms), scaled like every TCK timing on a slow machine. */
    private static final long NODE_TIMEOUT_MILLIS = Math.round(50 * new TestEnvironment().timeoutFactor());

    @Override
    protected LockClient newClient() {
        return Locks.connect(nodes.uri("redlock") + "?nodeTimeout=" + NODE_TIMEOUT_MILLIS);
    }

    /** Rules 1.4, 1.7 and 4.15: a client in a child JVM connects as {@link #newClient()} does. */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(nodes.uri("redlock") + "?nodeTimeout=" + NODE_TIMEOUT_MILLIS));
    }

    @Override
    protected List<String> malformedUris() {
        String auth = "redlock://alice:" + SECRET + "@";
        String three = "127.0.0.1:" + nodes.proxy(0).port() + ",127.0.0.1:" + nodes.proxy(1).port() + ",127.0.0.1:"
                + nodes.proxy(2).port();
        return List.of(
                auth + "127.0.0.1:" + nodes.proxy(0).port() + ",127.0.0.1:" + nodes.proxy(1).port(),
                auth + three + ",127.0.0.1:" + nodes.proxy(0).port(),
                auth + three + ",",
                auth + "127.0.0.1:notaport," + three,
                auth + three + "?nodeTimeout=0",
                auth + three + "?restartDelay=-1",
                auth + three + "?noSuchOption=" + SECRET);
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("redlock://alice:" + SECRET + "@127.0.0.1:" + FreePorts.find() + ",127.0.0.1:"
                + FreePorts.find() + ",127.0.0.1:" + FreePorts.find());
    }

    /** Rule 4.8: the lock key is deleted on every node, as an operator or an eviction would. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> {
            for (int i = 0; i < nodes.size(); i++) {
                nodes.server(i).call("DEL", "distlock:{" + lockName + "}");
            }
        });
    }

    @Override
    protected Optional<NodeFaults> nodeFaults() {
        return Optional.of(new RedisNodeFaults(nodes));
    }

    /**
     * A partitioned client's operation timeout: Redlock bounds each fan-out by {@code nodeTimeout};
     * an extension may take a second one (it asks slow nodes again). The engine gets the same bound.
     */
    private static final Duration PARTITIONED_OPERATION_TIMEOUT = Duration.ofMillis(2 * NODE_TIMEOUT_MILLIS);

    /**
     * Rules 4.9–4.12 and 4.14: each client reaches every node through fault proxies of its own, in
     * front of the servers themselves (not the shared proxies the node faults use).
     */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            servers.add(nodes.server(i).endpoint());
        }
        LockOptions options = LockOptions.builder().operationTimeout(PARTITIONED_OPERATION_TIMEOUT).build();
        return Optional.of(ClientPartition.of(() -> FaultProxy.partitionedClient(servers, proxies -> Locks.connect(URI.create(
                "redlock://" + proxies.stream().map(FaultProxy::endpoint).collect(Collectors.joining(","))
                        + "?nodeTimeout=" + NODE_TIMEOUT_MILLIS), options)),
                PARTITIONED_OPERATION_TIMEOUT, Duration.ZERO));
    }

    /**
     * Rule 1.10: how long a quorum keeps the lock — per owner token, the quorum-th longest PTTL
     * among the nodes that hold it (after that, fewer than a quorum do); empty if no token holds a
     * quorum. A node that cannot be asked (killed) holds nothing.
     */
    @Override
    protected Optional<LockProbe> lockProbe() {
        int quorum = nodes.size() / 2 + 1;
        return Optional.of(lockName -> {
            Map<String, List<Duration>> heldFor = new HashMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                List<?> reply;
                try {
                    // GET and PTTL in one script: one instant per node.
                    reply = (List<?>) nodes.server(i).call("EVAL", "return {redis.call('GET', KEYS[1]),"
                            + " redis.call('PTTL', KEYS[1])}", "1", "distlock:{" + lockName + "}");
                } catch (UncheckedIOException down) {
                    continue;
                }
                if (reply.isEmpty() || reply.get(0) == null) {
                    continue; // no key (Lua's false ends the array)
                }
                String token = reply.get(0) instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8)
                        : String.valueOf(reply.get(0));
                long pttl = (Long) reply.get(1);
                heldFor.computeIfAbsent(token, t -> new ArrayList<>())
                        .add(pttl == -1 ? LockProbe.UNTIL_RELEASED : Duration.ofMillis(Math.max(0, pttl)));
            }
            return heldFor.values().stream().filter(held -> held.size() >= quorum)
                    .map(held -> held.stream().sorted(Comparator.reverseOrder()).toList().get(quorum - 1))
                    .findFirst();
        });
    }

    /** Rule 4.4: one node's clock jumps (the rule jumps node 0: a minority); its TTLs end that much earlier. */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(ClockJump.of(nodes.size(), (node, delta) -> nodes.server(node).shiftClock(delta)));
    }

    /** Rule 4.5 does not apply: Redlock's nodes are independent primaries. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        return Optional.of(ReplicaFailover.impossible("Redlock's nodes are independent primaries: none replicates"
                + " another, so no failover can promote a lagging copy (a node that loses its locks is rules 4.2 and 4.3)"));
    }

    /** Rule 4.15: one node is killed and comes back empty (the same node as the node faults' restart). */
    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(() -> new RedisNodeFaults(nodes).restartOneWithoutPersistence());
    }
}
