package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.LeaseLostException;
import io.distlock.LeaseUnconfirmedException;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The {@link java.util.concurrent.locks.Lock} view ({@link DistributedLock#asLock}) on the engine
 * over a scripted driver: re-entrancy and ownership, contention versus an unknown outcome, the two
 * kinds of interrupt handling, local queueing, and a lease lost while held. The manual clock moves
 * only when a test says so; waits between attempts are real but short (a 5-10 ms back-off).
 */
class LeaseLockViewTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration PATIENCE = Duration.ofSeconds(10);
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, false);
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://view"),
            LockOptions.builder().retryBackoff(Duration.ofMillis(5), Duration.ofMillis(10)).build(), runtime);
    private final List<Thread> threads = new ArrayList<>();
    private final List<EngineClient> sessionClients = new ArrayList<>();

    @AfterEach
    void close() throws InterruptedException {
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join(PATIENCE.toMillis());
        }
        driver.away = false;
        driver.attempts = null;
        client.close();
        sessionClients.forEach(EngineClient::close);
    }

    @Test
    void theOwningThreadReentersOnOneLeaseAndTheLastUnlockReleasesIt() throws Exception {
        LeaseLock view = client.lock("re").asLock(LEASE);
        view.lock();
        view.lock();
        assertThat(view.tryLock()).isTrue();
        assertThat(view.tryLock(1, TimeUnit.SECONDS)).isTrue();
        view.lockInterruptibly();
        assertThat(view.getHoldCount()).isEqualTo(5);
        assertThat(driver.count("tryAcquire re")).as("one lease behind every hold").isEqualTo(1);
        Lease lease = view.lease().orElseThrow();
        assertThat(lease.fencingToken()).isPresent();

        for (int holds = 5; holds > 1; holds--) {
            view.unlock();
        }
        assertThat(view.getHoldCount()).isEqualTo(1);
        assertThat(driver.holds("re", driver.lastOwner("re"))).as("still held on the server").isTrue();
        view.unlock();
        assertThat(driver.server).as("the last unlock released the lease").doesNotContainKey("re");
        assertThat(lease.isValid()).isFalse();
        assertThat(view.isHeldByCurrentThread()).isFalse();
        assertThat(view.lease()).isEmpty();
        assertThatThrownBy(view::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void twoViewsOfOneNameContendEvenOnOneThread() {
        LeaseLock first = client.lock("two").asLock(LEASE);
        LeaseLock second = client.lock("two").asLock(LEASE);
        assertThat(first.tryLock()).isTrue();
        assertThat(second.tryLock()).as("another view is another holder").isFalse();
        assertThat(second.getHoldCount()).isZero();
        first.unlock();
        assertThat(second.tryLock()).isTrue();
        second.unlock();
    }

    @Test
    void onlyTheOwningThreadMayUnlock() throws Exception {
        LeaseLock view = client.lock("owner").asLock(LEASE);
        assertThatThrownBy(view::unlock).as("never locked").isInstanceOf(IllegalMonitorStateException.class);
        view.lock();
        CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
            try {
                view.unlock();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertThat(other.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("owner");
        CompletableFuture<Boolean> othersView = CompletableFuture.supplyAsync(() -> view.lease().isPresent()
                || view.isHeldByCurrentThread());
        assertThat(othersView.get(10, TimeUnit.SECONDS)).as("the lease is shown to its holder only").isFalse();
        assertThat(driver.server).as("still held").containsKey("owner");
        view.unlock();
        assertThat(driver.server).doesNotContainKey("owner");
    }

    @Test
    void tryLockIsFalseForContentionOnly() throws Exception {
        Lease other = client.lock("busy").tryAcquire(LEASE).orElseThrow();
        LeaseLock view = client.lock("busy").asLock(LEASE);
        assertThat(view.tryLock()).isFalse();
        // Each attempt costs 100 ms of the manual clock, so a 500 ms wait ends after a few.
        driver.attempts = request -> {
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(100));
            return Attempt.busy();
        };
        assertThat(view.tryLock(500, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(view.getHoldCount()).isZero();
        assertThat(other.isValid()).isTrue();
    }

    @Test
    void tryLockThatEndsOnAnUnknownOutcomeThrowsAndHoldsNothing() {
        LeaseLock view = client.lock("away").asLock(LEASE);
        driver.away = true;
        assertThatThrownBy(view::tryLock).isInstanceOf(BackendUnavailableException.class);
        assertThat(view.getHoldCount()).isZero();

        driver.away = false;
        driver.attempts = request -> {
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(100));
            return Attempt.unknown(new BackendUnavailableException("scripted:1", "no answer", null));
        };
        assertThatThrownBy(() -> view.tryLock(500, TimeUnit.MILLISECONDS)).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("no answer");
        assertThat(view.getHoldCount()).isZero();
        driver.attempts = null;
        runtime.advance(TimeUnit.SECONDS.toNanos(1)); // the cleanups by owner token go out
        assertThat(client.pendingCleanups()).isZero();
        assertThat(view.tryLock()).as("nothing was left held, here or on the server").isTrue();
        view.unlock();
    }

    @Test
    void lockIsNotInterruptibleButKeepsTheInterruptFlag() throws Exception {
        Lease other = client.lock("patient").tryAcquire(LEASE).orElseThrow();
        LeaseLock view = client.lock("patient").asLock(LEASE);
        AtomicBoolean flagAfterLock = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = start(() -> {
            try {
                view.lock();
                flagAfterLock.set(Thread.currentThread().isInterrupted());
                view.unlock();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        await().atMost(PATIENCE).until(() -> driver.count("tryAcquire patient") >= 3);
        waiter.interrupt();
        long attempts = driver.count("tryAcquire patient");
        await("still trying after the interrupt").atMost(PATIENCE)
                .until(() -> driver.count("tryAcquire patient") > attempts + 2);
        assertThat(waiter.isAlive()).isTrue();
        other.release();
        waiter.join(PATIENCE.toMillis());
        assertThat(waiter.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(flagAfterLock.get()).as("the interrupt is re-asserted once the lock is taken").isTrue();
        assertThat(driver.server).doesNotContainKey("patient");
    }

    @Test
    void lockInterruptiblyInterruptedThrowsAndLeavesNothingHeld() throws Exception {
        Lease other = client.lock("impatient").tryAcquire(LEASE).orElseThrow();
        LeaseLock view = client.lock("impatient").asLock(LEASE);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = start(() -> {
            try {
                view.lockInterruptibly();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        await().atMost(PATIENCE).until(() -> driver.count("tryAcquire impatient") >= 3);
        waiter.interrupt();
        waiter.join(PATIENCE.toMillis());
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(driver.count("abandon impatient")).as("the request was given up on the server").isEqualTo(1);
        assertThat(view.tryLock()).as("still the other holder's").isFalse();
        other.release();
        assertThat(view.tryLock()).as("the interrupted thread left nothing held locally").isTrue();
        view.unlock();
    }

    @Test
    void anInterruptedThreadWaitingLocallyLeavesNothingHeld() throws Exception {
        LeaseLock view = client.lock("queued").asLock(LEASE);
        view.lock();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = start(() -> {
            try {
                view.lockInterruptibly();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        await().atMost(PATIENCE).until(() -> waiter.getState() == Thread.State.WAITING);
        assertThat(view.isLocked()).isTrue();
        waiter.interrupt();
        waiter.join(PATIENCE.toMillis());
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(driver.count("tryAcquire queued")).as("a local waiter never asked the server").isEqualTo(1);
        view.unlock();
        assertThat(view.isLocked()).as("nobody holds it or waits").isFalse();
        assertThat(driver.server).doesNotContainKey("queued");
    }

    @Test
    void threadsOfOneViewQueueLocallySoOnlyOneAsksTheServer() throws Exception {
        Lease other = client.lock("queue").tryAcquire(LEASE).orElseThrow();
        LeaseLock view = client.lock("queue").asLock(LEASE);
        Set<String> askedWith = ConcurrentHashMap.newKeySet();
        driver.attempts = request -> {
            askedWith.add(request.ownerToken());
            return Attempt.busy();
        };
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            CompletableFuture<Void> finished = new CompletableFuture<>();
            done.add(finished);
            start(() -> {
                try {
                    view.lock();
                    try {
                        assertThat(view.getHoldCount()).isEqualTo(1);
                    } finally {
                        view.unlock();
                    }
                    finished.complete(null);
                } catch (Throwable t) {
                    finished.completeExceptionally(t);
                }
            });
        }
        await().atMost(PATIENCE).until(() -> driver.count("tryAcquire queue") >= 10
                && threads.stream().filter(t -> t.getState() == Thread.State.WAITING).count() >= 3);
        assertThat(askedWith).as("one acquire on the server for four waiting threads").hasSize(1);
        assertThat(view.isLocked()).as("threads wait for it (none holds it yet)").isTrue();
        driver.attempts = null;
        other.release();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(driver.server).doesNotContainKey("queue");
    }

    @Test
    void aLeaseLostWhileHeldMakesUnlockThrowAndFreesTheLock() throws Exception {
        LeaseLock view = client.lock("lost").asLock(LEASE);
        view.lock();
        view.lock();
        Lease lease = revokedOnTheServer(view);
        assertThat(lease.isValid()).as("what a careful holder checks before writing").isFalse();
        view.unlock(); // not the last hold
        assertThatThrownBy(view::unlock).isInstanceOfSatisfying(LeaseLostException.class, e -> {
            assertThat(e.reason()).isEqualTo(Lease.LossReason.NOT_HELD);
            assertThat(e.lockName()).isEqualTo("lost");
            assertThat(e).hasMessageContaining("overlapped");
        });
        assertThat(view.isHeldByCurrentThread()).isFalse();
        assertThat(view.tryLock()).as("the local state was freed").isTrue();
        view.unlock();
    }

    @Test
    void aThreadCannotReEnterALostLeaseAndItsLastUnlockStillReportsTheLoss() throws Exception {
        LeaseLock view = client.lock("relost").asLock(LEASE);
        view.lock();
        revokedOnTheServer(view);
        Lease other = client.lock("relost").tryAcquire(LEASE).orElseThrow(); // someone else holds it now

        List<ThrowingCallable> reEntries = List.of(view::tryLock, () -> view.tryLock(200, TimeUnit.MILLISECONDS),
                view::lock, view::lockInterruptibly);
        for (ThrowingCallable reEntry : reEntries) {
            assertThatThrownBy(reEntry).isInstanceOfSatisfying(LeaseLostException.class, e -> {
                assertThat(e.reason()).isEqualTo(Lease.LossReason.NOT_HELD);
                assertThat(e.lockName()).isEqualTo("relost");
                assertThat(e).hasMessageContaining("re-enter");
            });
            assertThat(view.getHoldCount()).as("a refused re-entry adds no hold").isEqualTo(1);
        }
        assertThat(driver.count("tryAcquire relost")).as("a re-entry never asks the server").isEqualTo(2);
        assertThatThrownBy(view::unlock).isInstanceOfSatisfying(LeaseLostException.class,
                e -> assertThat(e.reason()).isEqualTo(Lease.LossReason.NOT_HELD));
        assertThat(view.isHeldByCurrentThread()).isFalse();
        assertThat(other.isValid()).as("the other holder's lease is untouched").isTrue();
        other.release();
    }

    @Test
    void aLeaseWhoseRenewalsWentUnansweredUntilItsValidityEndedIsLostNotUnconfirmed() throws Exception {
        LeaseLock view = client.lock("silent").asLock(LEASE);
        view.lock();
        Lease lease = view.lease().orElseThrow();
        driver.away = true;
        runtime.advance(LEASE.toNanos()); // renewals unanswered until the validity ends
        assertThat(lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.EXPIRED);
        assertThatThrownBy(view::tryLock).isInstanceOfSatisfying(LeaseLostException.class,
                e -> assertThat(e.reason()).isEqualTo(Lease.LossReason.EXPIRED));
        assertThat(view.getHoldCount()).isEqualTo(1);
        assertThatThrownBy(view::unlock).isInstanceOfSatisfying(LeaseLostException.class,
                e -> assertThat(e.reason()).isEqualTo(Lease.LossReason.EXPIRED));
        assertThat(view.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void unlockOfALeaseTheClientCannotVouchForSaysUnconfirmedNotLostAndTheReleaseIsCarriedOutOnceBack() {
        ScriptedDriver sessions = new ScriptedDriver(runtime::nanoTime, true);
        LeaseLock view = heldThenSuspended(sessions);
        Lease lease = view.lease().orElseThrow();

        assertThatThrownBy(view::unlock).isInstanceOfSatisfying(LeaseUnconfirmedException.class, e -> {
            assertThat(e.lockName()).isEqualTo("blip");
            assertThat(e).hasMessageContaining("unknown").hasMessageContaining("cleanup");
        }).isNotInstanceOf(LeaseLostException.class);
        assertThat(view.isHeldByCurrentThread()).isFalse();
        assertThat(lease.lost().toCompletableFuture()).as("not lost: only unconfirmed").isNotDone();
        assertThat(sessions.server).as("the release waits in the cleanup while suspended").containsKey("blip");

        sessions.context.connectionRestored();
        runtime.runDue();
        await().atMost(PATIENCE).until(() -> !sessions.server.containsKey("blip"));
        assertThat(lease.lost().toCompletableFuture()).isNotDone();
    }

    @Test
    void aThreadCannotReEnterALeaseTheClientCannotVouchFor() {
        ScriptedDriver sessions = new ScriptedDriver(runtime::nanoTime, true);
        LeaseLock view = heldThenSuspended(sessions);

        assertThatThrownBy(view::tryLock).isInstanceOfSatisfying(LeaseUnconfirmedException.class, e -> {
            assertThat(e.lockName()).isEqualTo("blip");
            assertThat(e).hasMessageContaining("re-enter");
        }).isNotInstanceOf(LeaseLostException.class);
        assertThat(view.getHoldCount()).as("a refused re-entry adds no hold").isEqualTo(1);

        sessions.context.connectionRestored(); // back with the same session: the lease is valid again
        assertThat(view.tryLock()).isTrue();
        assertThat(view.getHoldCount()).isEqualTo(2);
        view.unlock();
        view.unlock();
        assertThat(sessions.server).doesNotContainKey("blip");
    }

    @Test
    void closingTheClientWhileHeldReleasesTheLeaseAndUnlockSaysSo() {
        EngineClient closing = EngineClient.connect(driver.backend(), URI.create("scripted://closing"), LockOptions.defaults(), runtime);
        LeaseLock view = closing.lock("closed").asLock(LEASE);
        view.lock();
        closing.close();
        assertThat(driver.server).as("closing released the lease").doesNotContainKey("closed");
        assertThatThrownBy(view::unlock).isInstanceOfSatisfying(LeaseLostException.class,
                e -> assertThat(e.reason()).isEqualTo(Lease.LossReason.EXPIRED));
        assertThat(view.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void theLeaseIsRenewedWhileHeld() {
        LeaseLock view = client.lock("renewed").asLock(LEASE);
        view.lock();
        runtime.advance(TimeUnit.SECONDS.toNanos(5)); // past the lease time: renewed every second
        assertThat(driver.count("extend renewed")).isGreaterThanOrEqualTo(4);
        assertThat(view.lease().orElseThrow().isValid()).isTrue();
        view.unlock();
    }

    @Test
    void conditionsAreNotSupported() {
        assertThatThrownBy(() -> client.lock("c").asLock(LEASE).newCondition()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void badLeaseTimesAreRefusedUpFrontTheDriftAllowanceToo() {
        DistributedLock lock = client.lock("bad");
        assertThatThrownBy(() -> lock.asLock(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> lock.asLock(Duration.ofMillis(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.asLock(Duration.ofDays(2))).isInstanceOf(IllegalArgumentException.class);
        LeaseLock tooShortForDrift = lock.asLock(Duration.ofMillis(10)); // 2 ms + 1 %: accepted by range
        EngineClient driftingClient = EngineClient.connect(driver.backend(), URI.create("scripted://drift"),
                LockOptions.builder().clockDrift(0.1, Duration.ofSeconds(1)).build(), runtime);
        try {
            assertThatThrownBy(() -> driftingClient.lock("bad").asLock(Duration.ofMillis(500)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clock-drift");
            assertThat(driver.count("tryAcquire bad")).as("refused without asking the server").isZero();
        } finally {
            driftingClient.close();
        }
        assertThat(tooShortForDrift.tryLock()).isTrue();
        tooShortForDrift.unlock();
    }

    @Test
    void aBackendWithoutAutoRenewalIsRefusedUpFront() {
        LockBackend noRenewal = new LockBackend() {
            @Override
            public BackendDescriptor descriptor() {
                return new BackendDescriptor("scripted", Guarantee.EFFICIENCY, EnumSet.of(Feature.LEASE_EXTENSION));
            }

            @Override
            public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
                return driver.backend().connect(uri, options, context);
            }
        };
        EngineClient plain = EngineClient.connect(noRenewal, URI.create("scripted://plain"), LockOptions.defaults(), runtime);
        try {
            assertThatThrownBy(() -> plain.lock("plain").asLock(LEASE))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("AUTO_RENEWAL");
            assertThat(driver.count("tryAcquire plain")).as("refused without asking the server").isZero();
        } finally {
            plain.close();
        }
    }

    /** Revokes the view's lease on the server and lets the renewal find out: its lost() completes with NOT_HELD. */
    private Lease revokedOnTheServer(LeaseLock view) throws Exception {
        Lease lease = view.lease().orElseThrow();
        driver.server.remove(view.name()); // gone on the server, as after an expiry there or an operator's delete
        runtime.advance(TimeUnit.SECONDS.toNanos(1)); // the renewal finds it gone
        assertThat(lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.NOT_HELD);
        return lease;
    }

    /**
     * A view of lock "blip" held through a session store's driver (its client closed after the
     * test), whose connection is then suspended — a blip the session may well outlive: the lease is
     * invalid, and not lost.
     */
    private LeaseLock heldThenSuspended(ScriptedDriver sessions) {
        EngineClient sessionClient = EngineClient.connect(sessions.backend(), URI.create("scripted://sessions"),
                LockOptions.defaults(), runtime);
        sessionClients.add(sessionClient);
        LeaseLock view = sessionClient.lock("blip").asLock(LEASE);
        view.lock();
        sessions.context.connectionSuspended();
        assertThat(view.lease().orElseThrow().isValid()).isFalse();
        return view;
    }

    private Thread start(Runnable body) {
        Thread thread = new Thread(body, "view-test-" + threads.size());
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
        return thread;
    }
}
