package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.ReadWriteScripts;
import io.distlock.redis.support.SemaphoreScripts;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 9: writes that reach the server late, on a connection the client has already given up
 * (its reply timed out), after newer requests of the same lease or after the cleanup that was
 * meant to undo them. One connection is held back by the proxy while the client carries on over
 * fresh ones; then the held request is delivered.
 */
class LateWritesTest {

    private static final LockOptions QUICK = LockOptions.builder().connectTimeout(Duration.ofMillis(500))
            .operationTimeout(Duration.ofMillis(300)).build();

    private RedisServer redis;
    private FaultProxy proxy;
    private LockClient client;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        proxy = FaultProxy.start(redis.host(), redis.port());
        client = Locks.connect(URI.create("redis://" + proxy.endpoint()), QUICK);
    }

    @AfterEach
    void stop() {
        client.close();
        proxy.close();
        redis.close();
    }

    /** Scripts the server has run (EVALSHA and EVAL, whatever they answered). */
    private long scriptsRun() {
        String stats = (String) redis.call("INFO", "commandstats");
        return stats.lines().filter(line -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
                .mapToLong(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))).sum();
    }

    /** Holds back every byte of the connections open now; connections opened later get through. */
    private void holdOpenConnections() {
        assertThat(proxy.connections()).as("the client's pooled connection").isNotEmpty();
        proxy.connections().forEach(FaultProxy.Connection::blackhole);
    }

    @Test
    void aLateShorterExtensionNeverCutsTheKeyBelowWhatRemainingPromises() {
        Lease lease = client.lock("late-extend").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        holdOpenConnections();
        // The short extension goes out on the held connection; its reply never comes.
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(2))).isInstanceOf(BackendUnavailableException.class);
        long scripts = scriptsRun();
        // A newer, longer extension on a fresh connection: confirmed, and promised.
        assertThat(lease.extend(Duration.ofSeconds(60))).isTrue();
        assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(50));

        proxy.heal(); // the older, shorter extension arrives now, after the newer one
        await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 2);

        long pttl = (Long) redis.call("PTTL", "distlock:{late-extend}");
        assertThat(Duration.ofMillis(pttl)).as("the server holds the key at least as long as remaining() promises")
                .isGreaterThanOrEqualTo(lease.remaining());
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void anAcquireWhoseWriteLandsAfterItsCleanupLeavesNothingHeld() {
        client.lock("late-acquire").tryAcquire(Duration.ofSeconds(30)).orElseThrow().release(); // a pooled connection
        holdOpenConnections();
        long scripts = scriptsRun();
        // The acquire's write is held; its outcome is unknown, so the engine cleans up by owner token
        // at once, on a fresh connection: nothing is there yet, and the cleanup is confirmed.
        assertThatThrownBy(() -> client.lock("late-acquire").tryAcquire(Duration.ofSeconds(30)))
                .isInstanceOf(BackendUnavailableException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 1);

        proxy.heal(); // now the acquire's write lands, after its cleanup
        await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 2);

        assertThat(redis.call("EXISTS", "distlock:{late-acquire}")).as("nothing held by the late write").isEqualTo(0L);
        try (LockClient other = Locks.connect(redis.uri())) {
            assertThat(other.lock("late-acquire").tryAcquire(Duration.ofSeconds(30))).as("free at once").isPresent();
        }
    }

    @Test
    void aPermitAcquireWhoseWriteLandsAfterItsCleanupLeavesNothingHeld() {
        client.semaphore("late-permit", 2).tryAcquire(Duration.ofSeconds(30)).orElseThrow().release(); // a pooled connection
        holdOpenConnections();
        long scripts = scriptsRun();
        assertThatThrownBy(() -> client.semaphore("late-permit", 2).tryAcquire(Duration.ofSeconds(30)))
                .isInstanceOf(BackendUnavailableException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 1);

        proxy.heal(); // the acquire's write lands now, after its cleanup
        await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 2);

        assertThat(redis.call("EXISTS", SemaphoreScripts.holdersKey("late-permit"))).as("no permit taken by the late write")
                .isEqualTo(0L);
    }

    @Test
    void aWriteAcquireWhoseWriteLandsAfterItsCleanupNeitherHoldsNorHoldsReadersBack() {
        try (LockClient reader = Locks.connect(redis.uri())) {
            client.readWriteLock("late-write").writeLock().tryAcquire(Duration.ofSeconds(30)).orElseThrow().release();
            Lease read = reader.readWriteLock("late-write").readLock().tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            holdOpenConnections();
            long scripts = scriptsRun();
            // Its write would be busy (a reader holds) and register the writer as waiting.
            assertThatThrownBy(() -> client.readWriteLock("late-write").writeLock().tryAcquire(Duration.ofSeconds(30)))
                    .isInstanceOf(BackendUnavailableException.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 1);

            proxy.heal();
            await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 2);

            assertThat(redis.call("EXISTS", ReadWriteScripts.waitingKey("late-write"))).as("no waiting writer").isEqualTo(0L);
            reader.readWriteLock("late-write").readLock().tryAcquire(Duration.ofSeconds(30))
                    .orElseThrow(() -> new AssertionError("a new reader held back by the withdrawn writer")).release();
            read.release();
            assertThat(redis.call("EXISTS", ReadWriteScripts.writerKey("late-write"))).isEqualTo(0L);
        }
    }

    @Test
    void anEarlierAttemptLandingAfterTheLeaseWasReleasedTakesNothing() throws InterruptedException {
        client.lock("late-retry").tryAcquire(Duration.ofSeconds(30)).orElseThrow().release(); // a pooled connection
        holdOpenConnections();
        long scripts = scriptsRun();
        // A waiting acquire: its first attempt is held, the outcome unknown; the engine retries the
        // same request on a fresh connection and is granted.
        Lease lease = client.lock("late-retry").tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
        lease.release();
        await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 2);

        proxy.heal(); // the first attempt lands now, after the lease was released
        await().atMost(Duration.ofSeconds(5)).until(() -> scriptsRun() >= scripts + 3);

        assertThat(redis.call("EXISTS", "distlock:{late-retry}")).as("nothing held by the late attempt").isEqualTo(0L);
    }
}
