package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Group 4 of {@code lock-tck/SPEC.md}, continued: one client cut off from its servers while the
 * others are not (rules 4.9–4.12 and 4.14), on links of its own ({@link ClientPartition}). What
 * these rules catch is a lock that lies under partial failure: a removal forgotten because the
 * server was away when it was asked for, "unreachable" reported as "busy", a write that lands
 * after its cleanup. After every heal, the lock must be free again within the hand-off bound
 * (plus the client's reconnect time), long before the lease left behind would have ended.
 * A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface PartitionRules extends RuleGroup {

    /**
     * Rule 4.9: a release while the client is cut off returns promptly, and the lock is removed on
     * the server once the link heals.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.9 a release during a partition returns promptly and is carried out after it heals")
    default void required_4_9_releaseDuringPartition() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        try (PartitionedClient a = partition.open()) {
            Lease lease = rig.acquireNow(a.client(), rig.env.longLease());
            a.dropAll();
            long start = System.nanoTime();
            lease.release();
            Duration took = TestEnvironment.since(start);
            assertTrue(took.compareTo(partition.operationTimeout().plus(rig.env.tolerance())) <= 0, rig.msg("release() took "
                    + TestEnvironment.millis(took) + " with the server unreachable: it must not wait for the server longer"
                    + " than the operation timeout (" + TestEnvironment.millis(partition.operationTimeout()) + ")"));
            assertFalse(lease.isValid(), rig.msg("a released lease is valid while its release waits for the server"));
            DistributedLock lockB = rig.client().lock(rig.name);
            Rig.Waiter<Optional<Lease>> b = rig.start("B", () -> rig.track(lockB.tryAcquire(rig.env.longLease(),
                    rig.env.defaultTimeout().plus(rig.afterHeal(partition)))));
            rig.awaitBlocked(b);
            if (b.result.isDone()) {
                Duration session = partition.sessionTimeout();
                fail(rig.msg("B got " + rig.outcome(b, Duration.ZERO) + " while A's release could not reach the server"
                        + " (A cut off for " + TestEnvironment.millis(TestEnvironment.since(start)) + (session.isZero() ? ""
                        : "; its session of " + TestEnvironment.millis(session) + " must outlast that, or the server ends it"
                        + " and frees the lock before the release this rule tests: see ClientPartition.sessionTimeout()")
                        + ")"));
            }
            long healed = System.nanoTime();
            a.healAll();
            assertTrue(rig.outcome(b, rig.env.defaultTimeout().plus(rig.afterHeal(partition)).plus(rig.env.tolerance())).isPresent(),
                    rig.msg("B never got the lock after the partition healed: A's release was forgotten"));
            Duration handOff = Duration.ofNanos(b.finishedAtNanos - healed);
            assertTrue(handOff.compareTo(rig.afterHeal(partition)) <= 0, rig.msg("B got the lock " + TestEnvironment.millis(handOff)
                    + " after the partition healed; at most " + TestEnvironment.millis(rig.afterHeal(partition)) + " expected"
                    + " (A's lease of " + TestEnvironment.millis(rig.env.longLease()) + " was released during the partition)"));
            rig.notes.add("4.9: release() returned in " + TestEnvironment.millis(took) + "; B acquired "
                    + TestEnvironment.millis(handOff) + " after the heal");
        }
    }

    /**
     * Rule 4.10: a waiter whose wait ends while it is cut off leaves nothing in the lock's way
     * once the link heals (a queue-based backend must withdraw its request).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.10 a waiter whose wait ends during a partition leaves nothing behind")
    default void required_4_10_waitEndsDuringPartition() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        Lease holder = rig.acquireNow(rig.client(), rig.env.longLease());
        // The cut must fall inside W's wait, or W withdraws its request over a healthy link and the
        // rule proves nothing: a wait long enough for a loaded machine, and a retry with a fresh
        // waiter (twice as long) in the rare run where W's wait still ended before the cut.
        Duration maxWait = rig.env.scaled(Duration.ofSeconds(2));
        for (int round = 1; ; round++) {
            try (PartitionedClient w = partition.open()) {
                DistributedLock lock = w.client().lock(rig.name);
                long beforeW = w.requestsSent();
                Duration wait = maxWait;
                Rig.Waiter<Optional<Lease>> waiter = rig.start("W", () -> rig.track(lock.tryAcquire(rig.env.longLease(), wait)));
                // Parked after its request went out: a thread can park before it sends anything, and a
                // cut made then would leave no request on the server, and the rule nothing to check.
                rig.env.awaitUntil(rig.msg("waiting for W's first request to go out"), rig.env.defaultTimeout(),
                        () -> w.requestsSent() > beforeW);
                rig.awaitBlocked(waiter);
                w.dropAll();
                long droppedAt = System.nanoTime();
                long sentAtDrop = w.requestsSent();
                Throwable failure = rig.failure(waiter, maxWait.plus(partition.operationTimeout()).plus(rig.env.tolerance()));
                long sentAtEnd = w.requestsSent();
                if (waiter.finishedAtNanos - droppedAt < 0 && round < 3) {
                    rig.notes.add("4.10: W's wait of " + TestEnvironment.millis(maxWait) + " ended before the cut (round " + round
                            + "); again with a fresh waiter");
                    maxWait = maxWait.multipliedBy(2);
                    continue;
                }
                if (failure != null && !(failure instanceof BackendUnavailableException)) {
                    throw new AssertionError(rig.msg("the waiter cut off from the server failed with " + failure
                            + "; a wait that ends is empty (contention) or a BackendUnavailableException (no answer)"), failure);
                }
                if (failure == null) {
                    assertTrue(waiter.result.join().isEmpty(), rig.msg("the waiter was granted the lock while another client held it"));
                }
                rig.awaitRetry(w, sentAtDrop, "the waiter's client");
                // A withdrawal the client queued as its wait ended goes out on a thread of its own:
                // let it meet the cut before the heal, or it would find the server back and hide a
                // withdrawal that is forgotten when it fails. A client that withdrew on the caller's
                // thread sends nothing more; the wait for one is short either way.
                rig.env.awaitPossibly(rig.env.tolerance(), () -> w.requestsSent() > sentAtEnd);
                holder.release();
                healAndExpectFree(rig, w, rig.afterHeal(partition).plus(rig.env.tolerance()), "4.10", "after the holder released and the"
                        + " partition healed, nobody could acquire: the waiter's request was left in the lock's way");
                return;
            }
        }
    }

    /**
     * Rule 4.11: an acquire whose request reached the server but whose reply was lost is an
     * unknown outcome — a {@link BackendUnavailableException}, never a lease or contention — and
     * whatever it wrote is removed once the link heals.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.11 an acquire whose reply is lost fails as unavailable and leaves nothing held")
    default void required_4_11_lostReplyLeavesNothingHeld() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        try (PartitionedClient a = partition.open()) {
            DistributedLock lock = a.client().lock(rig.name);
            a.holdAllReplies();
            Rig.Waiter<Optional<Lease>> attempt = rig.start("A", () -> rig.track(lock.tryAcquire(rig.env.longLease())));
            rig.env.awaitUntil(rig.msg("waiting for A's request to reach the server (its reply held back)"), a::inFlight);
            a.dropAll(); // the held reply is lost with the connection
            Throwable failure = rig.failure(attempt, partition.operationTimeout().plus(rig.env.tolerance()));
            if (failure == null) {
                fail(rig.msg("A's single attempt returned " + attempt.result.join() + " although its reply was lost: an unknown"
                        + " outcome must be a BackendUnavailableException"));
            }
            if (!(failure instanceof BackendUnavailableException)) {
                throw new AssertionError(rig.msg("A's attempt whose reply was lost failed with " + failure
                        + " instead of BackendUnavailableException"), failure);
            }
            rig.awaitRetry(a, a.requestsSent(), "A's client");
            healAndExpectFree(rig, a, rig.afterHeal(partition).plus(rig.env.tolerance()), "4.11", "after the partition healed nobody"
                    + " could acquire: what A's lost-reply acquire wrote was left held (its lease was "
                    + TestEnvironment.millis(rig.env.longLease()) + ")");
        }
    }

    /**
     * Rule 4.12: a blackholed server (connections accepted, nothing answered) is unavailable, not
     * busy: single attempts throw in time, waiting acquires throw when their wait ends. On a quorum
     * backend, a blackholed majority of links never yields an empty result either.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.12 a blackholed server is unavailable, never busy")
    default void required_4_12_blackholeIsUnavailableNotBusy() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        Duration inTime = partition.operationTimeout().plus(rig.env.tolerance());
        try (PartitionedClient a = partition.open()) {
            DistributedLock lock = a.client().lock(rig.name);
            a.blackholeAll();
            long start = System.nanoTime();
            expectUnavailable(rig, () -> lock.tryAcquire(rig.env.longLease()), "a single attempt on a blackholed server");
            Duration took = TestEnvironment.since(start);
            assertTrue(took.compareTo(inTime) <= 0, rig.msg("a single attempt on a blackholed server took "
                    + TestEnvironment.millis(took) + ", more than the operation timeout + tolerance ("
                    + TestEnvironment.millis(inTime) + ")"));
            Duration single = took;
            Duration maxWait = rig.env.shortWait();
            start = System.nanoTime();
            expectUnavailable(rig, () -> lock.tryAcquire(rig.env.longLease(), maxWait), "a waiting acquire on a blackholed server");
            took = TestEnvironment.since(start);
            assertTrue(took.compareTo(maxWait.plus(inTime)) <= 0, rig.msg("a waiting acquire of at most "
                    + TestEnvironment.millis(maxWait) + " on a blackholed server took " + TestEnvironment.millis(took)));
            rig.notes.add("4.12: on a blackholed server a single attempt threw after " + TestEnvironment.millis(single)
                    + ", a waiting acquire of " + TestEnvironment.millis(maxWait) + " after " + TestEnvironment.millis(took)
                    + " (bounds " + TestEnvironment.millis(inTime) + " and " + TestEnvironment.millis(maxWait.plus(inTime)) + ")");
            a.healAll();
            Lease next = rig.acquireWithin(rig.client(), rig.env.shortLease(), rig.afterHeal(partition).plus(inTime),
                    "after the blackhole healed nobody could acquire: the attempts that went into it left the lock held");
            next.release();
        }
        try (PartitionedClient a = partition.open()) {
            List<ClientLink> links = a.links();
            if (links.size() < 3) {
                return; // a single node: blackholing "a majority" is the case above
            }
            for (int i = 0; i < links.size() / 2 + 1; i++) {
                links.get(i).blackhole();
            }
            long start = System.nanoTime();
            Optional<Lease> got = Optional.empty();
            try {
                got = rig.track(a.client().lock(rig.name + "-majority").tryAcquire(rig.env.longLease()));
                assertTrue(got.isPresent(), rig.msg("with a majority of its links blackholed and the lock free, a single attempt"
                        + " returned empty: an unreachable majority was reported as contention"));
            } catch (BackendUnavailableException expected) {
                // the honest answer when no quorum can be reached
            }
            // The attempt is what is bounded; a release through the same links is another call.
            Duration took = TestEnvironment.since(start);
            got.ifPresent(Lease::release);
            assertTrue(took.compareTo(inTime) <= 0,
                    rig.msg("with a majority blackholed a single attempt took " + TestEnvironment.millis(took)));
        }
    }

    /**
     * Rule 4.14: an acquire interrupted while its write is in flight (the server frozen, as seen
     * from the client: its link blackholed) reports the interrupt, and nothing stays held when the
     * write lands afterwards.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.14 an acquire interrupted while its write is in flight leaves nothing held")
    default void required_4_14_interruptedInFlightLeavesNothingHeld() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        try (PartitionedClient a = partition.open()) {
            DistributedLock lock = a.client().lock(rig.name);
            a.blackholeAll();
            long sentBefore = a.requestsSent();
            Rig.Waiter<Lease> acquirer = rig.start("A", () -> rig.track(lock.acquire(rig.env.longLease())));
            rig.env.awaitUntil(rig.msg("waiting for A's acquire to be in flight"), a::inFlight);
            acquirer.thread.interrupt();
            Throwable failure = rig.failure(acquirer, partition.operationTimeout().plus(rig.env.tolerance()));
            if (!(failure instanceof InterruptedException)) {
                fail(rig.msg("A's acquire, interrupted while its write was in flight, ended with "
                        + (failure == null ? "a lease" : failure.toString()) + " instead of InterruptedException"));
            }
            // The frozen path thaws only once A has given up and sent something more (its cleanup):
            // A's write then lands late, as a frozen server's would, racing that cleanup.
            rig.env.awaitUntil(rig.msg("waiting for A's client to send something after its acquire"),
                    partition.operationTimeout().plus(rig.env.defaultTimeout()), () -> a.requestsSent() > sentBefore + 1);
            healAndExpectFree(rig, a, rig.afterHeal(partition).plus(partition.operationTimeout()).plus(rig.env.tolerance()), "4.14",
                    "after the path thawed nobody could acquire: A's interrupted acquire, whose write landed late, left the"
                            + " lock held");
        }
    }

    /**
     * Rule 4.16: a client cut off long enough to lose its lease — and its session, on a session
     * store ({@link ClientPartition#sessionTimeout()}, plus a hand-off's slack) — serves again once the
     * partition heals: a waiting acquire of a free lock is granted within the reconnect time and
     * the hand-off bound, never reported as busy (the lock is free) nor as unavailable for good.
     * Catches a client that never lifts its own suspension after a lost session, so that every
     * later grant is given back.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.16 a client cut off until its lease is lost serves again once the partition heals")
    default void required_4_16_servesAgainAfterALongPartition() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        try (PartitionedClient a = partition.open()) {
            Lease lease = rig.acquireNow(a.client(), rig.env.shortLease());
            a.dropAll();
            long cut = System.nanoTime();
            rig.env.awaitUntil(rig.msg("waiting for A's lease to end while A is cut off"), rig.env.defaultTimeout(),
                    () -> !lease.isValid());
            // The outage is the fault this rule models, so it sleeps (as rule 4.1's pause does): long
            // enough for the server to end A's session, with a hand-off's slack for its expiry to run.
            Duration pastSession = partition.sessionTimeout().plus(rig.env.handOffTimeout());
            Duration outage = pastSession.compareTo(rig.env.defaultTimeout()) > 0 ? pastSession : rig.env.defaultTimeout();
            Duration left = outage.minus(TestEnvironment.since(cut));
            if (!left.isNegative()) {
                Thread.sleep(left.toMillis());
            }
            long healed = System.nanoTime();
            a.healAll();
            Duration bound = rig.afterHeal(partition).plus(partition.operationTimeout()).plus(rig.env.tolerance());
            DistributedLock other = a.client().lock(rig.name + "-after");
            Optional<Lease> again;
            try {
                again = rig.track(other.tryAcquire(rig.env.longLease(), bound));
            } catch (BackendUnavailableException e) {
                throw new AssertionError(rig.msg("A could not acquire a free lock within " + TestEnvironment.millis(bound)
                        + " of the heal, after a cut of " + TestEnvironment.millis(outage) + ": " + e.getMessage()), e);
            }
            assertTrue(again.isPresent(), rig.msg("A's acquire of a free lock came back empty (contention) "
                    + TestEnvironment.millis(TestEnvironment.since(healed)) + " after the heal, after a cut of "
                    + TestEnvironment.millis(outage) + ": the client does not serve again"));
            rig.notes.add("4.16: served again " + TestEnvironment.millis(TestEnvironment.since(healed)) + " after a cut of "
                    + TestEnvironment.millis(outage));
            again.get().release();
        }
    }

    /**
     * Rule 4.17: a client that reaches several nodes, one of whose links holds everything it is
     * sent (a frozen or partitioned node: the bytes arrive once it wakes), takes and releases the
     * lock several times through the others; then the link heals and the held requests arrive,
     * late. None of them may take the lock: another client must acquire it within the hand-off
     * bound. Catches a driver that sends an acquire again past a node that did not answer and,
     * once that request is released, lets the late copy bring its write back to hold the lock for
     * nobody. A client with one link has no other path: the rule does not apply to it.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.17 writes held by one node's link and delivered late take nothing after the release")
    default void required_4_17_lateCopiesOfReleasedRequestsTakeNothing() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        try (PartitionedClient a = partition.open()) {
            List<ClientLink> links = a.links();
            assumeTrue(links.size() > 1, () -> VerdictExtension.DOES_NOT_APPLY + "backend '" + rig.backend().scheme()
                    + "' reaches its server through one link: a request has no other path to take");
            links.get(0).blackhole();
            long held = System.nanoTime();
            int granted = 0;
            int rounds = 0;
            // A lock per round: a late copy of any of them that takes its lock fails the rule. The link
            // holds its bytes for less than a lease time: a copy held longer may take its lock for up to
            // a lease time, as a crashed client's would (the engine sweeps for a lease time after the last write).
            Duration holdFor = rig.env.longLease().dividedBy(4);
            while (rounds < 6 && (granted == 0 || TestEnvironment.since(held).compareTo(holdFor) < 0)) {
                int i = rounds++;
                Optional<Lease> lease;
                try {
                    lease = rig.track(a.client().lock(rig.name + "-" + i).tryAcquire(rig.env.longLease(),
                            rig.env.defaultTimeout().plus(partition.operationTimeout())));
                } catch (BackendUnavailableException e) {
                    continue; // no way around the held link this time: nothing was granted
                }
                assertTrue(lease.isPresent(), rig.msg("A's acquire of a free lock came back empty with one of "
                        + links.size() + " links holding its bytes"));
                granted++;
                lease.get().release();
            }
            assertTrue(granted > 0, rig.msg("A was never granted a free lock in " + rounds + " tries with one of " + links.size()
                    + " links holding its bytes: the other nodes did not serve it"));
            links.get(0).heal();
            long healed = System.nanoTime();
            rig.env.awaitUntil(rig.msg("waiting for the held bytes to reach the node"), rig.env.defaultTimeout(),
                    () -> !links.get(0).inFlight());
            Duration bound = rig.afterHeal(partition).plus(partition.operationTimeout()).plus(rig.env.tolerance());
            LockClient b = rig.client();
            for (int i = 0; i < rounds; i++) {
                Optional<Lease> free = rig.track(b.lock(rig.name + "-" + i).tryAcquire(rig.env.shortLease(), bound));
                assertTrue(free.isPresent(), rig.msg("after A's held requests arrived late, nobody could acquire lock " + i
                        + " of " + rounds + ", which A had released, within " + TestEnvironment.millis(bound)
                        + ": a late copy of A's acquire took it"));
                free.get().release();
            }
            rig.notes.add("4.17: A was granted " + granted + " of " + rounds + " free locks while one link held its bytes for "
                    + TestEnvironment.millis(Duration.ofNanos(healed - held)) + "; every lock was free "
                    + TestEnvironment.millis(TestEnvironment.since(healed)) + " after the heal");
        }
    }

    /**
     * Rule 4.18: a grant whose reply arrives after the lease's validity has passed (a slow server or
     * network, within the operation timeout) cannot be used — but the lock was free: the attempt is
     * unavailable, never contention, and the grant is given back. Catches a late grant reported as
     * busy, by the engine or by a driver that measures its own round trip.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.18 a grant that arrives after its validity is unavailable, never busy, and is given back")
    default void required_4_18_lateGrantIsUnavailableNotBusy() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        // A lease a quarter of the operation timeout: its reply is held past the lease and delivered
        // well before the client would give up on it.
        Duration lease = partition.operationTimeout().dividedBy(4);
        Duration hold = lease.plus(partition.operationTimeout().dividedBy(8));
        assumeTrue(lease.compareTo(DistributedLock.MIN_LEASE_TIME.multipliedBy(4)) >= 0, () -> VerdictExtension.DOES_NOT_APPLY
                + "the partitioned clients' operation timeout (" + TestEnvironment.millis(partition.operationTimeout())
                + ") leaves no room for a lease that a reply can outlast before the client gives up on it");
        try (PartitionedClient a = partition.open()) {
            DistributedLock lock = a.client().lock(rig.name);
            a.holdAllReplies();
            long start = System.nanoTime();
            Rig.Waiter<Optional<Lease>> attempt = rig.start("A", () -> rig.track(lock.tryAcquire(lease)));
            rig.env.awaitUntil(rig.msg("waiting for A's request to reach the server (its reply held back)"), a::inFlight);
            // The slow reply is the fault this rule models, so it sleeps (as rule 4.1's pause does):
            // until the lease time of A's attempt has passed since it was sent.
            Duration left = hold.minus(TestEnvironment.since(start));
            if (!left.isNegative()) {
                Thread.sleep(left.toMillis());
            }
            a.healAll();
            Throwable failure = rig.failure(attempt, partition.operationTimeout().plus(rig.env.tolerance()));
            if (failure == null) {
                Optional<Lease> result = attempt.result.join();
                fail(rig.msg("A's single attempt, whose reply was held for " + TestEnvironment.millis(hold) + " (its lease: "
                        + TestEnvironment.millis(lease) + "), returned " + (result.isPresent() ? "a lease, valid: "
                        + result.get().isValid() : "empty (contention) although the lock was free: a grant that arrived after its"
                        + " validity was reported as busy") + "; it must be a BackendUnavailableException"));
            }
            if (!(failure instanceof BackendUnavailableException)) {
                throw new AssertionError(rig.msg("A's attempt whose grant arrived late failed with " + failure
                        + " instead of BackendUnavailableException"), failure);
            }
            rig.notes.add("4.18: reply held " + TestEnvironment.millis(hold) + " on a lease of " + TestEnvironment.millis(lease)
                    + ": " + failure.getMessage());
            Lease next = rig.acquireWithin(rig.client(), rig.env.shortLease(), rig.afterHeal(partition).plus(rig.env.tolerance()),
                    "after A's late grant nobody could acquire: it was not given back");
            next.release();
        }
    }

    /** Heals {@code client}'s links; a fresh client must then get the lock within {@code bound}. */
    private static void healAndExpectFree(Rig rig, PartitionedClient client, Duration bound, String rule, String why)
            throws InterruptedException {
        long healed = System.nanoTime();
        client.healAll();
        Lease next = rig.acquireWithin(rig.client(), rig.env.shortLease(), bound, why);
        rig.notes.add(rule + ": the lock was free " + TestEnvironment.millis(TestEnvironment.since(healed)) + " after the heal");
        next.release();
    }

    private static void expectUnavailable(Rig rig, Rig.Action<Optional<Lease>> action, String what) {
        try {
            Optional<Lease> result = rig.track(action.run());
            fail(rig.msg(what + " returned " + (result.isPresent() ? "a lease" : "empty (contention)")
                    + " instead of throwing BackendUnavailableException"));
        } catch (BackendUnavailableException expected) {
            assertTrue(expected.endpoint() != null && !expected.endpoint().isBlank(), rig.msg("the exception names no endpoint"));
        } catch (AssertionError e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(rig.msg(what + " failed with " + e + " instead of BackendUnavailableException"), e);
        }
    }
}
