package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
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
import io.distlock.tck.fixtures.HookChecks;
import io.distlock.tck.fixtures.RedisFamilyHooks;
import io.distlock.tck.fixtures.RedisNodes;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TCK against three real, independent {@code redis-server} processes, each behind a fault
 * proxy, with every node fault: kill, restart without persistence, pause, latency, partition.
 * Without a restart delay, rule 4.3 finds the expected double grant (see the verdict).
 */
class RedlockTckTest extends LockVerification {

    private static RedisNodes nodes;
    private static RedisFamilyHooks hooks;

    @BeforeAll
    static void startServers() {
        nodes = RedisNodes.start(3);
        hooks = RedisFamilyHooks.onQuorum("redlock", nodes, LockScripts::lockKey);
    }

    @AfterAll
    static void stopServers() {
        nodes.close();
    }

    /** @return the servers, for the hook checks below */
    static RedisNodes nodes() {
        return nodes;
    }

    /** The default per-node timeout (50 ms), scaled like every TCK timing on a slow machine. */
    private static final long NODE_TIMEOUT_MILLIS = Math.round(50 * new TestEnvironment().timeoutFactor());

    /**
     * A partitioned client's operation timeout: Redlock bounds each fan-out by {@code nodeTimeout};
     * an extension may take a second one (it asks slow nodes again). The engine gets the same bound.
     */
    private static final Duration PARTITIONED_OPERATION_TIMEOUT = Duration.ofMillis(2 * NODE_TIMEOUT_MILLIS);

    // The hooks in the order of the rules that use them.

    @Override
    protected LockClient newClient() {
        return Locks.connect(nodes.uri("redlock") + "?nodeTimeout=" + NODE_TIMEOUT_MILLIS);
    }

    /** Rules 1.4, 1.7 and 4.15: a client in a child JVM connects as {@link #newClient()} does. */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(nodes.uri("redlock") + "?nodeTimeout=" + NODE_TIMEOUT_MILLIS));
    }

    /** Rule 1.10: how long a quorum keeps the lock (the quorum-th longest PTTL of one owner token). */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /** Rules 2.8 and 4.2–4.7: kill, pause, slow down or cut off a minority of nodes; restart one empty. */
    @Override
    protected Optional<NodeFaults> nodeFaults() {
        return Optional.of(new RedisNodeFaults(nodes));
    }

    /** Rule 4.4: one node's clock jumps (the rule jumps node 0: a minority); its TTLs end that much earlier. */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(hooks.clockJump());
    }

    /** Rule 4.5 does not apply: Redlock's nodes are independent primaries. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        return Optional.of(ReplicaFailover.impossible("Redlock's nodes are independent primaries: none replicates"
                + " another, so no failover can promote a lagging copy (a node that loses its locks is rules 4.2 and 4.3)"));
    }

    /** Rule 4.8: the lock key is deleted on every node, as an operator or an eviction would. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of(hooks.leaseRevocation());
    }

    /**
     * Rules 4.9–4.12 and 4.14: each client reaches every node through fault proxies of its own, in
     * front of the servers themselves (not the shared proxies the node faults use).
     */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(hooks.clientPartition("?nodeTimeout=" + NODE_TIMEOUT_MILLIS,
                LockOptions.builder().operationTimeout(PARTITIONED_OPERATION_TIMEOUT).build(), PARTITIONED_OPERATION_TIMEOUT));
    }

    /** Rule 4.15: one node is killed and comes back empty (the same node as the node faults' restart). */
    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(() -> new RedisNodeFaults(nodes).restartOneWithoutPersistence());
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
        return Optional.of(RedisFamilyHooks.unreachableUri("redlock", 3, SECRET, ""));
    }

    // ---- the whitebox hooks above do what their Javadoc says -------------------------------------

    private static final Duration HOOK_LEASE = Duration.ofSeconds(30);

    @Test
    void theProbeTellsHowLongAQuorumHoldsTheLock() {
        HookChecks.checkProbe(lockProbe().orElseThrow(), this::newClient);
        try (LockClient client = newClient()) {
            client.lock("probed").tryAcquire(HOOK_LEASE).orElseThrow();
            // One node's copy shorter: the quorum holds it as long as the second-longest copy.
            nodes().server(0).call("PEXPIRE", "distlock:{probed}", "5000");
            assertThat(lockProbe().orElseThrow().heldFor("probed"))
                    .hasValueSatisfying(d -> assertThat(d).isGreaterThan(Duration.ofSeconds(20)));
            nodes().server(1).call("PEXPIRE", "distlock:{probed}", "3000");
            assertThat(lockProbe().orElseThrow().heldFor("probed"))
                    .hasValueSatisfying(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(5)));
            nodes().server(0).call("DEL", "distlock:{probed}");
            nodes().server(1).call("DEL", "distlock:{probed}");
            assertThat(lockProbe().orElseThrow().heldFor("probed")).as("held on one node of three").isEmpty();
        }
    }

    @Test
    void aPartitionedClientIsCutOffByItsOwnLinksAndHealsWithThem() throws InterruptedException {
        HookChecks.checkPartition(clientPartition().orElseThrow(), this::newClient, 3);
    }

    @Test
    void aRestartEmptiesOneNode() {
        try (LockClient client = newClient()) {
            client.lock("restarted").tryAcquire(HOOK_LEASE).orElseThrow();
            serverRestart().orElseThrow().restartWithoutPersistence();
            long holding = 0;
            for (int i = 0; i < nodes().size(); i++) {
                holding += (Long) nodes().server(i).call("EXISTS", "distlock:{restarted}");
            }
            assertThat(holding).as("nodes still holding the lock").isEqualTo(2);
        }
    }
}
