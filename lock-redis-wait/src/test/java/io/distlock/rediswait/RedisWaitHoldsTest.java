package io.distlock.rediswait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.PermitCountMismatchException;
import io.distlock.redis.support.ReadWriteScripts;
import io.distlock.redis.support.SemaphoreScripts;
import io.distlock.tck.fixtures.RedisReplicaSet;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Read-write locks and semaphores on Redis + {@code WAIT}: the single-Redis scripts of each hold with
 * a {@code WAIT} pipelined behind every acquire and extension, on a primary with two replicas and one
 * Sentinel. A grant counts once the replicas have it; one too few replicas acknowledged is withdrawn
 * and reported unavailable, leaving nothing held; no fencing token; waiters woken through the
 * primary followed by Sentinel.
 */
class RedisWaitHoldsTest {

    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static RedisReplicaSet redis;
    private static ExecutorService threads;
    private int cut = -1;

    @BeforeAll
    static void start() {
        redis = RedisReplicaSet.start(2, 1);
        threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "redis-wait-holds-test");
            t.setDaemon(true);
            return t;
        });
    }

    @AfterAll
    static void stop() {
        if (threads != null) {
            threads.shutdownNow();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @AfterEach
    void heal() {
        if (cut >= 0) {
            redis.healReplication(cut);
            cut = -1;
        }
    }

    @Test
    void readAndWriteHoldsCountOnceEveryReplicaHasThemAndCarryNoFencingToken() {
        try (LockClient a = Locks.connect(fixed()); LockClient b = Locks.connect(fixed())) {
            assertThat(a.backend().features()).contains(Feature.READ_WRITE, Feature.SEMAPHORE).doesNotContain(Feature.FENCING_TOKENS);
            Lease read = a.readWriteLock("replicated").readLock().tryAcquire(LEASE).orElseThrow();
            Lease otherRead = b.readWriteLock("replicated").readLock().tryAcquire(LEASE).orElseThrow();
            assertThat(read.fencingToken()).isEmpty();
            for (int node = 0; node < redis.size(); node++) {
                assertThat(redis.call(node, "ZCARD", ReadWriteScripts.readersKey("replicated"))).as("node %d", node).isEqualTo(2L);
            }
            assertThat(b.readWriteLock("replicated").writeLock().tryAcquire(LEASE)).isEmpty();
            assertThat(read.extend(LEASE.multipliedBy(2))).isTrue();
            read.release();
            otherRead.release();
            Lease write = b.readWriteLock("replicated").writeLock().tryAcquire(LEASE).orElseThrow();
            for (int node = 0; node < redis.size(); node++) {
                assertThat(redis.call(node, "GET", ReadWriteScripts.writerKey("replicated"))).as("node %d", node).isNotNull();
            }
            assertThat(a.readWriteLock("replicated").readLock().tryAcquire(LEASE)).isEmpty();
            write.release();
        }
    }

    @Test
    void aSemaphoreGivesNPermitsAndRefusesAnotherCount() {
        try (LockClient a = Locks.connect(fixed()); LockClient b = Locks.connect(fixed())) {
            Lease first = a.semaphore("permits", 2).tryAcquire(LEASE).orElseThrow();
            Lease second = b.semaphore("permits", 2).tryAcquire(LEASE).orElseThrow();
            assertThat(second.fencingToken()).isEmpty();
            assertThat(a.semaphore("permits", 2).tryAcquire(LEASE)).isEmpty();
            assertThatThrownBy(() -> b.semaphore("permits", 3).tryAcquire(LEASE))
                    .isInstanceOf(PermitCountMismatchException.class).hasMessageContaining("has 2 permits");
            for (int node = 0; node < redis.size(); node++) {
                assertThat(redis.call(node, "ZCARD", SemaphoreScripts.holdersKey("permits"))).as("node %d", node).isEqualTo(2L);
            }
            first.release();
            second.release();
            assertThat(redis.call(primary(), "EXISTS", SemaphoreScripts.holdersKey("permits"), SemaphoreScripts.permitsKey("permits")))
                    .isEqualTo(0L);
        }
    }

    @Test
    void aHoldTooFewReplicasAcknowledgedIsWithdrawnAndReportedUnavailable() {
        try (LockClient client = Locks.connect(fixed())) {
            cut = primary() == 1 ? 2 : 1;
            redis.cutReplication(cut);
            assertThatThrownBy(() -> client.semaphore("unconfirmed", 2).tryAcquire(LEASE))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("1 of 2 replicas acknowledged")
                    .hasMessageContaining("permit of a 2-permit semaphore 'unconfirmed'");
            assertThatThrownBy(() -> client.readWriteLock("unconfirmed").writeLock().tryAcquire(LEASE))
                    .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("write lock 'unconfirmed'");
            // Withdrawn by owner token: nothing held on the primary (the markers refuse late writes).
            await().atMost(PATIENCE).until(() -> (Long) redis.call(primary(), "EXISTS",
                    SemaphoreScripts.holdersKey("unconfirmed"), ReadWriteScripts.writerKey("unconfirmed"),
                    ReadWriteScripts.waitingKey("unconfirmed")) == 0L);
        }
    }

    @Test
    void aWaiterFollowingThePrimaryThroughSentinelIsWokenByARelease() throws Exception {
        LockOptions slowPolling = LockOptions.builder().retryBackoff(Duration.ofMillis(5), Duration.ofMinutes(1)).build();
        try (LockClient a = Locks.connect(URI.create(viaSentinel()), slowPolling);
             LockClient b = Locks.connect(URI.create(viaSentinel()), slowPolling)) {
            Lease held = a.semaphore("woken", 1).tryAcquire(LEASE).orElseThrow();
            Future<Optional<Lease>> waiting = threads.submit(() -> b.semaphore("woken", 1).tryAcquire(LEASE, PATIENCE));
            await().atMost(PATIENCE).until(() -> (Long) ((List<?>) redis.call(primary(), "PUBSUB", "NUMSUB",
                    SemaphoreScripts.channel("woken"))).get(1) == 1L);
            long released = System.nanoTime();
            held.release();
            Lease handed = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(1_000);
            handed.release();
        }
    }

    private static int primary() {
        return redis.primaryIndex();
    }

    /** The fixed form; a {@code waitTimeout} of 1 s, as in {@code RedisWaitBackendTest} (the build shares two cores). */
    private static String fixed() {
        return "redis-wait://" + redis.primaryEndpoint() + "?replicas=2&waitTimeout=1000";
    }

    private static String viaSentinel() {
        return "redis-wait://" + String.join(",", redis.sentinelEndpoints()) + "?master=" + RedisReplicaSet.MASTER_NAME
                + "&replicas=2&waitTimeout=1000";
    }
}
