package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LockClient;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Group 4 of {@code lock-tck/SPEC.md}, continued: a server's own faults that no client causes — its
 * clock jumps forward (rule 4.4), its primary fails over to a replica that had not caught up (4.5).
 * Both can hand a lock to a second client while the first still holds it; an {@code EFFICIENCY}
 * backend may (the verdict records each double grant as a finding), a {@code CORRECTNESS} backend
 * may not. A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface ServerFaultRules extends RuleGroup {

    /**
     * Rule 4.4: node 0's clock jumps forward by a whole lease while A holds the lock and B waits.
     * If B is granted while A's lease is valid, that double grant is a finding for an
     * {@code EFFICIENCY} backend and a failure for a {@code CORRECTNESS} one; either way A must
     * learn of it: its auto-renewal (or its next extend) finds the lock gone and the lease lost.
     * Otherwise A keeps the lock, and after A's release B's successor acquires in time.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.4 a server's clock jumps forward: a lock that expires early is not kept believed")
    default void required_4_4_clockJump() throws InterruptedException {
        Rig rig = Rig.of(this);
        BackendDescriptor backend = rig.backend();
        ClockJump jump = requireClockJump(rig);
        LockClient holder = rig.client();
        Lease leaseA = rig.acquireNow(holder, rig.env.longLease());
        boolean renewed = backend.has(Feature.AUTO_RENEWAL);
        if (renewed) {
            leaseA.autoRenew(); // how a TTL-based holder learns that its key went early: its renewal finds it gone
        }
        AtomicLong lostAt = new AtomicLong();
        if (backend.has(Feature.LOSS_NOTIFICATION)) {
            leaseA.lost().whenComplete((reason, failure) -> lostAt.set(System.nanoTime()));
        }
        DistributedLock lockB = rig.client().lock(rig.name);
        Rig.Waiter<Optional<Lease>> b = rig.start("B", () -> rig.track(lockB.tryAcquire(rig.env.longLease(), rig.env.defaultTimeout())));
        rig.awaitBlocked(b);

        Duration delta = rig.env.longLease();
        long jumped = System.nanoTime();
        jump.jumpForward(0, delta);
        Optional<Lease> leaseB = rig.outcome(b, rig.env.defaultTimeout().plus(rig.env.tolerance()));
        // A's belief when B got the lock: valid unless its loss was known before B's acquire returned.
        long known = lostAt.get();
        boolean believed = leaseA.isValid() || (known != 0 && known - b.finishedAtNanos > 0);
        String where = jump.nodes() == 1 ? "the server's clock" : "the clock of node 0 of " + jump.nodes();
        if (leaseB.isEmpty() || !believed) {
            if (leaseB.isEmpty()) {
                assertTrue(leaseA.isValid(), rig.msg("A's lease ended after " + where + " jumped " + TestEnvironment.millis(delta)
                        + " although nobody else was granted the lock and its lease time had not passed"));
                leaseA.release();
                rig.acquireWithin(rig.client(), rig.env.shortLease(), rig.env.handOffTimeout().plus(rig.env.tolerance()),
                        "after A released, nobody could acquire the lock whose server's clock had jumped");
                rig.notes.add("4.4: " + where + " jumped " + TestEnvironment.millis(delta) + "; A kept the lock, B was not granted");
            } else {
                rig.notes.add("4.4: " + where + " jumped " + TestEnvironment.millis(delta) + "; A knew its lease was lost before"
                        + " B was granted, " + TestEnvironment.millis(TestEnvironment.since(jumped)) + " after the jump");
            }
            return;
        }
        String overlap = where + " jumped " + TestEnvironment.millis(delta) + " and B was granted the lock "
                + TestEnvironment.millis(Duration.ofNanos(b.finishedAtNanos - jumped)) + " later, while A's lease was valid"
                + " (remaining " + leaseA.remaining() + ")";
        if (backend.guarantee() == Guarantee.CORRECTNESS) {
            fail(rig.msg(overlap + ": the server let A's lock expire early; declared CORRECTNESS"));
        }
        expectHolderLearns(rig, leaseA, renewed, overlap);
        rig.findings.add("4.4 clock jump: " + overlap + ". The server expires locks by its wall clock, so a jump ends"
                + " them early (expected for an EFFICIENCY lock; A's lease was then reported lost)");
    }

    /**
     * After a double grant: A must stop believing it holds the lock once it asks the server — its
     * auto-renewal's next extend (a third of the lease in), or its own extend.
     */
    private static void expectHolderLearns(Rig rig, Lease leaseA, boolean renewed, String overlap) throws InterruptedException {
        BackendDescriptor backend = rig.backend();
        if (renewed) {
            Duration bound = rig.env.longLease().dividedBy(3).plus(rig.env.defaultTimeout());
            if (backend.has(Feature.LOSS_NOTIFICATION)) {
                try {
                    leaseA.lost().toCompletableFuture().get(bound.toNanos(), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError(rig.msg(overlap + "; A's auto-renewal did not report the lease lost within "
                            + TestEnvironment.millis(bound)), e);
                } catch (ExecutionException e) {
                    throw new AssertionError(rig.msg("A's lost() completed exceptionally: " + e.getCause()), e.getCause());
                }
            }
            rig.env.awaitUntil(rig.msg(overlap + "; A's auto-renewal must find the lock gone and end the lease"), bound,
                    () -> !leaseA.isValid());
        } else if (backend.has(Feature.LEASE_EXTENSION)) {
            assertFalse(leaseA.extend(rig.env.longLease()), rig.msg(overlap + "; A's extend then returned true"));
            assertFalse(leaseA.isValid(), rig.msg(overlap + "; A's lease is valid after its extend found the lock gone"));
        }
    }

    /**
     * Rule 4.5: a primary fails over to a replica that had not received the holder's write, in two
     * scenarios: (a) the write reached no replica (every replication link cut), and replica 0 is
     * promoted; (b) the write reached replica 0 only (replica 1's link cut), and replica 1 is
     * promoted. Each time B, a client made after the failover, tries the lock while A's lease is
     * valid. A double grant is a finding for an {@code EFFICIENCY} backend and a failure for a
     * {@code CORRECTNESS} one. An acquire that could not confirm its write on the replicas must not
     * return a lease (a {@link BackendUnavailableException} is the honest answer), nor report a
     * free lock as busy.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.5 a primary fails over to a replica the holder's write had not reached")
    default void required_4_5_primaryFailover() throws InterruptedException {
        Rig rig = Rig.of(this);
        BackendDescriptor backend = rig.backend();
        ReplicaFailover failover = requireFailover(rig);
        int replicas = failover.forLock(rig.name + "-a").replicas();
        assertTrue(replicas >= 2, rig.msg("rule 4.5 needs a primary with two replicas; the replicaFailover() hook"
                + " of '" + backend.scheme() + "' has " + replicas));
        List<String> overlaps = new ArrayList<>();
        try {
            failoverScenario(rig, failover, "a", "A's write reached no replica (every replication link cut) and replica 0 was promoted",
                    shard -> {
                        for (int i = 0; i < shard.replicas(); i++) {
                            shard.cutReplication(i);
                        }
                    }, 0, overlaps);
            failover.restore();
            failoverScenario(rig, failover, "b", "A's write reached replica 0 only (replica 1's link cut) and replica 1 was promoted",
                    shard -> shard.cutReplication(1), 1, overlaps);
        } finally {
            failover.restore();
        }
        if (overlaps.isEmpty()) {
            return;
        }
        if (backend.guarantee() == Guarantee.CORRECTNESS) {
            fail(rig.msg("after a failover B was granted the lock while A's lease was valid: " + String.join("; ", overlaps)
                    + "; declared CORRECTNESS"));
        }
        rig.findings.add("4.5 failover: B was granted the lock while A's lease was valid in " + String.join("; in ", overlaps)
                + " (expected for an EFFICIENCY lock: a failover loses what the promoted replica had not received)");
    }

    /**
     * Rule 4.23: the shard that keeps a held lock, with a waiter on it, moves to another shard. The
     * lock must stay held by its holder alone — no second grant to the waiter nor to a fresh client —
     * and its holder's extension and release must reach it where it now is; the release must wake
     * the waiter within the hand-off bound, so its notification followed the move too.
     */
    @Test
    @DisplayName("4.23 the shard keeping a held lock moves to another")
    default void required_4_23_shardMigration() throws InterruptedException {
        Rig rig = Rig.of(this);
        Optional<ShardMigration> hook = rig.hooks.shardMigration();
        assumeTrue(hook.isPresent(), () -> VerdictExtension.DOES_NOT_APPLY + "'" + rig.backend().scheme()
                + "' keeps every lock in one place: it has no shard to move (hook shardMigration())");
        LockClient a = rig.client();
        LockClient b = rig.client();
        Lease leaseA = rig.acquireNow(a, rig.env.longLease());
        Duration maxWait = rig.env.defaultTimeout().multipliedBy(4);
        Rig.Waiter<Optional<Lease>> waiterB = rig.start("B", () -> b.lock(rig.name).tryAcquire(rig.env.longLease(), maxWait));
        rig.awaitBlocked(waiterB);
        String moved = hook.get().move(rig.name);
        assertFalse(waiterB.result.isDone(), rig.msg("B's wait ended when " + moved + ", while A held the lock: "
                + (waiterB.result.isCompletedExceptionally() ? "it failed" : "a second grant, or an empty answer before maxWait")));
        Optional<Lease> second = rig.track(rig.client().lock(rig.name).tryAcquire(rig.env.longLease()));
        assertTrue(second.isEmpty(), rig.msg("a fresh client was granted the lock after " + moved + ", while A held it"));
        assertTrue(leaseA.isValid(), rig.msg("A's lease is no longer valid after " + moved));
        if (rig.backend().features().contains(Feature.LEASE_EXTENSION)) {
            assertTrue(leaseA.extend(rig.env.longLease()), rig.msg("A's extension did not reach its lock after " + moved));
        }
        long released = System.nanoTime();
        leaseA.release();
        Optional<Lease> leaseB = rig.outcome(waiterB, rig.env.handOffTimeout().plus(rig.env.tolerance()));
        assertTrue(leaseB.isPresent(), rig.msg("B's wait ended empty after A released (" + moved + ")"));
        rig.track(leaseB.get());
        Duration handOff = TestEnvironment.since(released).minusNanos(System.nanoTime() - waiterB.finishedAtNanos);
        assertTrue(handOff.compareTo(rig.env.handOffTimeout()) <= 0, rig.msg("B got the lock " + TestEnvironment.millis(handOff)
                + " after A's release, more than the hand-off bound " + TestEnvironment.millis(rig.env.handOffTimeout())
                + ": its notification did not follow the move (" + moved + ")"));
        leaseB.get().release();
    }

    /** One scenario on the primary of its lock ({@link ReplicaFailover#forLock}: a sharded deployment's shard). */
    private static void failoverScenario(Rig rig, ReplicaFailover deployment, String label, String what,
                                         java.util.function.Consumer<ReplicaFailover> cut, int promoted, List<String> overlaps)
            throws InterruptedException {
        String name = rig.name + "-" + label;
        ReplicaFailover failover = deployment.forLock(name);
        LockClient a = rig.track(failover.connect());
        cut.accept(failover);
        Optional<Lease> leaseA;
        String unconfirmed = null;
        try {
            leaseA = rig.track(a.lock(name).tryAcquire(rig.env.longLease()));
            assertTrue(leaseA.isPresent(), rig.msg("(" + label + ") A's single attempt on a free lock came back empty (contention)"
                    + " with replication cut: an acquire it could not confirm must throw BackendUnavailableException"));
        } catch (BackendUnavailableException e) {
            leaseA = Optional.empty();
            unconfirmed = e.getMessage();
        }
        failover.promote(promoted);
        LockClient b = rig.track(failover.connect());
        Optional<Lease> leaseB = acquireAfterFailover(rig, b, name);
        boolean overlap = leaseA.isPresent() && leaseB.isPresent() && leaseA.get().isValid();
        if (overlap) {
            overlaps.add("(" + label + ") " + what);
        } else if (leaseA.isEmpty()) {
            rig.notes.add("4.5 (" + label + "): A's acquire was not confirmed and held nothing (" + unconfirmed + "); B was "
                    + (leaseB.isPresent() ? "granted the free lock" : "not granted") + " after the failover");
        } else {
            rig.notes.add("4.5 (" + label + "): " + what + "; A kept the lock, B was not granted");
        }
        leaseB.ifPresent(ServerFaultRules::releaseQuietly);
        leaseA.ifPresent(ServerFaultRules::releaseQuietly);
    }

    /**
     * B's attempts right after a failover: a client may need a moment to reach the new primary, so
     * an unavailable answer is tried again within the default timeout; a lease or contention ends it.
     */
    private static Optional<Lease> acquireAfterFailover(Rig rig, LockClient b, String name) throws InterruptedException {
        long deadline = System.nanoTime() + rig.env.defaultTimeout().toNanos();
        while (true) {
            try {
                return rig.track(b.lock(name).tryAcquire(rig.env.longLease(), rig.env.shortWait()));
            } catch (BackendUnavailableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(rig.msg("B could not reach the new primary within "
                            + TestEnvironment.millis(rig.env.defaultTimeout()) + " of the failover: " + e.getMessage()), e);
                }
            }
        }
    }

    /** A's client may still point at the demoted primary: its release may fail; the lease expires anyway. */
    private static void releaseQuietly(Lease lease) {
        try {
            lease.release();
        } catch (RuntimeException ignored) {
            // the rule is about the grants; a release that cannot reach the right node is not
        }
    }

    private static ClockJump requireClockJump(Rig rig) {
        Optional<ClockJump> hook = rig.hooks.clockJump();
        assertTrue(hook.isPresent(), rig.msg("the verification of '" + rig.backend().scheme() + "' supplies no clockJump()"
                + " hook: every server keeps time (use ClockJump.impossible(reason) for one that expires by a monotonic clock)"));
        Optional<String> impossible = hook.get().impossibleBecause();
        assumeTrue(impossible.isEmpty(), () -> VerdictExtension.DOES_NOT_APPLY + "a clock jump cannot move the lease"
                + " expiries of '" + rig.backend().scheme() + "': " + impossible.orElse(""));
        return hook.get();
    }

    private static ReplicaFailover requireFailover(Rig rig) {
        Optional<ReplicaFailover> hook = rig.hooks.replicaFailover();
        assertTrue(hook.isPresent(), rig.msg("the verification of '" + rig.backend().scheme() + "' supplies no replicaFailover()"
                + " hook (use ReplicaFailover.impossible(reason) for a backend with no replicas to fail over to)"));
        Optional<String> impossible = hook.get().impossibleBecause();
        assumeTrue(impossible.isEmpty(), () -> VerdictExtension.DOES_NOT_APPLY + "'" + rig.backend().scheme()
                + "' has no primary to fail over to a lagging replica: " + impossible.orElse(""));
        return hook.get();
    }
}
