package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Group 4 of {@code lock-tck/SPEC.md}, continued: a client whose server falls silent for a while, on
 * links of its own ({@link ClientPartition}) — its close (rule 4.20), a renewal (4.21) and the first
 * reply of a waiting acquire (4.22). What these rules catch is a client that turns silence into a
 * wrong answer or an unbounded wait: a close that waits out one timeout after another, a timeout
 * reported as a lost lease, a retry that takes its own landed write for someone else's. A rule group
 * of {@link LockVerification} (see {@link RuleGroup}).
 */
interface SilenceRules extends RuleGroup {

    /**
     * Rule 4.20: {@code close()} of a client whose every link is blackholed, holding a lease and with
     * a release pending, returns within the operation timeout plus a second for its connections.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.20 close() of a client cut off by a blackhole returns within its bound")
    default void required_4_20_closeUnderABlackhole() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        // What LockClient.close() may take beyond the operation timeout of its last batch: closing connections.
        Duration closeConnections = Duration.ofSeconds(1);
        Duration bound = partition.operationTimeout().plus(closeConnections).plus(rig.env.tolerance());
        try (PartitionedClient a = partition.open()) {
            Lease held = rig.acquireNow(a.client(), rig.env.longLease());
            Lease released = rig.acquireNow(a.client(), rig.name + "-released", rig.env.longLease());
            // Silence from here on: a release the server does not confirm waits in the cleanup, and
            // close() sends it with the held lease into the same silence.
            a.blackholeAll();
            released.release();
            long start = System.nanoTime();
            Rig.Waiter<Boolean> closing = rig.start("close", () -> {
                a.client().close();
                return true;
            });
            Throwable failure = rig.failure(closing, bound.plus(partition.operationTimeout()).plus(rig.env.defaultTimeout()));
            Duration took = Duration.ofNanos(closing.finishedAtNanos - start);
            if (failure != null) {
                throw new AssertionError(rig.msg("close() of a client cut off by a blackhole threw " + failure
                        + " after " + TestEnvironment.millis(took) + ": close() never throws for an unreachable server"), failure);
            }
            assertTrue(took.compareTo(bound) <= 0, rig.msg("close() of a client whose every link was blackholed (a lease held, a"
                    + " release pending) took " + TestEnvironment.millis(took) + "; LockClient.close() promises the operation"
                    + " timeout (" + TestEnvironment.millis(partition.operationTimeout()) + ") + 1 s for closing connections"
                    + " (bound with tolerance " + TestEnvironment.millis(bound) + "): something waited out another timeout"));
            assertFalse(held.isValid(), rig.msg("a lease of a closed client is still valid"));
            rig.notes.add("4.20: close() with every link blackholed (a lease held, a release pending) returned in "
                    + TestEnvironment.millis(took) + " (bound " + TestEnvironment.millis(bound) + ")");
        }
    }

    /**
     * Rule 4.21: a holder whose links fall silent past one extension's timeout, but well within its
     * validity and its session, gets {@link BackendUnavailableException} from {@code extend} — never
     * false — and once the links heal its lease is valid again, never lost, still its own.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.21 a renewal that meets a short silence is unavailable, and the lease lives on")
    default void required_4_21_renewalMeetsAShortSilence() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.LEASE_EXTENSION);
        ClientPartition partition = rig.requirePartition();
        Duration leaseTime = rig.env.longLease();
        Duration extendBound = partition.operationTimeout().plus(rig.env.tolerance());
        assertTrue(extendBound.multipliedBy(2).compareTo(leaseTime) <= 0, rig.msg("the partitioned clients' operation timeout ("
                + TestEnvironment.millis(partition.operationTimeout()) + ") is too long for a silence past it to stay well"
                + " within a lease of " + TestEnvironment.millis(leaseTime)));
        Duration session = partition.sessionTimeout();
        assertTrue(session.isZero() || extendBound.plus(rig.env.tolerance()).compareTo(session) < 0, rig.msg("the partitioned"
                + " clients' operation timeout (" + TestEnvironment.millis(partition.operationTimeout()) + ") does not fit in"
                + " their session (" + TestEnvironment.millis(session) + "): a silence past one extension's timeout would end"
                + " the session; give the partitioned clients a shorter operation timeout (ClientPartition.operationTimeout())"));
        try (PartitionedClient a = partition.open()) {
            Lease lease = rig.acquireNow(a.client(), leaseTime);
            CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
            ValiditySampler validity = new ValiditySampler(lease);
            a.blackholeAll();
            long silent = System.nanoTime();
            Rig.Waiter<Boolean> extending = rig.start("A-extend", () -> lease.extend(leaseTime));
            rig.env.awaitUntil(rig.msg("waiting for A's extend during the silence to end"), extendBound.plus(rig.env.defaultTimeout()),
                    () -> {
                        validity.sample();
                        return extending.result.isDone();
                    });
            Duration extendTook = Duration.ofNanos(extending.finishedAtNanos - silent);
            Throwable failure = rig.failure(extending, Duration.ZERO);
            if (failure == null) {
                fail(rig.msg("A's extend during a silence returned " + extending.result.join() + " after "
                        + TestEnvironment.millis(extendTook) + (extending.result.join() ? " although nothing got through"
                        : ": a renewal nobody answered was reported as lost; with no answer it must throw"
                        + " BackendUnavailableException and leave the lease as it was")));
            }
            if (!(failure instanceof BackendUnavailableException)) {
                throw new AssertionError(rig.msg("A's extend during a silence failed with " + failure
                        + " instead of BackendUnavailableException"), failure);
            }
            assertTrue(extendTook.compareTo(extendBound) <= 0, rig.msg("A's extend during a silence took "
                    + TestEnvironment.millis(extendTook) + ", more than the operation timeout + tolerance ("
                    + TestEnvironment.millis(extendBound) + ")"));
            long healed = System.nanoTime();
            a.healAll();
            Duration silence = Duration.ofNanos(healed - silent);
            Duration backBound = partition.reconnect().plus(rig.env.tolerance());
            rig.env.awaitUntil(rig.msg("waiting for A's lease to be valid again after a silence of " + TestEnvironment.millis(silence)
                    + " (within its validity" + (session.isZero() ? "" : " and its session of " + TestEnvironment.millis(session))
                    + "); lost(): " + (lost.isDone() ? lost.join() : "not completed")), backBound, validity::sample);
            Duration back = TestEnvironment.since(healed);
            assertFalse(lost.isDone(), rig.msg("A's lost() completed with " + (lost.isDone() ? lost.join() : null) + " after a"
                    + " silence of " + TestEnvironment.millis(silence) + " well within its validity: no answer is no loss"));
            Optional<Lease> other = rig.track(rig.client().lock(rig.name).tryAcquire(rig.env.shortLease()));
            assertTrue(other.isEmpty(), rig.msg("another client acquired the lock that A holds, after A's silence healed"));
            // A client may notice the silence only after it ended (its connection given up to a heartbeat
            // timeout that fell due just then) and be reconnecting still: an extension may meet that and be
            // unavailable, and is made again until the reconnect bound. It must never report the lease lost.
            // The last attempt may start at the bound and take two operation timeouts: its own call, after
            // one the client's check of its holds on the reconnect was making on the same lease.
            List<String> unavailable = new CopyOnWriteArrayList<>();
            Duration lastAttempt = partition.operationTimeout().multipliedBy(2).plus(rig.env.tolerance());
            boolean extended = rig.env.awaitPossibly(backBound.plus(lastAttempt), () -> {
                if (System.nanoTime() - healed - backBound.toNanos() > 0) {
                    return false; // no attempt starts past the bound
                }
                try {
                    assertTrue(lease.extend(leaseTime), rig.msg("A's extend after the silence healed returned false:"
                            + " a lease that lived on was reported lost"));
                    return true;
                } catch (BackendUnavailableException e) {
                    unavailable.add(TestEnvironment.millis(TestEnvironment.since(healed)) + " after the heal: "
                            + e.getMessage());
                    return false;
                }
            });
            assertTrue(extended, rig.msg("A could not extend its lease within " + TestEnvironment.millis(backBound)
                    + " of the heal; each attempt was unavailable: " + unavailable));
            assertFalse(lost.isDone(), rig.msg("A's lost() completed after the silence healed"));
            lease.release();
            rig.acquireWithin(rig.client(), rig.env.shortLease(), rig.env.handOffTimeout().plus(rig.env.tolerance()),
                    "after A released, nobody could acquire").release();
            rig.notes.add("4.21: A's extend threw BackendUnavailableException after " + TestEnvironment.millis(extendTook)
                    + "; silence of " + TestEnvironment.millis(silence) + "; the lease was invalid for "
                    + TestEnvironment.millis(validity.invalidFor()) + " in all, valid " + TestEnvironment.millis(back)
                    + " after the heal; lost() never completed"
                    + (unavailable.isEmpty() ? "" : "; its extension after the heal was unavailable first: " + unavailable));
        }
    }

    /**
     * Rule 4.22: a waiting acquire of a free lock whose first attempt's write lands but whose reply
     * is lost still ends with the lease: the backend recognises its own write (or removes it and
     * tries again) within the wait, rather than waiting on itself until the wait runs out.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.22 a waiting acquire whose first reply is lost still ends with the lease")
    default void required_4_22_waitOutlivesItsLostFirstReply() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        // Room for the lost attempt (an operation timeout), the client's reconnect, a retry that may
        // first remove what the lost attempt wrote (another operation timeout) and a hand-off.
        Duration maxWait = partition.operationTimeout().multipliedBy(2).plus(partition.reconnect())
                .plus(rig.env.handOffTimeout());
        try (PartitionedClient a = partition.open()) {
            DistributedLock lock = a.client().lock(rig.name);
            a.holdAllReplies();
            long start = System.nanoTime();
            Rig.Waiter<Optional<Lease>> waiter = rig.start("A", () -> rig.track(lock.tryAcquire(rig.env.longLease(), maxWait)));
            rig.env.awaitUntil(rig.msg("waiting for A's first request to reach the server (its reply held back)"), a::inFlight);
            long sentAtDrop = a.requestsSent();
            a.dropAll(); // the held reply is lost with the connection; the write it answers stays
            rig.awaitRetry(a, sentAtDrop, "A's client");
            long healed = System.nanoTime();
            a.healAll();
            Throwable failure = rig.failure(waiter, maxWait.plus(partition.operationTimeout()).plus(rig.env.tolerance()));
            Duration took = Duration.ofNanos(waiter.finishedAtNanos - start);
            if (failure != null) {
                throw new AssertionError(rig.msg("A's wait of " + TestEnvironment.millis(maxWait) + " on a free lock, whose first"
                        + " reply was lost while its write landed, ended with " + failure + " after " + TestEnvironment.millis(took)
                        + " (" + TestEnvironment.millis(Duration.ofNanos(waiter.finishedAtNanos - healed)) + " after the heal):"
                        + " it must end with the lease"), failure);
            }
            Optional<Lease> got = waiter.result.join();
            assertTrue(got.isPresent(), rig.msg("A's wait of " + TestEnvironment.millis(maxWait) + " on a free lock, whose first"
                    + " reply was lost while its write landed, ended empty (contention) after " + TestEnvironment.millis(took)
                    + ": the retry did not recognise A's own write, which held the lock"));
            assertTrue(got.get().isValid(), rig.msg("A's wait ended with a lease that is not valid"));
            rig.notes.add("4.22: A's wait ended with the lease " + TestEnvironment.millis(Duration.ofNanos(waiter.finishedAtNanos
                    - healed)) + " after the heal (" + TestEnvironment.millis(took) + " after it began; maxWait "
                    + TestEnvironment.millis(maxWait) + ")");
            got.get().release();
            rig.acquireWithin(rig.client(), rig.env.shortLease(), rig.env.handOffTimeout().plus(rig.env.tolerance()),
                    "after A released the lease its wait ended with, nobody could acquire: A's first write was left held")
                    .release();
        }
    }
}
