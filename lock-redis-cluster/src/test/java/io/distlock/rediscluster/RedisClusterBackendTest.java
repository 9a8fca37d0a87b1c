package io.distlock.rediscluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.fixtures.RedisCluster;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the TCK does not ask of every backend but a Redis Cluster user meets: a seed that is no
 * cluster node, a name with braces of its own, an uncovered slot, wake-ups on the slot's shard
 * only, a slot half migrated, and a graceful failover under a held lock. Against the module's shared cluster ({@link SharedCluster});
 * every test leaves it settled.
 */
class RedisClusterBackendTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = SharedCluster.get();
    }

    private static LockClient client() {
        return Locks.connect(SharedCluster.uri(""));
    }

    private static int slotOf(String name) {
        return cluster.slot(LockScripts.lockKey(name));
    }

    @Test
    void aSeedThatIsNotInClusterModeIsRefusedAtConnect() {
        try (RedisServer plain = RedisServer.start()) {
            assertThatThrownBy(() -> Locks.connect("redis-cluster://" + plain.endpoint()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(plain.endpoint()).hasMessageContaining("not in cluster mode");
        }
    }

    @Test
    void aNameWithBracesOfItsOwnKeepsEveryKeyOnTheSlotOfItsPrefixUpToTheFirstClosingBrace() {
        String name = "user{42}:cart";
        try (LockClient client = client(); LockClient other = client()) {
            Lease lease = client.lock(name).tryAcquire(LEASE).orElseThrow();
            int slot = cluster.slot("{user{42}"); // the tag Redis reads in distlock:{user{42}:cart}: "user{42"
            assertThat(slotOf(name)).isEqualTo(slot).isNotEqualTo(cluster.slot("{42}"));
            int owner = cluster.primaryOf(slot);
            assertThat(cluster.call(owner, "EXISTS", LockScripts.lockKey(name), LockScripts.fenceKey(name),
                    LockScripts.ownerKey(name))).isEqualTo(3L);
            assertThat(other.lock(name).tryAcquire(LEASE)).isEmpty();
            assertThat(other.inspect(name)).hasValueSatisfying(info -> assertThat(info.fencingToken()).isEmpty());
            lease.release();
            assertThat(other.lock(name).tryAcquire(LEASE)).isPresent();
        }
    }

    @Test
    void aNameStartingWithAClosingBraceIsRefusedBeforeAnythingIsSent() {
        try (LockClient client = client()) {
            assertThatThrownBy(() -> client.lock("}orders")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("starts with '}'");
            assertThatThrownBy(() -> client.semaphore("}orders", 2)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.inspect("}orders")).isInstanceOf(IllegalArgumentException.class);
            assertThat(client.lock("orders}").tryAcquire(LEASE)).as("a closing brace further on is fine").isPresent();
        }
    }

    @Test
    void anUncoveredSlotIsUnavailableNeverBusy() {
        String name = "uncovered";
        LockOptions quick = LockOptions.builder().connectTimeout(Duration.ofSeconds(1)).operationTimeout(Duration.ofMillis(500)).build();
        try (LockClient client = Locks.connect(URI.create(SharedCluster.uri("")), quick)) {
            cluster.uncoverSlot(slotOf(name));
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> client.lock(name).tryAcquire(LEASE)).isInstanceOf(BackendUnavailableException.class)
                        .hasMessageContaining("CLUSTERDOWN");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("within the operation timeout, retries included")
                        .isLessThan(Duration.ofSeconds(3));
            } finally {
                cluster.coverSlot(slotOf(name));
            }
            assertThat(client.lock(name).tryAcquire(LEASE)).as("served again once covered").isPresent();
        }
    }

    @Test
    void aWaiterListensOnTheShardOfItsSlotOnlyAndIsWokenByTheRelease() throws Exception {
        String name = "sharded-wakeup";
        String channel = LockScripts.releaseChannel(name);
        int owner = cluster.primaryOf(slotOf(name));
        try (LockClient holder = client(); LockClient waiter = client()) {
            Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.lock(name).tryAcquire(LEASE, Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Awaitility.await("the waiter subscribed on the slot's primary").atMost(Duration.ofSeconds(10))
                    .until(() -> shardSubscribers(owner, channel) == 1);
            for (int primary : cluster.primaries()) {
                if (primary != owner) {
                    assertThat(shardSubscribers(primary, channel)).as("node %d serves another shard", primary).isZero();
                }
            }
            lease.release();
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isPresent();
        }
    }

    private static long shardSubscribers(int node, String channel) {
        List<?> reply = (List<?>) cluster.call(node, "PUBSUB", "SHARDNUMSUB", channel);
        return (Long) reply.get(1);
    }

    @Test
    void aHalfMigratedSlotStillServesItsHolderAndGrantsOnceItHasMoved() throws Exception {
        String name = "half-migrated";
        int slot = slotOf(name);
        int source = cluster.primaryOf(slot);
        int target = cluster.primaries().stream().filter(p -> p != source).findFirst().orElseThrow();
        try (LockClient holder = client(); LockClient other = client()) {
            Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();
            RedisCluster.SlotMigration migration = cluster.beginMigration(slot, target);
            try {
                migration.moveAllKeys();
                assertThat(lease.extend(LEASE)).as("the extension follows ASK to the importing node").isTrue();
                CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
                    try {
                        return other.lock(name).tryAcquire(LEASE, Duration.ofSeconds(20));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertThatThrownBy(() -> cluster.call(source, "EXISTS", LockScripts.lockKey(name)))
                        .as("the source sends the moved key's callers to the target").hasMessageStartingWith("ASK " + slot);
                lease.release();
                migration.finish();
                assertThat(waiting.get(10, TimeUnit.SECONDS)).as("granted once released, the slot moved").isPresent();
            } finally {
                if (cluster.primaryOf(slot) != target) {
                    migration.moveAllKeys();
                    migration.finish();
                }
            }
            assertThat(cluster.primaryOf(slot)).isEqualTo(target);
        }
    }

    @Test
    void aHeldLockSurvivesAGracefulFailoverOfItsPrimary() {
        String name = "graceful-failover";
        int slot = slotOf(name);
        try (LockClient holder = client(); LockClient other = client()) {
            Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();
            int before = cluster.primaryOf(slot);
            cluster.failover(slot);
            assertThat(cluster.primaryOf(slot)).isNotEqualTo(before);
            assertThat(lease.extend(LEASE)).as("the extension reaches the promoted replica").isTrue();
            assertThat(other.lock(name).tryAcquire(LEASE)).as("CLUSTER FAILOVER loses no acknowledged write").isEmpty();
            lease.release();
            assertThat(other.lock(name).tryAcquire(LEASE)).isPresent();
        }
    }
}
