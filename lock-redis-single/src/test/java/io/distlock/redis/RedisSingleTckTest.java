package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.fixtures.HookChecks;
import io.distlock.tck.fixtures.RedisFamilyHooks;
import io.distlock.tck.fixtures.RedisReplicaSet;
import io.distlock.tck.fixtures.RedisServer;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TCK against one real {@code redis-server} on a free loopback port; for rule 4.5 (failover),
 * also against a Sentinel-managed primary with two replicas ({@link RedisReplicaSet}, started for
 * that rule only), which a {@code redis://} client reaches at its primary's address: what users of
 * a single Redis with replicas for high availability run.
 */
class RedisSingleTckTest extends LockVerification {

    private static RedisServer redis;
    private static RedisFamilyHooks hooks;
    private static RedisReplicaSet replicated;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.start();
        hooks = RedisFamilyHooks.onServer("redis", redis, LockScripts::lockKey);
    }

    @AfterAll
    static void stopServer() {
        redis.close();
        if (replicated != null) {
            replicated.close();
        }
    }

    // The hooks in the order of the rules that use them.

    @Override
    protected LockClient newClient() {
        return Locks.connect(redis.uri());
    }

    /** Rules 1.4, 1.7 and 4.15: a client in a child JVM connects as {@link #newClient()} does. */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(redis.uri()));
    }

    /** Rule 1.10: the lock key's PTTL. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /** Rule 4.4: the server's clock jumps; every TTL ends that much earlier ({@link RedisServer#shiftClock}). */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(hooks.clockJump());
    }

    /** Rule 4.5: a client made after a failover connects to the new primary, as one behind a virtual address would. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        if (replicated == null) {
            replicated = RedisReplicaSet.start(2, 3);
        }
        return Optional.of(replicated.replicaFailover(() -> Locks.connect("redis://" + replicated.primaryEndpoint())));
    }

    /** Rules 4.8 and 4.13: the server drops the lock key, as an eviction or an operator would. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of(hooks.leaseRevocation());
    }

    /** Rules 4.9–4.12, 4.14, 4.16, 4.17 and 4.20–4.22: each client reaches the server through a fault proxy of its own. */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(hooks.clientPartition("", environment().scaled(Duration.ofMillis(500))));
    }

    /** Rule 4.15: the server is killed and comes back empty (no persistence): its fence counter starts over. */
    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(hooks.serverRestart());
    }

    @Override
    protected List<String> malformedUris() {
        return RedisFamilyHooks.malformedServerUris("redis", redis.port(), SECRET);
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(RedisFamilyHooks.unreachableUri("redis", 1, SECRET, ""));
    }

    // ---- the whitebox hooks above do what their Javadoc says -------------------------------------

    private static final Duration HOOK_LEASE = Duration.ofSeconds(30);

    @Test
    void theProbeTellsHowLongTheServerHoldsTheLock() {
        HookChecks.checkProbe(lockProbe().orElseThrow(), this::newClient);
    }

    @Test
    void aPartitionedClientIsCutOffByItsOwnLinkAndHealsWithIt() throws InterruptedException {
        HookChecks.checkPartition(clientPartition().orElseThrow(), this::newClient, 1);
    }

    @Test
    void aRestartComesBackEmpty() {
        try (LockClient client = newClient()) {
            long fence = client.lock("restarted").tryAcquire(HOOK_LEASE).orElseThrow().fencingToken().getAsLong();
            client.lock("restarted-too").tryAcquire(HOOK_LEASE).orElseThrow();
            serverRestart().orElseThrow().restartWithoutPersistence();
            assertThat(lockProbe().orElseThrow().heldFor("restarted")).isEmpty();
            try (LockClient after = newClient()) {
                assertThat(after.lock("restarted").tryAcquire(HOOK_LEASE).orElseThrow().fencingToken().getAsLong())
                        .as("the fence counter started over").isLessThanOrEqualTo(fence);
            }
        }
    }
}
