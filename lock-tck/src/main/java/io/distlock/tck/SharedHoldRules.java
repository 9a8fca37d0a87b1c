package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.PermitCountMismatchException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Group 9 of {@code lock-tck/SPEC.md}, read-write locks and semaphores: at most N valid permits, never a
 * writer beside anyone, write preference, holds that come back when their holder stops, no hold left
 * behind by a fault, the permit count kept, and an honest refusal where a backend has neither. A rule group
 * of {@link LockVerification} (see {@link RuleGroup}).
 */
interface SharedHoldRules extends RuleGroup {

    /** The permits of the semaphores of rules 9.1 and 9.4: fewer than the contention run's clients. */
    int PERMITS = 3;

    /**
     * Rule 9.1 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.1 at most N valid permits of a semaphore at any instant under contention")
    default void required_9_1_atMostNPermits() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.SEMAPHORE);
        History history = Contention.run(rig, new FencedResource(), 2, (i, client) -> {
            DistributedSemaphore semaphore = client.semaphore(rig.name, PERMITS);
            return new Contention.Contender(rig.name, (lease, maxWait) -> maxWait == null ? semaphore.tryAcquire(lease)
                    : semaphore.tryAcquire(lease, maxWait), false);
        });
        List<HistoryChecker.Violation> violations = HistoryChecker.moreHoldersThan(history, PERMITS);
        assertTrue(violations.isEmpty(), () -> rig.msg(violations.size() + " times more than " + PERMITS
                + " permits valid at once in " + history + ":\n" + HistoryChecker.describe(violations, 5)));
        int most = mostAtOnce(history);
        rig.notes.add("checked " + history.acquisitions() + " permits granted to " + history.distinctHolders() + " of "
                + rig.env.contentionClients() + " clients; at most " + most + " of " + PERMITS + " valid at once");
    }

    /**
     * Rule 9.2 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.2 never a reader beside a writer, nor two writers, and one fencing order for both")
    default void required_9_2_writerAlone() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.READ_WRITE);
        String read = rig.name + " (read)";
        String write = rig.name + " (write)";
        FencedResource resource = new FencedResource();
        History history = Contention.run(rig, resource, 2, (i, client) -> {
            DistributedReadWriteLock rw = client.readWriteLock(rig.name);
            boolean writer = i % 3 == 0; // 3 writers among 8
            DistributedLock side = writer ? rw.writeLock() : rw.readLock();
            return new Contention.Contender(writer ? write : read, (lease, maxWait) -> maxWait == null ? side.tryAcquire(lease)
                    : side.tryAcquire(lease, maxWait), writer);
        });
        long reads = history.events().stream().filter(e -> e.kind() == History.Kind.ACQUIRED && e.lockName().equals(read)).count();
        long writes = history.acquisitions() - reads;
        assertTrue(reads > 0 && writes > 0, rig.msg("the run was vacuous: " + reads + " read and " + writes + " write grants"));
        List<HistoryChecker.Violation> violations = new ArrayList<>(HistoryChecker.writerNotAlone(history, read, write));
        if (rig.backend().has(Feature.FENCING_TOKENS)) {
            violations.addAll(HistoryChecker.readWriteFencingOrder(history, read, write));
            violations.addAll(HistoryChecker.rejectedValidWrites(history));
        }
        assertTrue(violations.isEmpty(), () -> rig.msg(violations.size() + " violations in " + history + ":\n"
                + HistoryChecker.describe(violations, 5)));
        rig.notes.add("checked " + reads + " read and " + writes + " write grants to " + history.distinctHolders() + " of "
                + rig.env.contentionClients() + " clients; at most " + mostAtOnce(history, read) + " readers at once");
    }

    /**
     * Rule 9.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.3 a waiting writer gets the lock while new readers keep arriving")
    default void required_9_3_writePreference() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.READ_WRITE);
        List<DistributedLock> readers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            readers.add(rig.client().readWriteLock(rig.name).readLock());
        }
        DistributedLock writer = rig.client().readWriteLock(rig.name).writeLock();
        Duration writersWait = rig.env.defaultTimeout();
        AtomicBoolean writerDone = new AtomicBoolean();
        AtomicInteger relayed = new AtomicInteger();
        AtomicInteger readsAfterWriterQueued = new AtomicInteger();
        AtomicBoolean writerQueued = new AtomicBoolean();
        // A relay of readers: the next read lease is taken while the current one is held, so that a reader
        // holds at every instant unless the lock makes a newcomer wait; then the current one lets go.
        Rig.Waiter<Integer> relay = rig.start("readers", () -> {
            Lease current = rig.track(readers.get(0).acquire(rig.env.longLease()));
            long until = System.nanoTime() + writersWait.plus(rig.env.handOffTimeout()).toNanos();
            for (int k = 1; !writerDone.get() && System.nanoTime() - until < 0; k++) {
                Optional<Lease> next = rig.track(readers.get(k % readers.size()).tryAcquire(rig.env.longLease(),
                        rig.env.handOffTimeout()));
                if (next.isPresent()) {
                    relayed.incrementAndGet();
                    if (writerQueued.get()) {
                        readsAfterWriterQueued.incrementAndGet();
                    }
                }
                if (current != null) {
                    current.release();
                }
                current = next.orElse(null);
            }
            if (current != null) {
                current.release();
            }
            return relayed.get();
        });
        rig.env.awaitUntil(rig.msg("waiting for the relay of readers to hand on a read lease"), () -> relayed.get() >= 2);
        Optional<Lease> busy = rig.track(writer.tryAcquire(rig.env.longLease()));
        assertTrue(busy.isEmpty(), rig.msg("a writer was granted the lock while a reader held it"));
        writerQueued.set(true);
        long start = System.nanoTime();
        Optional<Lease> written;
        try {
            written = rig.track(writer.tryAcquire(rig.env.longLease(), writersWait));
        } finally {
            writerDone.set(true);
        }
        Duration waited = TestEnvironment.since(start);
        rig.outcome(relay, rig.env.defaultTimeout().plus(rig.env.handOffTimeout()));
        assertTrue(written.isPresent(), rig.msg("the writer was starved: it waited " + TestEnvironment.millis(waited)
                + " while " + readsAfterWriterQueued.get() + " new readers were granted the lock after it started waiting"));
        written.get().release();
        rig.notes.add("the writer got the lock " + TestEnvironment.millis(waited) + " after it started waiting; "
                + readsAfterWriterQueued.get() + " read leases were granted in that time (readers that had asked before it)");
    }

    /**
     * Rule 9.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.4 a permit, read or write hold whose holder stops comes back after its lease")
    default void required_9_4_stoppedHolderGivesBack() throws InterruptedException {
        Rig rig = Rig.of(this);
        boolean semaphores = rig.backend().has(Feature.SEMAPHORE);
        boolean readWrite = rig.backend().has(Feature.READ_WRITE);
        if (!semaphores) {
            rig.requireFeature(Feature.READ_WRITE);
        }
        Duration comesBack = rig.env.shortLease().plus(rig.env.handOffTimeout()).plus(rig.env.tolerance());
        LockClient a = rig.client();
        LockClient b = rig.client();
        if (semaphores) {
            DistributedSemaphore mine = a.semaphore(rig.name, 2);
            List<Lease> held = List.of(rig.track(mine.tryAcquire(rig.env.shortLease())).orElseThrow(() -> new AssertionError(
                    rig.msg("a single attempt on a free semaphore found every permit held"))), rig.track(
                    mine.tryAcquire(rig.env.shortLease())).orElseThrow(() -> new AssertionError(rig.msg(
                    "a second permit of a free 2-permit semaphore was refused"))));
            DistributedSemaphore theirs = b.semaphore(rig.name, 2);
            assertTrue(rig.track(theirs.tryAcquire(rig.env.shortLease())).isEmpty(),
                    rig.msg("a third permit of a 2-permit semaphore was granted"));
            // A stops: neither releases nor renews its permits.
            long start = System.nanoTime();
            Optional<Lease> got = rig.track(theirs.tryAcquire(rig.env.longLease(), comesBack));
            assertTrue(got.isPresent(), rig.msg("a permit whose holder stopped never came back: B waited "
                    + TestEnvironment.millis(comesBack) + " after A's 2 permits of " + TestEnvironment.millis(rig.env.shortLease())));
            // B is owed a permit once the first of A's two has run out (the second may still be valid).
            assertFalse(held.stream().allMatch(Lease::isValid), rig.msg("B got a permit while both of A's were valid"));
            rig.notes.add("9.4: a stopped holder's permit came back " + TestEnvironment.millis(TestEnvironment.since(start))
                    + " after B began to wait");
            got.get().release();
        }
        if (readWrite) {
            Lease reader = rig.track(a.readWriteLock(rig.name).readLock().tryAcquire(rig.env.shortLease())).orElseThrow(
                    () -> new AssertionError(rig.msg("a single read attempt on a free read-write lock found it busy")));
            Optional<Lease> writer = rig.track(b.readWriteLock(rig.name).writeLock().tryAcquire(rig.env.longLease(), comesBack));
            assertTrue(writer.isPresent(), rig.msg("a read hold whose holder stopped never came back: a writer waited "
                    + TestEnvironment.millis(comesBack)));
            assertFalse(reader.isValid(), rig.msg("a writer was granted the lock while a reader's lease was valid"));
            writer.get().release();
            Lease stoppedWriter = rig.track(a.readWriteLock(rig.name).writeLock().tryAcquire(rig.env.shortLease())).orElseThrow(
                    () -> new AssertionError(rig.msg("a single write attempt on a free read-write lock found it busy")));
            Optional<Lease> readerAfter = rig.track(b.readWriteLock(rig.name).readLock().tryAcquire(rig.env.longLease(), comesBack));
            assertTrue(readerAfter.isPresent(), rig.msg("a write hold whose holder stopped never came back: a reader waited "
                    + TestEnvironment.millis(comesBack)));
            assertFalse(stoppedWriter.isValid(), rig.msg("a reader was granted the lock while the writer's lease was valid"));
            readerAfter.get().release();
        }
    }

    /**
     * Rule 9.5 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.5 a lost reply or an interrupt in flight leaves no permit or hold behind")
    default void required_9_5_faultsLeaveNothingBehind() throws InterruptedException {
        Rig rig = Rig.of(this);
        boolean semaphores = rig.backend().has(Feature.SEMAPHORE);
        boolean readWrite = rig.backend().has(Feature.READ_WRITE);
        if (!semaphores) {
            rig.requireFeature(Feature.READ_WRITE);
        }
        ClientPartition partition = rig.requirePartition();
        Duration inTime = partition.operationTimeout().plus(rig.env.tolerance());
        if (semaphores) {
            // A permit whose acquire reached the server and whose reply was lost: unavailable, then removed.
            try (PartitionedClient a = partition.open()) {
                DistributedSemaphore semaphore = a.client().semaphore(rig.name, 1);
                a.holdAllReplies();
                Rig.Waiter<Optional<Lease>> attempt = rig.start("A", () -> rig.track(semaphore.tryAcquire(rig.env.longLease())));
                rig.env.awaitUntil(rig.msg("waiting for A's permit request to reach the server (its reply held back)"), a::inFlight);
                a.dropAll();
                Throwable failure = rig.failure(attempt, inTime);
                if (!(failure instanceof BackendUnavailableException)) {
                    fail(rig.msg("A's permit request whose reply was lost ended with "
                            + (failure == null ? attempt.result.join() : failure) + " instead of BackendUnavailableException"));
                }
                rig.awaitRetry(a, a.requestsSent(), "A's client");
                a.healAll();
                Optional<Lease> next = rig.track(rig.client().semaphore(rig.name, 1).tryAcquire(rig.env.shortLease(),
                        rig.afterHeal(partition).plus(inTime)));
                assertTrue(next.isPresent(), rig.msg("after the partition healed the only permit stayed held: what A's"
                        + " lost-reply acquire wrote was left behind (its lease was " + TestEnvironment.millis(rig.env.longLease()) + ")"));
                next.get().release();
            }
        }
        if (readWrite) {
            // A write acquire interrupted while its request is in flight (the server frozen, as seen from the
            // client): the interrupt is reported, and nothing blocks readers once the late write lands.
            try (PartitionedClient a = partition.open()) {
                DistributedLock write = a.client().readWriteLock(rig.name).writeLock();
                a.blackholeAll();
                long sentBefore = a.requestsSent();
                Rig.Waiter<Lease> acquirer = rig.start("A", () -> rig.track(write.acquire(rig.env.longLease())));
                rig.env.awaitUntil(rig.msg("waiting for A's write acquire to be in flight"), a::inFlight);
                acquirer.thread.interrupt();
                Throwable failure = rig.failure(acquirer, inTime);
                if (!(failure instanceof InterruptedException)) {
                    fail(rig.msg("A's write acquire, interrupted while in flight, ended with "
                            + (failure == null ? "a lease" : failure.toString()) + " instead of InterruptedException"));
                }
                rig.env.awaitUntil(rig.msg("waiting for A's client to send something after its acquire"),
                        partition.operationTimeout().plus(rig.env.defaultTimeout()), () -> a.requestsSent() > sentBefore + 1);
                a.healAll();
                Optional<Lease> reader = rig.track(rig.client().readWriteLock(rig.name).readLock().tryAcquire(rig.env.shortLease(),
                        rig.afterHeal(partition).plus(inTime)));
                assertTrue(reader.isPresent(), rig.msg("after the path thawed no reader could get in: A's interrupted write"
                        + " acquire, whose request landed late, was left holding or waiting"));
                reader.get().release();
            }
        }
    }

    /**
     * Rule 9.6 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.6 a mismatched permit count, bad permits and bad durations are refused, nothing held")
    default void required_9_6_badInputRefused() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.SEMAPHORE);
        LockClient a = rig.client();
        LockClient b = rig.client();
        for (int bad : new int[] {0, -1, LockClient.MAX_PERMITS + 1}) {
            assertThrows(IllegalArgumentException.class, () -> a.semaphore(rig.name, bad),
                    rig.msg("a semaphore of " + bad + " permits was accepted"));
        }
        DistributedSemaphore two = a.semaphore(rig.name, 2);
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), DistributedLock.MAX_LEASE_TIME.plusMillis(1)}) {
            assertThrows(IllegalArgumentException.class, () -> two.tryAcquire(bad), rig.msg("a permit lease of " + bad + " was accepted"));
        }
        assertThrows(IllegalArgumentException.class, () -> two.tryAcquire(rig.env.longLease(), Duration.ofMillis(-1)),
                rig.msg("a negative maxWait was accepted"));
        assertThrows(NullPointerException.class, () -> two.tryAcquire(null), rig.msg("a null lease time was accepted"));
        Lease held = rig.track(two.tryAcquire(rig.env.longLease())).orElseThrow(() -> new AssertionError(rig.msg(
                "a single attempt on a free semaphore found every permit held: a refused acquire left something held")));
        PermitCountMismatchException refused = assertThrows(PermitCountMismatchException.class,
                () -> rig.track(b.semaphore(rig.name, 3).tryAcquire(rig.env.longLease())),
                rig.msg("a client asking for 3 permits of a semaphore held with 2 was not refused"));
        assertEquals(2, refused.stored(), rig.msg("the refusal named the wrong stored count: " + refused.getMessage()));
        assertEquals(3, refused.requested(), rig.msg("the refusal named the wrong requested count: " + refused.getMessage()));
        assertTrue(refused.getMessage().contains(rig.name), rig.msg("the refusal does not name the semaphore: " + refused.getMessage()));
        assertThrows(PermitCountMismatchException.class,
                () -> rig.track(b.semaphore(rig.name, 1).tryAcquire(rig.env.longLease(), rig.env.shortWait())),
                rig.msg("a waiting acquire of 1 permit of a semaphore held with 2 was not refused"));
        Lease second = rig.track(b.semaphore(rig.name, 2).tryAcquire(rig.env.longLease())).orElseThrow(() -> new AssertionError(
                rig.msg("the second of 2 permits was held after the refused acquires: a refusal left a permit behind")));
        held.release();
        second.release();
        Optional<Lease> other = rig.track(b.semaphore(rig.name, 3).tryAcquire(rig.env.longLease(), rig.env.handOffTimeout()));
        assertTrue(other.isPresent(), rig.msg("once every permit was back, a semaphore of another count could not be taken"
                + " on the name: the stored count outlived its permits"));
        other.get().release();
    }

    /** Rule 9.7 (see SPEC.md). */
    @Test
    @DisplayName("9.7 a backend without read-write locks or semaphores refuses them, naming the feature")
    default void required_9_7_undeclaredPrimitivesRefused() {
        Rig rig = Rig.of(this);
        LockClient client = rig.client();
        if (rig.backend().has(Feature.READ_WRITE)) {
            DistributedReadWriteLock rw = client.readWriteLock(rig.name);
            assertEquals(rig.name, rw.name(), rig.msg("the read-write lock's name"));
        } else {
            UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                    () -> client.readWriteLock(rig.name), rig.msg("readWriteLock was not refused though READ_WRITE is not declared"));
            assertTrue(String.valueOf(refused.getMessage()).contains("READ_WRITE"),
                    rig.msg("the refusal does not name the feature: " + refused.getMessage()));
        }
        if (rig.backend().has(Feature.SEMAPHORE)) {
            DistributedSemaphore semaphore = client.semaphore(rig.name, 2);
            assertEquals(2, semaphore.permits(), rig.msg("the semaphore's permits"));
        } else {
            UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                    () -> client.semaphore(rig.name, 2), rig.msg("semaphore was not refused though SEMAPHORE is not declared"));
            assertTrue(String.valueOf(refused.getMessage()).contains("SEMAPHORE"),
                    rig.msg("the refusal does not name the feature: " + refused.getMessage()));
        }
        rig.notes.add("9.7: declares " + (rig.backend().has(Feature.READ_WRITE) ? "READ_WRITE" : "no READ_WRITE") + " and "
                + (rig.backend().has(Feature.SEMAPHORE) ? "SEMAPHORE" : "no SEMAPHORE"));
    }

    /**
     * Rule 9.8 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.8 the ReadWriteLock view: threads read at once, a writer excludes them, no upgrade or downgrade")
    default void required_9_8_readWriteLockView() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.READ_WRITE);
        rig.requireFeature(Feature.AUTO_RENEWAL);
        ReadWriteLock view = rig.client().readWriteLock(rig.name).asReadWriteLock(rig.env.shortLease());
        Lock read = view.readLock();
        Lock write = view.writeLock();
        read.lock();
        Rig.Waiter<Boolean> second = rig.start("second reader", () -> {
            boolean got = read.tryLock(rig.env.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (got) {
                read.unlock();
            }
            return got;
        });
        assertTrue(rig.outcome(second, rig.env.defaultTimeout().plus(rig.env.tolerance())),
                rig.msg("a second thread of the process could not read while the first read: the view's read side is exclusive"));
        IllegalStateException upgrade = assertThrows(IllegalStateException.class, write::tryLock,
                rig.msg("a reading thread was let upgrade to the write lock"));
        assertTrue(String.valueOf(upgrade.getMessage()).contains("upgrade"), rig.msg("the refusal does not say upgrade: "
                + upgrade.getMessage()));
        Optional<Lease> outsider = rig.track(rig.client().readWriteLock(rig.name).writeLock().tryAcquire(rig.env.shortLease()));
        assertTrue(outsider.isEmpty(), rig.msg("another client took the write lock while the view's thread read"));
        // Held across several lease times: the view renews.
        DistributedLock otherWriter = rig.client().readWriteLock(rig.name).writeLock();
        assertTrue(rig.track(otherWriter.tryAcquire(rig.env.shortLease(), rig.env.shortLease().multipliedBy(3))).isEmpty(),
                rig.msg("another client took the write lock while the view held a renewed read lock"));
        read.unlock();
        assertTrue(write.tryLock(rig.env.handOffTimeout().toMillis(), TimeUnit.MILLISECONDS),
                rig.msg("the view's write lock was not granted once its readers had unlocked"));
        try {
            IllegalStateException downgrade = assertThrows(IllegalStateException.class, read::tryLock,
                    rig.msg("the writing thread was let downgrade to the read lock"));
            assertTrue(String.valueOf(downgrade.getMessage()).contains("downgrade"), rig.msg("the refusal does not say downgrade: "
                    + downgrade.getMessage()));
            assertTrue(rig.track(rig.client().readWriteLock(rig.name).readLock().tryAcquire(rig.env.shortLease())).isEmpty(),
                    rig.msg("another client read while the view held the write lock"));
        } finally {
            write.unlock();
        }
        assertTrue(rig.track(rig.client().readWriteLock(rig.name).readLock().tryAcquire(rig.env.shortLease(),
                rig.env.handOffTimeout())).isPresent(), rig.msg("nobody could read after the view's writer unlocked"));
    }

    /**
     * Rule 9.9 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.9 holders shows every permit, reader and writer held, and nothing the server no longer holds")
    default void required_9_9_holdsAreShown() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.INSPECTION);
        boolean semaphores = rig.backend().has(Feature.SEMAPHORE);
        boolean readWrite = rig.backend().has(Feature.READ_WRITE);
        if (!semaphores) {
            rig.requireFeature(Feature.READ_WRITE);
        }
        LockClient inspector = rig.client();
        if (semaphores) {
            DistributedSemaphore seen = inspector.semaphore(rig.name, PERMITS);
            assertTrue(seen.holders().isEmpty(), rig.msg("holders() showed a permit of a semaphore nobody ever took"));
            Instant before = Instant.now();
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < PERMITS; i++) {
                held.add(take(rig, rig.client().semaphore(rig.name, PERMITS).tryAcquire(rig.env.longLease()), "permit " + (i + 1)));
            }
            Instant after = Instant.now();
            List<LockInfo> shown = awaitHolds(rig, seen::holders, PERMITS, PERMITS + " clients hold a permit each");
            checkHolds(rig, shown, held, LockInfo.Kind.PERMIT, before, after);
            shown.forEach(info -> assertEquals(java.util.OptionalInt.of(PERMITS), info.permits(),
                    rig.msg("a permit was shown without its semaphore's count " + PERMITS + ": " + info)));
            held.get(0).release();
            List<LockInfo> afterRelease = awaitHolds(rig, seen::holders, PERMITS - 1, "the oldest permit was released");
            assertFalse(afterRelease.stream().anyMatch(info -> info.holdId().equals(shown.get(0).holdId())),
                    rig.msg("the released permit is still shown: " + afterRelease));
            Lease stopped = take(rig, rig.client().semaphore(rig.name, PERMITS).tryAcquire(rig.env.shortLease()), "a short permit");
            awaitHolds(rig, seen::holders, PERMITS, "a third permit of " + TestEnvironment.millis(rig.env.shortLease()) + " was taken");
            rig.env.awaitUntil(rig.msg("waiting for holders() to stop showing a permit whose lease of "
                            + TestEnvironment.millis(rig.env.shortLease()) + " ran out (its holder stopped)"),
                    rig.env.shortLease().plus(rig.env.defaultTimeout()), () -> seen.holders().size() == PERMITS - 1);
            assertFalse(stopped.isValid(), rig.msg("the stopped permit's lease is valid after its server stopped showing it"));
            rig.notes.add("9.9: shown while held: " + shown.get(0));
            held.get(1).release();
            held.get(2).release();
        }
        if (readWrite) {
            DistributedReadWriteLock seen = inspector.readWriteLock(rig.name);
            assertTrue(seen.holders().isEmpty(), rig.msg("holders() showed a hold of a read-write lock nobody ever took"));
            Instant before = Instant.now();
            List<Lease> readers = List.of(
                    take(rig, rig.client().readWriteLock(rig.name).readLock().tryAcquire(rig.env.longLease()), "reader 1"),
                    take(rig, rig.client().readWriteLock(rig.name).readLock().tryAcquire(rig.env.longLease()), "reader 2"));
            List<LockInfo> shownReaders = awaitHolds(rig, seen::holders, 2, "2 clients read");
            checkHolds(rig, shownReaders, readers, LockInfo.Kind.READ, before, Instant.now());
            readers.forEach(Lease::release);
            awaitHolds(rig, seen::holders, 0, "both readers released");
            before = Instant.now();
            Lease writer = take(rig, rig.client().readWriteLock(rig.name).writeLock().tryAcquire(rig.env.longLease()), "the writer");
            List<LockInfo> shownWriter = awaitHolds(rig, seen::holders, 1, "a writer holds");
            checkHolds(rig, shownWriter, List.of(writer), LockInfo.Kind.WRITE, before, Instant.now());
            writer.release();
            awaitHolds(rig, seen::holders, 0, "the writer released");
        }
    }

    /**
     * Rule 9.10 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("9.10 a revoked permit, reader or writer learns it, its hold is free again at once, and the fence moves")
    default void required_9_10_holdsAreRevocable() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.REVOCATION);
        rig.requireFeature(Feature.INSPECTION);
        boolean semaphores = rig.backend().has(Feature.SEMAPHORE);
        boolean readWrite = rig.backend().has(Feature.READ_WRITE);
        if (!semaphores) {
            rig.requireFeature(Feature.READ_WRITE);
        }
        LockClient operator = rig.client();
        Duration atOnce = rig.env.handOffTimeout().plus(rig.env.tolerance());
        if (semaphores) {
            DistributedSemaphore seen = operator.semaphore(rig.name, 2);
            Lease a = take(rig, rig.client().semaphore(rig.name, 2).tryAcquire(rig.env.longLease()), "A's permit");
            Lease b = take(rig, rig.client().semaphore(rig.name, 2).tryAcquire(rig.env.longLease()), "B's permit");
            DistributedSemaphore theirs = rig.client().semaphore(rig.name, 2);
            Rig.Waiter<Optional<Lease>> c = rig.start("C", () -> rig.track(theirs.tryAcquire(rig.env.longLease(), atOnce.plus(
                    rig.env.defaultTimeout()))));
            rig.awaitBlocked(c);
            LockInfo shownA = awaitHolds(rig, seen::holders, 2, "A and B hold the 2 permits").get(0); // oldest first: A's
            String id = shownA.holdId().orElseThrow(() -> new AssertionError(rig.msg("a permit was shown without a hold id: " + shownA)));
            long start = System.nanoTime();
            Optional<LockInfo> revoked = seen.revoke(id, "tck 9.10: the holder is stuck");
            assertTrue(revoked.isPresent(), rig.msg("revoke of a held permit (" + id + ") answered 'not held'"));
            assertEquals(Optional.of(id), revoked.get().holdId(), rig.msg("revoke of " + id + " named another hold: " + revoked.get()));
            learnsRevoked(rig, a, "A's permit");
            Optional<Lease> leaseC = rig.outcome(c, atOnce.plus(rig.env.defaultTimeout()).plus(rig.env.tolerance()));
            assertTrue(leaseC.isPresent() && TestEnvironment.since(start).compareTo(atOnce.plus(rig.env.tolerance())) <= 0,
                    rig.msg("the revoked permit was not free again at once: C, waiting, " + (leaseC.isPresent() ? "got it only after "
                            + TestEnvironment.millis(TestEnvironment.since(start)) : "did not get it")));
            assertTrue(b.isValid(), rig.msg("revoking A's permit ended B's too"));
            if (rig.backend().has(Feature.LEASE_EXTENSION)) {
                assertTrue(b.extend(rig.env.longLease()), rig.msg("B's permit could not be extended after A's was revoked"));
            }
            fencedAbove(rig, leaseC.get(), a, "C's permit", "the revoked permit");
            assertTrue(seen.revoke(id, "tck 9.10: again").isEmpty(), rig.msg("a second revoke of " + id + " found it held"));
            assertTrue(seen.revoke("no-such-hold", "tck 9.10: unknown").isEmpty(), rig.msg("a revoke of an unknown hold id found it"));
            assertEquals(2, seen.holders().size(), rig.msg("revokes of holds no longer held changed what is held"));
            assertThrows(NullPointerException.class, () -> seen.revoke(null, "x"), rig.msg("a null hold id was accepted"));
            assertThrows(IllegalArgumentException.class, () -> seen.revoke(" ", "x"), rig.msg("a blank hold id was accepted"));
            assertThrows(IllegalArgumentException.class, () -> seen.revoke(id, " "), rig.msg("a blank reason was accepted"));
            rig.notes.add("9.10: revoke to a waiter's permit " + TestEnvironment.millis(TestEnvironment.since(start)));
            b.release();
            leaseC.get().release();
        }
        if (readWrite) {
            DistributedReadWriteLock seen = operator.readWriteLock(rig.name);
            Lease writer = take(rig, rig.client().readWriteLock(rig.name).writeLock().tryAcquire(rig.env.longLease()), "the writer");
            DistributedLock read = rig.client().readWriteLock(rig.name).readLock();
            Rig.Waiter<Optional<Lease>> reader = rig.start("R", () -> rig.track(read.tryAcquire(rig.env.longLease(), atOnce.plus(
                    rig.env.defaultTimeout()))));
            rig.awaitBlocked(reader);
            LockInfo shownWriter = awaitHolds(rig, seen::holders, 1, "a writer holds").get(0);
            assertEquals(LockInfo.Kind.WRITE, shownWriter.kind(), rig.msg("the writer was shown as " + shownWriter));
            long start = System.nanoTime();
            assertTrue(seen.revoke(shownWriter.holdId().orElseThrow(), "tck 9.10: the writer is stuck").isPresent(),
                    rig.msg("revoke of the writer's hold answered 'not held'"));
            learnsRevoked(rig, writer, "the writer");
            Optional<Lease> readLease = rig.outcome(reader, atOnce.plus(rig.env.defaultTimeout()).plus(rig.env.tolerance()));
            assertTrue(readLease.isPresent() && TestEnvironment.since(start).compareTo(atOnce.plus(rig.env.tolerance())) <= 0,
                    rig.msg("the revoked writer's hold was not free again at once: a waiting reader " + (readLease.isPresent()
                            ? "got in only after " + TestEnvironment.millis(TestEnvironment.since(start)) : "did not get in")));
            fencedAbove(rig, readLease.get(), writer, "the reader", "the revoked writer");
            Lease second = take(rig, rig.client().readWriteLock(rig.name).readLock().tryAcquire(rig.env.longLease()), "a second reader");
            LockInfo first = awaitHolds(rig, seen::holders, 2, "2 readers hold").get(0); // the oldest: the reader that waited
            assertTrue(seen.revoke(first.holdId().orElseThrow(), "tck 9.10: one reader is stuck").isPresent(),
                    rig.msg("revoke of a reader's hold answered 'not held'"));
            learnsRevoked(rig, readLease.get(), "the first reader");
            assertTrue(second.isValid(), rig.msg("revoking one reader ended the other's hold too"));
            if (rig.backend().has(Feature.LEASE_EXTENSION)) {
                assertTrue(second.extend(rig.env.longLease()), rig.msg("the other reader could not extend after one was revoked"));
            }
            second.release();
        }
    }

    /** @return the lease an attempt that must succeed got */
    private static Lease take(Rig rig, Optional<Lease> attempt, String what) {
        return rig.track(attempt).orElseThrow(() -> new AssertionError(rig.msg(what + ": a single attempt found it held")));
    }

    /** What holders() lists once it lists {@code count} holds, within the hand-off bound (a replica catching up). */
    private static List<LockInfo> awaitHolds(Rig rig, java.util.function.Supplier<List<LockInfo>> holders, int count, String why) {
        java.util.concurrent.atomic.AtomicReference<List<LockInfo>> shown = new java.util.concurrent.atomic.AtomicReference<>(List.of());
        try {
            rig.env.awaitUntil(rig.msg("waiting for holders() to list " + count + " (" + why + ")"), rig.env.handOffTimeout(),
                    () -> shown.updateAndGet(x -> holders.get()).size() == count);
        } catch (AssertionError e) {
            throw new AssertionError(rig.msg("holders() listed " + shown.get().size() + " of the " + count + " held (" + why + "): "
                    + shown.get()), e);
        }
        return shown.get();
    }

    /** Checks what holders() showed of {@code held}, taken in that order: kinds, ids, owners, tokens, grant times, leases. */
    private static void checkHolds(Rig rig, List<LockInfo> shown, List<Lease> held, LockInfo.Kind kind, Instant before, Instant after) {
        assertTrue(shown.stream().allMatch(info -> info.kind() == kind && info.name().equals(rig.name)),
                rig.msg("holders() showed another kind or name than " + kind + " of '" + rig.name + "': " + shown));
        assertEquals(shown.size(), shown.stream().map(LockInfo::holdId).filter(Optional::isPresent).distinct().count(),
                rig.msg("the holds shown have no hold id, or the same one: " + shown));
        assertEquals(shown.size(), shown.stream().map(LockInfo::owner).filter(o -> o.filter(x -> !x.isBlank()).isPresent())
                .distinct().count(), rig.msg("holds of different clients showed no owner or the same owner: an operator cannot"
                + " tell them apart: " + shown));
        if (rig.backend().has(Feature.FENCING_TOKENS)) {
            List<java.util.OptionalLong> tokens = shown.stream().map(LockInfo::fencingToken).toList();
            List<java.util.OptionalLong> expected = held.stream().map(Lease::fencingToken).toList();
            assertEquals(expected, tokens, rig.msg("holders() showed tokens " + tokens + ", not the holders' " + expected
                    + " oldest first"));
        }
        Duration slack = rig.env.defaultTimeout(); // the server's clock against this JVM's, on one machine
        for (LockInfo info : shown) {
            info.acquiredAt().ifPresent(at -> assertTrue(!at.isBefore(before.minus(slack)) && !at.isAfter(after.plus(slack)),
                    rig.msg("a hold was shown acquired at " + at + ", not between " + before + " and " + after + ": " + info)));
            info.remaining().ifPresent(left -> assertTrue(left.compareTo(rig.env.longLease()) <= 0,
                    rig.msg("a hold was shown with " + TestEnvironment.millis(left) + " left of a lease of "
                            + TestEnvironment.millis(rig.env.longLease()))));
        }
    }

    /** A revoked holder that does not renew learns it by its backend's notice: lost() REVOKED, invalid, no extension. */
    private static void learnsRevoked(Rig rig, Lease lease, String whose) throws InterruptedException {
        Duration notice = rig.env.handOffTimeout().plus(rig.env.tolerance());
        Lease.LossReason reason;
        try {
            reason = lease.lost().toCompletableFuture().get(notice.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError(rig.msg(whose + " still believes its hold valid " + TestEnvironment.millis(notice)
                    + " after it was revoked: its lost() did not complete"), e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError(rig.msg(whose + "'s lost() completed exceptionally: " + e.getCause()), e.getCause());
        }
        assertEquals(Lease.LossReason.REVOKED, reason, rig.msg(whose + "'s lost() completed with " + reason + ", not REVOKED"));
        assertFalse(lease.isValid(), rig.msg(whose + "'s hold is valid after it was revoked"));
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            assertFalse(lease.extend(rig.env.longLease()), rig.msg(whose + "'s extend returned true after its hold was revoked"));
        }
    }

    /** Where the backend has fencing tokens: {@code later}'s is above the revoked {@code earlier}'s. */
    private static void fencedAbove(Rig rig, Lease later, Lease earlier, String laterWhat, String earlierWhat) {
        if (rig.backend().has(Feature.FENCING_TOKENS)) {
            long after = rig.token(later);
            long before = rig.token(earlier);
            assertTrue(after > before, rig.msg(laterWhat + "'s fencing token " + after + " is not above " + earlierWhat + "'s "
                    + before + ": the revoke did not move the fence"));
        }
    }

    /** @return the most leases recorded under any one name that were valid at one instant */
    private static int mostAtOnce(History history) {
        return history.events().stream().map(History.Event::lockName).distinct()
                .mapToInt(name -> HistoryChecker.mostValidAtOnce(history, name)).max().orElse(0);
    }

    /** @return the most leases recorded under {@code name} that were valid at one instant */
    private static int mostAtOnce(History history, String name) {
        return HistoryChecker.mostValidAtOnce(history, name);
    }
}
