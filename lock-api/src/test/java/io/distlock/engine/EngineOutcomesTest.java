package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's policy for the three outcomes, on a manual clock: only a definite answer becomes
 * contention; an unknown one throws (after its cleanup is queued) or is retried within the wait;
 * whatever an unknown attempt may have written is removed by owner token, retried until the
 * server confirms it or its lease time has made it moot.
 */
class EngineOutcomesTest {

    private static final Duration LEASE = Duration.ofSeconds(10);
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, false);
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://test"),
            LockOptions.builder().retryBackoff(Duration.ofMillis(1), Duration.ofMillis(2)).build(), runtime);

    @AfterEach
    void close() {
        driver.away = false;
        client.close();
    }

    @Test
    void aSingleAttemptWithNoAnswerThrowsAndItsWriteIsRemovedOnceTheServerIsBack() {
        driver.away = true;
        assertThatThrownBy(() -> client.lock("a").tryAcquire(LEASE))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("unreachable");
        assertThat(client.pendingCleanups()).as("the cleanup by owner token waits for the server").isEqualTo(1);
        runtime.advance(TimeUnit.SECONDS.toNanos(1));
        assertThat(driver.count("abandon a unknown")).as("retried while the server is away").isGreaterThan(1);
        driver.away = false;
        runtime.advance(TimeUnit.SECONDS.toNanos(1));
        assertThat(client.pendingCleanups()).isZero();
        long attempts = driver.count("abandon a unknown");
        runtime.advance(TimeUnit.SECONDS.toNanos(5));
        assertThat(driver.count("abandon a unknown")).as("once confirmed, never again").isEqualTo(attempts);
    }

    @Test
    void anUnknownAnswerIsNeverContention() {
        driver.attempts = request -> Attempt.unknown(new BackendUnavailableException("scripted:1", "no quorum either way", null));
        assertThatThrownBy(() -> client.lock("b").tryAcquire(LEASE)).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("no quorum either way");
    }

    @Test
    void aWaitEndingOnAnUnknownOutcomeThrowsButOneEndingOnContentionIsEmpty() throws InterruptedException {
        // The clock only moves inside attempts here: each attempt costs 100 ms of (manual) time.
        driver.attempts = request -> {
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(100));
            return Attempt.unknown(new BackendUnavailableException("scripted:1", "timed out", null));
        };
        assertThatThrownBy(() -> client.lock("c").tryAcquire(LEASE, Duration.ofMillis(500)))
                .isInstanceOf(BackendUnavailableException.class);
        assertThat(driver.count("tryAcquire c")).as("retried within the wait").isGreaterThan(1);

        int[] n = {0};
        driver.attempts = request -> {
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(100));
            return n[0]++ == 0 ? Attempt.unknown(new BackendUnavailableException("scripted:1", "timed out", null)) : Attempt.busy();
        };
        Optional<Lease> lease = client.lock("d").tryAcquire(LEASE, Duration.ofMillis(500));
        assertThat(lease).as("the last answer was definite contention").isEmpty();
    }

    @Test
    void acquireGivesUpOnceOutcomesStayUnknownForTheConnectTimeout() {
        driver.attempts = request -> {
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(300));
            return Attempt.unknown(new BackendUnavailableException("scripted:1", "timed out", null));
        };
        assertThatThrownBy(() -> client.lock("e").acquire(LEASE)).isInstanceOf(BackendUnavailableException.class);
        long attempts = driver.count("tryAcquire e");
        assertThat(attempts).as("2 s connect timeout / 300 ms per attempt").isBetween(7L, 9L);
    }

    @Test
    void anInterruptDuringTheAttemptCleansUpByOwnerTokenEvenIfTheAnswerWasBusy() {
        driver.attempts = request -> {
            Thread.currentThread().interrupt(); // arrives while the request is on its way
            return Attempt.busy();
        };
        assertThatThrownBy(() -> client.lock("f").tryAcquire(LEASE, Duration.ofSeconds(1))).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).as("the flag was consumed by the InterruptedException").isFalse();
        assertThat(driver.count("abandon f unknown")).isEqualTo(1);
    }

    @Test
    void aRemovalIsMootOnceTheLeaseTimeHasPassedOnAServerThatExpiresLocks() {
        driver.away = true;
        assertThatThrownBy(() -> client.lock("g").tryAcquire(Duration.ofSeconds(1))).isInstanceOf(BackendUnavailableException.class);
        runtime.advance(TimeUnit.SECONDS.toNanos(4)); // lease 1 s + operation timeout 2 s: the key is gone either way
        assertThat(client.pendingCleanups()).isZero();
        long attempts = driver.count("abandon g");
        runtime.advance(TimeUnit.SECONDS.toNanos(4));
        assertThat(driver.count("abandon g")).isEqualTo(attempts);
    }

    @Test
    void aGrantThatArrivesAfterItsValidityIsUnavailableNeverBusyAndIsGivenBack() throws InterruptedException {
        Duration lease = Duration.ofMillis(100);
        // Each reply takes 150 ms of (manual) time: every grant arrives with its validity spent.
        Function<LockRequest, Attempt> slow = request -> {
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(150));
            return driver.model(request);
        };
        driver.attempts = slow;
        assertThatThrownBy(() -> client.lock("late").tryAcquire(lease))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("arrived after 150 ms").hasMessageContaining("the lock was free");
        assertThat(driver.server).as("the late grant was given back").doesNotContainKey("late");
        assertThatThrownBy(() -> client.lock("late").tryAcquire(lease, Duration.ofMillis(400)))
                .as("a wait that ends on a late grant throws too").isInstanceOf(BackendUnavailableException.class);
        assertThat(driver.count("tryAcquire late")).as("retried within the wait").isGreaterThan(2);

        int[] n = {0};
        driver.attempts = request -> n[0]++ == 0 ? slow.apply(request) : driver.model(request);
        assertThat(client.lock("late").tryAcquire(lease, Duration.ofSeconds(1)))
                .as("a wait whose first grant came late gets the next").isPresent();
        assertThat(driver.server).containsKey("late");
    }

    @Test
    void aDriftAllowanceAsLongAsTheLeaseIsRefusedInsteadOfLivelocking() {
        EngineClient drifting = EngineClient.connect(driver.backend(), URI.create("scripted://drift"),
                LockOptions.builder().clockDrift(0.1, Duration.ofSeconds(1)).build(), runtime);
        try {
            assertThatThrownBy(() -> drifting.lock("h").tryAcquire(Duration.ofMillis(500)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clock-drift allowance");
            assertThat(driver.count("tryAcquire h")).as("refused before anything was sent").isZero();
        } finally {
            drifting.close();
        }
    }

    @Test
    void aLateWriteThatTheBackendCannotRefuseIsRemovedUntilItsLeaseTimeHasPassed() {
        driver.lateWrites = true; // read when a client connects
        EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://late"), LockOptions.defaults(), runtime);
        driver.away = true;
        assertThatThrownBy(() -> client.lock("late").tryAcquire(Duration.ofSeconds(2))).isInstanceOf(BackendUnavailableException.class);
        driver.away = false;
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(50));
        long confirmed = driver.count("abandon late unknown");
        // The write lands now, after its removal was confirmed: the repeated removal takes it away.
        driver.server.put("late", new ScriptedDriver.Held(lateOwner(), runtime.nanoTime() + TimeUnit.SECONDS.toNanos(2)));
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(250));
        assertThat(driver.server).as("removed by a repeat of the confirmed abandon").doesNotContainKey("late");
        runtime.advance(TimeUnit.SECONDS.toNanos(5)); // lease 2 s + operation timeout 2 s: moot
        long repeats = driver.count("abandon late unknown") - confirmed;
        assertThat(repeats).as("repeated every 200 ms until moot").isBetween(15L, 25L);
        runtime.advance(TimeUnit.SECONDS.toNanos(5));
        assertThat(driver.count("abandon late unknown") - confirmed).as("and never after").isEqualTo(repeats);
        client.close();
    }

    @Test
    void aLateCopyOfAnUnansweredAttemptIsRemovedAfterTheGrantedLeaseIsReleasedUntilItsLeaseTimeHasPassed() throws InterruptedException {
        driver.lateWrites = true; // read when a client connects
        EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://late"), LockOptions.defaults(), runtime);
        Lease plain = client.lock("plain").tryAcquire(Duration.ofSeconds(2)).orElseThrow();
        plain.release();
        driver.attempts = request -> {
            driver.attempts = null; // the next attempt is answered by the server model: granted
            return Attempt.unknown(new BackendUnavailableException("scripted://late", "no answer", null));
        };
        Lease lease = client.lock("late").tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(5)).orElseThrow();
        lease.release();
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(50));
        // A copy of the unanswered attempt lands now, after the release: the repeated removal takes it away.
        driver.server.put("late", new ScriptedDriver.Held(lateOwner(), runtime.nanoTime() + TimeUnit.SECONDS.toNanos(2)));
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(250));
        assertThat(driver.server).as("removed by the removal repeated after the release").doesNotContainKey("late");
        runtime.advance(TimeUnit.SECONDS.toNanos(5)); // lease 2 s + operation timeout 2 s: moot
        long repeats = driver.count("abandon late unknown");
        assertThat(repeats).as("repeated every 200 ms until moot").isBetween(15L, 25L);
        runtime.advance(TimeUnit.SECONDS.toNanos(5));
        assertThat(driver.count("abandon late unknown")).as("and never after").isEqualTo(repeats);
        assertThat(driver.count("abandon plain unknown")).as("a request answered at once leaves nothing to sweep").isZero();
        client.close();
    }

    /** The owner token the scripted server saw for the request of lock "late". */
    private String lateOwner() {
        return driver.lastOwner("late");
    }
}
