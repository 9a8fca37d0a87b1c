package io.distlock.tck;

import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Group 2 of {@code lock-tck/SPEC.md}, liveness: hand-off after release, recovery after a holder
 * stops, {@code maxWait}, interrupted and timed-out acquires, distinct names, FIFO waiters, and a
 * minority of nodes down. A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface LivenessRules extends RuleGroup {

    /**
     * Rule 2.1 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.1 a waiter gets the lock soon after release")
    default void required_2_1_handOffAfterRelease() throws InterruptedException {
        Rig rig = Rig.of(this);
        Lease holder = rig.acquireNow(rig.client(), rig.env.longLease());
        DistributedLock lock = rig.client().lock(rig.name);
        Rig.Waiter<Optional<Lease>> waiter = rig.start("waiter",
                () -> rig.track(lock.tryAcquire(rig.env.longLease(), rig.env.defaultTimeout().plus(rig.env.handOffTimeout()))));
        rig.awaitBlocked(waiter);
        if (waiter.result.isDone()) {
            fail(rig.msg("the waiter returned " + rig.outcome(waiter, Duration.ZERO) + " while the holder still held the lock"));
        }

        long released = System.nanoTime();
        holder.release();
        Optional<Lease> got = rig.outcome(waiter, rig.env.defaultTimeout().plus(rig.env.handOffTimeout()));
        assertTrue(got.isPresent(), rig.msg("the waiter did not get the lock after the holder released it"));
        Duration handOff = Duration.ofNanos(waiter.finishedAtNanos - released);
        assertTrue(handOff.compareTo(rig.env.handOffTimeout()) <= 0, rig.msg("the waiter got the lock "
                + TestEnvironment.millis(handOff) + " after the release; at most "
                + TestEnvironment.millis(rig.env.handOffTimeout()) + " expected"));
    }

    /**
     * Rule 2.2 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.2 the lock recovers after a holder stops without releasing")
    default void required_2_2_recoveryAfterHolderStops() throws InterruptedException {
        Rig rig = Rig.of(this);
        LockClient a = rig.client(); // stays open: the holder just stops
        LockClient b = rig.client();
        long beforeA = System.nanoTime();
        Lease leaseA = rig.acquireNow(a, rig.env.shortLease());
        long promiseA = System.nanoTime() + leaseA.remaining().toNanos();

        Duration maxWait = rig.env.shortLease().plus(rig.env.defaultTimeout());
        Optional<Lease> leaseB = rig.track(b.lock(rig.name).tryAcquire(rig.env.shortLease(), maxWait));
        long gotB = System.nanoTime();
        assertTrue(leaseB.isPresent(), rig.msg("nobody could acquire the lock within " + TestEnvironment.millis(maxWait)
                + " after a holder with a lease of " + TestEnvironment.millis(rig.env.shortLease()) + " stopped"));
        assertTrue(gotB - promiseA >= 0, rig.msg("B acquired while A's lease was still valid"));
        Duration recovery = Duration.ofNanos(gotB - beforeA).minus(rig.env.shortLease());
        assertTrue(recovery.compareTo(rig.env.handOffTimeout()) <= 0, rig.msg("B acquired " + TestEnvironment.millis(recovery)
                + " after A's lease time ended; at most " + TestEnvironment.millis(rig.env.handOffTimeout()) + " expected"));
    }

    /**
     * Rule 2.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.3 maxWait is honoured")
    default void required_2_3_maxWaitHonoured() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.acquireNow(rig.client(), rig.env.longLease());
        DistributedLock lock = rig.client().lock(rig.name);
        Duration maxWait = rig.env.shortWait();
        long start = System.nanoTime();
        Optional<Lease> got = rig.track(lock.tryAcquire(rig.env.shortLease(), maxWait));
        Duration took = TestEnvironment.since(start);
        assertTrue(got.isEmpty(), rig.msg("acquired a lock that another client holds"));
        assertTrue(took.compareTo(maxWait) >= 0, rig.msg("gave up after " + TestEnvironment.millis(took)
                + ", before maxWait " + TestEnvironment.millis(maxWait)));
        assertTrue(took.compareTo(maxWait.plus(rig.env.tolerance())) <= 0, rig.msg("returned " + TestEnvironment.millis(took)
                + " after the call, more than maxWait " + TestEnvironment.millis(maxWait) + " + tolerance "
                + TestEnvironment.millis(rig.env.tolerance())));
    }

    /**
     * Rule 2.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.4 an interrupted acquire throws promptly and leaves nothing held")
    default void required_2_4_interruptedAcquireLeavesNothing() throws InterruptedException {
        Rig rig = Rig.of(this);
        Lease holder = rig.acquireNow(rig.client(), rig.env.longLease());
        DistributedLock forever = rig.client().lock(rig.name);
        DistributedLock bounded = rig.client().lock(rig.name);
        Rig.Waiter<Lease> acquiring = rig.start("acquire", () -> rig.track(forever.acquire(rig.env.shortLease())));
        Rig.Waiter<Optional<Lease>> trying = rig.start("tryAcquire",
                () -> rig.track(bounded.tryAcquire(rig.env.shortLease(), rig.env.longLease())));
        rig.awaitBlocked(acquiring);
        rig.awaitBlocked(trying);

        long interrupted = System.nanoTime();
        acquiring.thread.interrupt();
        trying.thread.interrupt();
        for (Rig.Waiter<?> waiter : List.of(acquiring, trying)) {
            Throwable thrown = rig.failure(waiter, rig.env.defaultTimeout());
            assertTrue(thrown instanceof InterruptedException, rig.msg("an interrupted " + waiter.label
                    + " did not throw InterruptedException but " + (thrown == null ? "returned normally" : thrown)));
            Duration took = Duration.ofNanos(waiter.finishedAtNanos - interrupted);
            assertTrue(took.compareTo(rig.env.tolerance()) <= 0, rig.msg("an interrupted " + waiter.label + " took "
                    + TestEnvironment.millis(took) + " to throw; at most " + TestEnvironment.millis(rig.env.tolerance())));
        }

        holder.release();
        assertTrue(rig.track(rig.client().lock(rig.name).tryAcquire(rig.env.shortLease())).isPresent(),
                rig.msg("after the holder released, a single attempt found the lock held:"
                        + " an interrupted acquire left a request behind that was granted to nobody alive"));
    }

    /**
     * Rule 2.5 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.5 a timed-out acquire leaves nothing held")
    default void required_2_5_timedOutAcquireLeavesNothing() throws InterruptedException {
        Rig rig = Rig.of(this);
        Lease holder = rig.acquireNow(rig.client(), rig.env.longLease());
        Optional<Lease> gaveUp = rig.track(rig.client().lock(rig.name).tryAcquire(rig.env.shortLease(), rig.env.shortWait()));
        assertTrue(gaveUp.isEmpty(), rig.msg("acquired a lock that another client holds"));

        holder.release();
        assertTrue(rig.track(rig.client().lock(rig.name).tryAcquire(rig.env.shortLease())).isPresent(),
                rig.msg("after the holder released, a single attempt found the lock held:"
                        + " a timed-out acquire left a request behind that was granted to nobody alive"));
    }

    /** Rule 2.6 (see SPEC.md). */
    @Test
    @DisplayName("2.6 distinct names do not contend")
    default void required_2_6_distinctNamesDoNotContend() {
        Rig rig = Rig.of(this);
        LockClient a = rig.client();
        LockClient b = rig.client();
        rig.acquireNow(a, rig.env.longLease());
        String base = rig.name;
        List<String> others = List.of(base + "-other", base.toUpperCase(Locale.ROOT), "x" + base, base + ":x",
                base + "/x", base + " x", base + "-ñ", base + "-n", base + "-\u6f22");
        for (String other : others) {
            assertTrue(rig.track(b.lock(other).tryAcquire(rig.env.longLease())).isPresent(),
                    rig.msg("lock '" + other + "' was busy although only '" + base + "' and other distinct names are held"));
        }
        String longPrefix = (base + "-").concat("p".repeat(LockClient.MAX_NAME_LENGTH)).substring(0, LockClient.MAX_NAME_LENGTH - 1);
        rig.acquireNow(a, longPrefix + "a", rig.env.longLease());
        assertTrue(rig.track(b.lock(longPrefix + "b").tryAcquire(rig.env.longLease())).isPresent(),
                rig.msg("two names of the maximum length " + LockClient.MAX_NAME_LENGTH
                        + " that differ only in their last character contend"));
    }

    /**
     * Rule 2.7 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.7 waiters are served in FIFO order")
    default void optional_2_7_fifoWaiters() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.FIFO_WAITERS);
        Lease holder = rig.acquireNow(rig.client(), rig.env.longLease());
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Rig.Waiter<Boolean>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int position = i;
            DistributedLock lock = rig.client().lock(rig.name);
            Rig.Waiter<Boolean> waiter = rig.start("waiter-" + i, () -> {
                Optional<Lease> got = lock.tryAcquire(rig.env.longLease(), rig.env.defaultTimeout().plus(rig.env.defaultTimeout()));
                got.ifPresent(lease -> {
                    order.add(position);
                    lease.release();
                });
                return got.isPresent();
            });
            rig.awaitBlocked(waiter);
            waiters.add(waiter);
        }
        holder.release();
        for (Rig.Waiter<Boolean> waiter : waiters) {
            assertTrue(rig.outcome(waiter, rig.env.defaultTimeout().plus(rig.env.defaultTimeout())),
                    rig.msg(waiter.label + " never got the lock"));
        }
        assertEquals(List.of(0, 1, 2, 3), List.copyOf(order),
                rig.msg("waiters were served in this order, not in the order they started waiting"));
    }

    /**
     * Rule 2.8 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.8 a minority of nodes down does not block")
    @SuppressWarnings("try") // the fault is only closed, never used
    default void required_2_8_minorityDownDoesNotBlock() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.QUORUM);
        Optional<NodeFaults> faults = rig.hooks.nodeFaults();
        // A declared capability must be proven: a missing hook fails the rule instead of skipping it.
        assertTrue(faults.isPresent(), rig.msg("backend '" + rig.backend().scheme()
                + "' declares QUORUM but the verification supplies no nodeFaults() hook to prove it"));
        LockClient before = rig.client();
        try (NodeFaults.Fault fault = faults.get().stopMinority()) {
            LockClient during = rig.client();
            Lease lease = rig.acquireWithin(before, rig.env.shortLease(), rig.env.defaultTimeout(),
                    "with a minority of nodes down, a client connected before the fault could not acquire");
            assertTrue(rig.track(during.lock(rig.name).tryAcquire(rig.env.shortLease())).isEmpty(),
                    rig.msg("with a minority of nodes down, two clients held the lock at once"));
            lease.release();
            rig.acquireWithin(during, rig.env.shortLease(), rig.env.defaultTimeout(),
                    "with a minority of nodes down, a client connected during the fault could not acquire after a release");
        }
    }

    /**
     * Rule 2.9: a backend that declares {@link Feature#WAIT_NOTIFICATION} wakes its waiters itself;
     * the engine's fallback poll (once a second) must not be what hands the lock on.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.9 a notified waiter is woken well before the fallback poll")
    default void required_2_9_notifiedWakeUp() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.WAIT_NOTIFICATION);
        List<Duration> handOffs = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            Lease holder = rig.acquireNow(rig.client(), rig.env.longLease());
            DistributedLock lock = rig.client().lock(rig.name);
            Rig.Waiter<Optional<Lease>> waiter = rig.start("waiter-" + round,
                    () -> rig.track(lock.tryAcquire(rig.env.longLease(), rig.env.defaultTimeout())));
            // Parked right after its retry: without a notification it would sleep a whole poll now.
            rig.awaitBlocked(waiter);
            long released = System.nanoTime();
            holder.release();
            Optional<Lease> got = rig.outcome(waiter, rig.env.defaultTimeout().plus(rig.env.tolerance()));
            assertTrue(got.isPresent(), rig.msg("the waiter did not get the lock after the holder released it"));
            handOffs.add(Duration.ofNanos(waiter.finishedAtNanos - released));
            got.get().release();
        }
        List<Duration> sorted = new ArrayList<>(handOffs);
        sorted.sort(null);
        Duration median = sorted.get(1);
        assertTrue(median.compareTo(rig.env.notifiedHandOff()) <= 0, rig.msg("hand-offs took " + handOffs.stream()
                .map(TestEnvironment::millis).collect(java.util.stream.Collectors.joining(", ")) + " (median "
                + TestEnvironment.millis(median) + "); a backend declaring WAIT_NOTIFICATION must wake its waiters within "
                + TestEnvironment.millis(rig.env.notifiedHandOff()) + ", well before the engine's once-a-second fallback poll"
                + " (do its notifications fire?)"));
        rig.notes.add("notified hand-offs: " + handOffs.stream().map(TestEnvironment::millis)
                .collect(java.util.stream.Collectors.joining(", ")));
    }
}
