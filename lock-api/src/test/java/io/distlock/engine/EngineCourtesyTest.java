package io.distlock.engine;

import io.distlock.Lease;
import io.distlock.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The courtesy pause: a client whose release woke waiters lets them go first when it waits for the
 * same lock again at once ({@link Waiting#releaseWokeWaiters}). Fairness, not safety: what is checked
 * is that the pause is taken where it is due and nowhere else, and how long it is.
 */
class EngineCourtesyTest {

    private static final Duration LEASE = Duration.ofSeconds(10);
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = withSharedHolds(new ScriptedDriver(runtime::nanoTime, false));
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://test"),
            LockOptions.defaults(), runtime);

    private static ScriptedDriver withSharedHolds(ScriptedDriver driver) {
        driver.declared = ScriptedDriver.SHARED_HOLDS_DESCRIPTOR;
        return driver;
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aWaitingAcquireRightAfterAReleaseThatWokeWaitersFirstWaitsTwiceTheReleasesRoundTrip() throws InterruptedException {
        driver.releaseWakesWaiters = Duration.ofMillis(5);
        client.lock("x").tryAcquire(LEASE).orElseThrow().release();
        // The engine's clock stands still here: the whole pause is still due when the acquire starts.
        long start = System.nanoTime();
        Lease again = client.lock("x").tryAcquire(LEASE, Duration.ofSeconds(5)).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("its first attempt waited the courtesy pause")
                .isGreaterThanOrEqualTo(Duration.ofMillis(10));
        assertThat(client.courtesies()).as("taken once").isZero();
        again.release();
    }

    @Test
    void singleAttemptsAndOtherNamesAreNeverHeldBackAndTheirPauseWaitsForTheNextWaitingAcquire() throws InterruptedException {
        driver.releaseWakesWaiters = Duration.ofMillis(5);
        client.lock("x").tryAcquire(LEASE).orElseThrow().release();
        assertThat(client.courtesies()).isEqualTo(1);

        driver.releaseWakesWaiters = null;
        client.lock("x").tryAcquire(LEASE).orElseThrow().release(); // a single attempt: not held back
        client.lock("y").tryAcquire(LEASE, Duration.ofSeconds(5)).orElseThrow().release(); // another name
        assertThat(client.courtesies()).as("neither took x's pause").isEqualTo(1);
        client.lock("x").tryAcquire(LEASE, Duration.ofSeconds(5)).orElseThrow().release();
        assertThat(client.courtesies()).as("the waiting acquire of x took it").isZero();
    }

    @Test
    void aReadHoldAPermitOrAWriteHoldOfTheSameNameDoesNotTakeTheLocksPause() throws InterruptedException {
        driver.releaseWakesWaiters = Duration.ofMillis(5);
        client.lock("x").tryAcquire(LEASE).orElseThrow().release();
        driver.releaseWakesWaiters = null;
        client.readWriteLock("x").readLock().tryAcquire(LEASE, Duration.ofSeconds(5)).orElseThrow().release();
        client.readWriteLock("x").writeLock().tryAcquire(LEASE, Duration.ofSeconds(5)).orElseThrow().release();
        client.semaphore("x", 2).tryAcquire(LEASE, Duration.ofSeconds(5)).orElseThrow().release();
        assertThat(client.courtesies()).as("the pause is the lock's: other kinds of hold live in other key spaces").isEqualTo(1);
    }

    @Test
    void aReleaseThatWokeNobodyLeavesNoPause() {
        client.lock("x").tryAcquire(LEASE).orElseThrow().release();
        assertThat(client.courtesies()).isZero();
    }

    @Test
    void thePauseIsTwiceTheRoundTripWithinItsBoundsAndWhatIsLeftOfItWhenTheAcquireStarts() {
        Waiting waiting = new Waiting(LockOptions.defaults(), true);
        long ms = TimeUnit.MILLISECONDS.toNanos(1);
        waiting.releaseWokeWaiters("near", Duration.ofNanos(10_000), 0);
        waiting.releaseWokeWaiters("far", Duration.ofSeconds(1), 0);
        waiting.releaseWokeWaiters("lan", Duration.ofMillis(3), 0);
        assertThat(waiting.takeCourtesy("near", 0)).as("at least the floor").isEqualTo(Waiting.MIN_COURTESY_NANOS);
        assertThat(waiting.takeCourtesy("far", 0)).as("at most the cap").isEqualTo(Waiting.MAX_COURTESY_NANOS);
        assertThat(waiting.takeCourtesy("lan", ms)).as("6 ms, 1 ms of it gone").isEqualTo(5 * ms);
        assertThat(waiting.takeCourtesy("lan", ms)).as("used once").isZero();
        waiting.releaseWokeWaiters("late", Duration.ofMillis(3), 0);
        assertThat(waiting.takeCourtesy("late", 7 * ms)).as("run out").isZero();
    }

    @Test
    void pausesThatRanOutUnusedAreDroppedSoTheTableStaysSmall() {
        Waiting waiting = new Waiting(LockOptions.defaults(), true);
        for (int i = 0; i < 10_000; i++) {
            waiting.releaseWokeWaiters("name-" + i, Duration.ofMillis(1), i * TimeUnit.SECONDS.toNanos(1));
        }
        assertThat(waiting.courtesies()).isLessThanOrEqualTo(64);
    }
}
