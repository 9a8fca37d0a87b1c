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
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Group 4 of {@code lock-tck/SPEC.md}, continued: a client's session ends on the server while a
 * grant to it is on its way (rule 4.19). A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface SessionRules extends RuleGroup {

    /**
     * Rule 4.19: the server grants A's request, then A's session ends before A has recorded the
     * grant (its answer held on A's link; on a client with other routes, A hears of the end there
     * first, as a thread stalled between the answer and the record would). A's attempt must be
     * unavailable, or its lease must be lost — never a valid lease next to another client's.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.19 a grant whose session ended before it was recorded is never a valid lease")
    default void required_4_19_grantOfAnEndedSessionIsNeverValid() throws InterruptedException {
        Rig rig = Rig.of(this);
        ClientPartition partition = rig.requirePartition();
        SessionEnd end = requireSessionEnd(rig, partition);
        Optional<String> impossible = end.impossibleBecause();
        assumeTrue(impossible.isEmpty(), () -> VerdictExtension.DOES_NOT_APPLY + "no session of '" + rig.backend().scheme()
                + "' can end under a grant: " + impossible.orElse(""));
        Duration bound = rig.env.defaultTimeout().plus(rig.afterHeal(partition)).plus(partition.operationTimeout());
        try (PartitionedClient a = partition.open()) {
            DistributedLock lockA = a.client().lock(rig.name);
            a.holdAllReplies();
            Rig.Waiter<Optional<Lease>> attempt = rig.start("A", () -> rig.track(lockA.tryAcquire(rig.env.longLease())));
            rig.env.awaitUntil(rig.msg("waiting for A's request to reach the server (its reply held back)"), a::inFlight);
            end.endSession(a.client(), rig.name);
            String staged = hearOfTheEndFirst(rig, a, bound);
            long healed = System.nanoTime();
            a.healAll();

            Lease leaseA = outcomeOf(rig, attempt, partition);
            CompletableFuture<Lease.LossReason> lostA = leaseA == null ? null : leaseA.lost().toCompletableFuture();
            LockClient b = rig.client();
            DistributedLock lockB = b.lock(rig.name);
            long deadline = System.nanoTime() + bound.toNanos();
            while (true) {
                boolean validBefore = leaseA != null && leaseA.isValid();
                Optional<Lease> got;
                try {
                    got = rig.track(lockB.tryAcquire(rig.env.longLease()));
                } catch (BackendUnavailableException reconnecting) {
                    got = null;
                }
                boolean validAfter = leaseA != null && leaseA.isValid();
                if (got != null && got.isPresent()) {
                    Lease leaseB = got.get();
                    assertTrue(!(validBefore && validAfter), () -> rig.msg("two valid leases: A's (token " + leaseA.fencingToken()
                            + "), granted by a session that ended before A recorded it, and B's (token " + leaseB.fencingToken()
                            + "), granted " + TestEnvironment.millis(TestEnvironment.since(healed)) + " after A's answer was"
                            + " delivered (" + staged + ")"));
                    expectLost(rig, leaseA, lostA, healed, bound, leaseB, staged);
                    rig.notes.add("4.19 (" + staged + "): A's attempt " + (leaseA == null ? "was unavailable"
                            : "gave a lease, lost (" + lostA.join() + ") " + TestEnvironment.millis(TestEnvironment.since(healed))
                            + " after the answer was delivered at the latest") + "; B acquired "
                            + TestEnvironment.millis(TestEnvironment.since(healed)) + " after it");
                    leaseB.release();
                    return;
                }
                if (got != null && validBefore && validAfter) {
                    // The server refused B while A's lease was valid: A holds a lock the server keeps for
                    // it — its driver tried again on a new session. That lease must work as any other.
                    leaseA.release();
                    rig.acquireWithin(b, rig.env.shortLease(), rig.env.handOffTimeout(), "B could not acquire after A released"
                            + " the lease its attempt got on a new session").release();
                    rig.notes.add("4.19 (" + staged + "): A's attempt was granted again on a new session; B was refused while it"
                            + " held, and acquired after its release");
                    return;
                }
                assertTrue(System.nanoTime() - deadline < 0, rig.msg("B could not acquire within " + TestEnvironment.millis(bound)
                        + " after A's session ended and its answer was delivered, and A holds no valid lease ("
                        + (leaseA == null ? "its attempt was unavailable" : "its lease is " + leaseA) + "): the grant of the"
                        + " ended session was left held (" + staged + ")"));
                Thread.sleep(rig.env.pollInterval().toMillis());
            }
        }
    }

    /**
     * On a client with routes that hold nothing (links to other nodes), heals those and has the client
     * take another lock over them, so that it has heard of its session's end — and moved to a new
     * session — before the held answer arrives: what a driver thread stalled between the answer and its
     * record meets when it wakes up.
     *
     * @return how the rule was staged, for messages
     */
    private static String hearOfTheEndFirst(Rig rig, PartitionedClient a, Duration bound) {
        List<ClientLink> idle = a.links().stream().filter(link -> !link.inFlight()).collect(Collectors.toList());
        if (idle.isEmpty()) {
            return "the answer delivered, then the end of the session";
        }
        idle.forEach(ClientLink::heal);
        DistributedLock other = a.client().lock(rig.name + "-other");
        Lease[] taken = {null};
        rig.env.awaitUntil(rig.msg("waiting for A's client to take another lock over its other routes, on a new session"), bound,
                () -> {
                    try {
                        taken[0] = rig.track(other.tryAcquire(rig.env.longLease())).orElse(null);
                    } catch (BackendUnavailableException stillReconnecting) {
                        return false;
                    }
                    return taken[0] != null;
                });
        taken[0].release();
        return "the end of the session heard over " + idle.size() + " other route(s) first, then the answer delivered";
    }

    /** A's attempt: a lease, or null for "unavailable"; never empty, never another failure. */
    private static Lease outcomeOf(Rig rig, Rig.Waiter<Optional<Lease>> attempt, ClientPartition partition) throws InterruptedException {
        Throwable failure = rig.failure(attempt, partition.operationTimeout().plus(rig.env.tolerance()));
        if (failure instanceof BackendUnavailableException) {
            return null;
        }
        if (failure != null) {
            throw new AssertionError(rig.msg("A's attempt failed with " + failure + "; a grant whose session ended is given back"
                    + " and reported as BackendUnavailableException"), failure);
        }
        Optional<Lease> granted = attempt.result.join();
        if (granted.isEmpty()) {
            fail(rig.msg("A's attempt returned empty (contention), but the server granted the free lock to A before A's session"
                    + " ended: an attempt that cannot use its grant is unavailable, never busy"));
        }
        return granted.get();
    }

    /**
     * A's lease, if any, must be lost by now or soon — {@code lost()} completes — and stay invalid
     * while B holds the lock (a lease the next session's confirmations turned valid again is what
     * this rule catches).
     */
    private static void expectLost(Rig rig, Lease leaseA, CompletableFuture<Lease.LossReason> lostA, long healed, Duration bound,
                                   Lease leaseB, String staged) {
        if (leaseA == null) {
            return;
        }
        rig.env.awaitUntil(rig.msg("waiting for A's lease, granted by a session that ended, to be reported lost (" + staged
                + ")"), Duration.ofNanos(Math.max(0, healed + bound.toNanos() - System.nanoTime())), lostA::isDone);
        rig.env.assertHoldsUntil(rig.msg("A's lease of the ended session must stay invalid while B holds the lock"),
                System.nanoTime() + rig.env.tolerance().toNanos(), () -> !leaseA.isValid() && leaseB.isValid());
    }

    /**
     * The session-end hook: a verification whose clients hold sessions (its partitioned clients
     * declare a {@link ClientPartition#sessionTimeout()}) must supply it; for one that declares no
     * session and supplies none, the rule does not apply.
     */
    private static SessionEnd requireSessionEnd(Rig rig, ClientPartition partition) {
        Optional<SessionEnd> hook = rig.hooks.sessionEnd();
        if (hook.isEmpty() && partition.sessionTimeout().isZero()) {
            return SessionEnd.impossible("its clients hold no session on the server (the verification declares no"
                    + " ClientPartition.sessionTimeout() and no sessionEnd()): a lease is bound to nothing but its own lease"
                    + " time, and a lock the server drops is rule 4.8's revocation");
        }
        assertTrue(hook.isPresent(), rig.msg("the verification of backend '" + rig.backend().scheme() + "' declares a client"
                + " session of " + TestEnvironment.millis(partition.sessionTimeout()) + " but supplies no sessionEnd(): it must"
                + " show that a grant of a session that ended is never a valid lease"));
        return hook.get();
    }
}
