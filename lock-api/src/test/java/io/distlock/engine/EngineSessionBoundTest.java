package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Session-bounded validity (issue 9, item 6), on a manual clock: on a session store, no lease is
 * valid past what the session can vouch for — the last confirmed exchange plus the session
 * timeout, less drift — so a process paused longer than its session wakes up with no valid lease,
 * before its connection has noticed anything.
 */
class EngineSessionBoundTest {

    private static final Duration SESSION = Duration.ofSeconds(4);
    /** Two sessions of the client, as a ZooKeeper or etcd driver names them: the first, and the one after it ended. */
    private static final Long S1 = 0x51L;
    private static final Long S2 = 0x52L;
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, true);
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://session"),
            LockOptions.defaults(), runtime);

    @BeforeEach
    void firstSession() {
        driver.session = S1;
        driver.context.sessionConfirmed(S1, runtime.nanoTime(), SESSION);
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aLeaseIsNeverValidLongerThanTheSessionCanVouchFor() {
        Lease lease = client.lock("paused").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        driver.context.sessionConfirmed(S1, runtime.nanoTime(), SESSION);
        assertThat(lease.remaining()).as("bounded by the session, not the 30 s lease")
                .isLessThanOrEqualTo(SESSION.minus(LockOptions.defaults().clockDrift(SESSION)));

        runtime.advance(TimeUnit.SECONDS.toNanos(5)); // a pause longer than the session: nothing was confirmed
        assertThat(lease.isValid()).as("the session may have expired on the server meanwhile").isFalse();
        assertThat(lease.remaining()).isZero();

        driver.context.sessionConfirmed(S1, runtime.nanoTime(), SESSION); // the same session answered: it survived
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(25));
    }

    @Test
    void anOlderConfirmationNeverExtendsTheBound() {
        Lease lease = client.lock("ordered").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        long early = runtime.nanoTime();
        runtime.advance(TimeUnit.SECONDS.toNanos(2));
        driver.context.sessionConfirmed(S1, runtime.nanoTime(), SESSION);
        driver.context.sessionConfirmed(S1, early, SESSION); // a late report of an older exchange
        runtime.advance(TimeUnit.SECONDS.toNanos(3));
        assertThat(lease.isValid()).as("bounded by the newest confirmation, 2 s in").isTrue();
    }

    @Test
    void leasesTakenAndReleasedOneAfterAnotherWakeTheKeeperOncePerLeaseTimeNotOncePerLease() throws Exception {
        // A session store's keeper watches every lease's end; a lease taken and released must not cost
        // a wake-up of the keeper's thread each (a schedule at the head of a real executor wakes it).
        long before = runtime.scheduledEver();
        for (int i = 0; i < 100; i++) {
            client.lock("one-after-another").tryAcquire(Duration.ofSeconds(30)).orElseThrow().release();
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(10));
        }
        assertThat(runtime.scheduledEver() - before).as("keeper wake-ups scheduled by 100 acquire-release pairs").isEqualTo(1);
        assertThat(runtime.scheduled()).as("the first lease's wake-up, still pending").isEqualTo(1);

        runtime.advance(TimeUnit.SECONDS.toNanos(31)); // the wake-up fires, finds nothing, and is not scheduled again
        assertThat(runtime.scheduled()).as("keeper wake-ups pending with no lease held").isZero();

        driver.context.sessionConfirmed(S1, runtime.nanoTime(), SESSION);
        Lease held = client.lock("one-after-another").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        runtime.advance(TimeUnit.SECONDS.toNanos(31));
        // lost() completes off the keeper's thread, a moment after the keeper marked the lease
        assertThat(held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS))
                .as("a lease taken after the keeper went idle is still watched to its end").isEqualTo(Lease.LossReason.EXPIRED);
    }

    @Test
    void aGrantTheClientCannotVouchForIsUnavailableNeverBusy() {
        // The server grants, but the driver reports its connection suspended: the grant is given
        // back, and the caller hears "unavailable", never "someone else holds it".
        driver.context.connectionSuspended();
        assertThatThrownBy(() -> client.lock("suspended").tryAcquire(Duration.ofSeconds(30)))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("suspended");
        driver.context.connectionRestored();
        client.lock("suspended").tryAcquire(Duration.ofSeconds(30)).orElseThrow().release();

        // The same when the session was last confirmed too long ago.
        runtime.advance(TimeUnit.SECONDS.toNanos(5));
        assertThatThrownBy(() -> client.lock("unconfirmed").tryAcquire(Duration.ofSeconds(30)))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("not confirmed");
    }

    @Test
    void aGrantWhoseSessionEndedBeforeItWasRecordedIsGivenBackAndUnavailable() {
        // The server decided the grant on S1; the client records it only after S1 ended (the thread
        // was descheduled between the answer and the record) and a new session S2 is confirmed.
        driver.attempts = request -> {
            Attempt granted = driver.model(request);
            driver.context.sessionEnded(S1);
            driver.context.sessionConfirmed(S2, runtime.nanoTime(), SESSION);
            driver.session = S2;
            return granted;
        };
        assertThatThrownBy(() -> client.lock("stalled").tryAcquire(Duration.ofSeconds(30)))
                .as("a grant S2 cannot vouch for, S1 having ended").isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("ended before the grant was recorded");
        assertThat(driver.count("release stalled")).as("the grant was given back").isEqualTo(1);
        assertThat(driver.server).doesNotContainKey("stalled");

        driver.attempts = null; // the next attempt is decided on S2, which lives
        Lease lease = client.lock("stalled").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        assertThat(lease.isValid()).isTrue();
        lease.release();
    }

    @Test
    void aWaitingAcquireWhoseGrantCameFromAnEndedSessionTriesAgainOnTheNewOne() throws InterruptedException {
        driver.attempts = request -> {
            Attempt granted = driver.model(request);
            driver.context.sessionEnded(S1);
            driver.context.sessionConfirmed(S2, runtime.nanoTime(), SESSION);
            driver.session = S2;
            driver.attempts = null;
            return granted;
        };
        Lease lease = client.lock("retried").tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(10)).orElseThrow();
        assertThat(lease.isValid()).isTrue();
        assertThat(driver.count("release retried")).as("the first grant, bound to the ended session, was given back").isEqualTo(1);
        assertThat(driver.holds("retried", driver.lastOwner("retried"))).isTrue();
        lease.release();
    }

    @Test
    void aSessionsEndLosesTheLeasesItGrantedAndNoOthers() {
        Lease first = client.lock("on-s1").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        first.lost(); // watched: its loss must be told
        driver.context.sessionConfirmed(S2, runtime.nanoTime(), SESSION);
        driver.session = S2;
        Lease second = client.lock("on-s2").tryAcquire(Duration.ofSeconds(30)).orElseThrow();

        driver.context.sessionEnded(S1);
        assertThat(first.isValid()).isFalse();
        assertThat(first.lost().toCompletableFuture().join()).isEqualTo(Lease.LossReason.BACKEND_LOST);
        assertThat(second.isValid()).as("bound to S2, which lives").isTrue();
        assertThat(second.lost().toCompletableFuture()).isNotDone();
        driver.context.sessionEnded(S1); // repeated: harmless
        second.release();
    }

    @Test
    void aNewerSessionNeverVouchesForAnOlderSessionsLease() {
        Lease onS1 = client.lock("vouched").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        runtime.advance(TimeUnit.SECONDS.toNanos(5)); // S1 unheard for longer than its timeout
        driver.context.sessionConfirmed(S2, runtime.nanoTime(), SESSION); // the client now talks on S2
        assertThat(onS1.isValid()).as("only S1's own confirmations vouch for a lease S1 granted").isFalse();
        assertThat(onS1.remaining()).isZero();
        driver.context.sessionConfirmed(S1, runtime.nanoTime(), SESSION); // S1 answered after all: it lives
        assertThat(onS1.isValid()).isTrue();
    }

    @Test
    void aGrantBoundToASessionNeverConfirmedIsGivenBack() {
        driver.session = 0x99L;
        assertThatThrownBy(() -> client.lock("unvouched").tryAcquire(Duration.ofSeconds(30)))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("no live record");
        assertThat(driver.server).doesNotContainKey("unvouched");
    }

    @RepeatedTest(20)
    void aSessionEndRacingTheRecordOfAGrantNeverLeavesAValidLease() throws Exception {
        // The end of S1 and the record of a grant S1 decided, on two threads at once: either the
        // grant is refused (unavailable) or the lease it became is lost — never a valid lease.
        CyclicBarrier both = new CyclicBarrier(2);
        driver.attempts = request -> {
            Attempt granted = driver.model(request);
            await(both);
            return granted;
        };
        CompletableFuture<Void> end = CompletableFuture.runAsync(() -> {
            await(both);
            driver.context.sessionEnded(S1);
        });
        try {
            Lease lease = client.lock("raced").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            end.get(10, TimeUnit.SECONDS);
            assertThat(lease.isValid()).as("a lease S1 granted, after S1 ended").isFalse();
            assertThat(lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
        } catch (BackendUnavailableException refused) {
            end.get(10, TimeUnit.SECONDS);
            assertThat(refused).hasMessageContaining("ended");
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aWaitThatEndsWhileAGrantItGaveBackMayStillHoldTheLockCannotTell() {
        // On the real clock: the wait must run out. The first grant cannot be used (its session was
        // never confirmed) and is given back, but the server does not confirm the release; every
        // later attempt finds the lock held — possibly by that very grant. The wait ends "could not
        // tell", never "busy".
        ScriptedDriver real = new ScriptedDriver(System::nanoTime, true);
        real.session = 0x99L;
        real.releaseFailure = new BackendUnavailableException("scripted:1", "the release was not confirmed", null);
        java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
        real.attempts = request -> first.getAndSet(false) ? real.model(request) : Attempt.busy();
        try (io.distlock.LockClient waiting = EngineClient.connect(real.backend(), URI.create("scripted://gave-back"),
                LockOptions.defaults())) {
            assertThatThrownBy(() -> waiting.lock("gave-back").tryAcquire(Duration.ofSeconds(30), Duration.ofMillis(300)))
                    .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("no live record");
        }
    }
}
