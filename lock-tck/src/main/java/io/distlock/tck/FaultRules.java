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
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Group 4 of {@code lock-tck/SPEC.md}, faults: what a holder, a client or a server going wrong must
 * not break. A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface FaultRules extends RuleGroup {

    /**
     * Rule 4.1: the one rule that sleeps, because a paused holder is what it models.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.1 a paused holder's stale write is fenced off")
    default void required_4_1_clientPauseIsFenced() throws InterruptedException {
        Rig rig = Rig.of(this);
        BackendDescriptor backend = rig.backend();
        FencedResource resource = new FencedResource();
        Lease leaseA = rig.acquireNow(rig.client(), rig.env.shortLease());
        assertTrue(resource.write("A", leaseA.fencingToken()), rig.msg("an empty resource rejected the first holder's write"));
        DistributedLock lockB = rig.client().lock(rig.name);
        OptionalLong[] tokenB = {OptionalLong.empty()};
        Rig.Waiter<Boolean> b = rig.start("B", () -> {
            Lease leaseB = rig.track(lockB.tryAcquire(rig.env.longLease(), rig.env.defaultTimeout())).orElseThrow(() ->
                    new AssertionError(rig.msg("B did not acquire after A's lease ran out")));
            tokenB[0] = leaseB.fencingToken();
            return resource.write("B", leaseB.fencingToken());
        });

        assertTrue(leaseA.isValid(), rig.msg("A's lease was not valid right after acquire"));
        // A has checked its lease and is about to write: now it pauses (a GC, a stopped VM) past its validity.
        Thread.sleep(leaseA.remaining().plus(rig.env.tolerance()).toMillis());

        assertTrue(rig.outcome(b, rig.env.defaultTimeout()), rig.msg("the resource rejected the write of B, the valid holder"
                + " (token " + tokenB[0] + ", resource " + resource + ")"));
        assertFalse(leaseA.isValid(), rig.msg("A's lease still reports isValid() == true after its validity passed"));
        boolean staleAccepted = resource.write("A", leaseA.fencingToken());
        if (!staleAccepted) {
            return;
        }
        if (leaseA.fencingToken().isEmpty() && backend.guarantee() == Guarantee.EFFICIENCY) {
            rig.findings.add("4.1 client pause: the paused holder's stale write was accepted after another client"
                    + " acquired and wrote: '" + backend.scheme() + "' has no fencing tokens, so a pause longer than"
                    + " the lease lets two holders write (expected for an EFFICIENCY lock; do not use it for correctness)");
            return;
        }
        fail(rig.msg("the resource accepted the stale write of the paused holder A (token " + leaseA.fencingToken()
                + ") after B (token " + tokenB[0] + ") wrote; declared " + backend.guarantee()));
    }

    /**
     * Rule 4.2: a minority of nodes is killed while a lease is held.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.2 a minority of nodes killed mid-hold: no double grant, hand-off after release")
    @SuppressWarnings("try") // the fault is only closed, never used
    default void required_4_2_nodeKillMidHold() throws InterruptedException {
        Rig rig = Rig.of(this);
        NodeFaults faults = requireFaults(rig, NodeFaults.Kind.STOP_MINORITY);
        LockClient b = rig.client();
        Lease leaseA = rig.acquireNow(rig.client(), rig.env.longLease());
        try (NodeFaults.Fault fault = faults.stopMinority()) {
            assertTrue(rig.track(b.lock(rig.name).tryAcquire(rig.env.longLease(), rig.env.shortWait())).isEmpty(),
                    rig.msg("with a minority of nodes killed, B was granted the lock while A's lease was valid"));
            assertTrue(leaseA.isValid(), rig.msg("A's lease ended although its lease time had not"));
            leaseA.release();
            rig.acquireWithin(b, rig.env.shortLease(), rig.env.defaultTimeout(),
                    "after A released, B could not acquire with the minority still down");
        }
    }

    /**
     * Rule 4.3: a node restarts without persistence under a bare quorum.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.3 a node restarted without persistence under a bare quorum")
    @SuppressWarnings("try") // the fault is only closed, never used
    default void required_4_3_restartWithoutPersistence() throws InterruptedException {
        Rig rig = Rig.of(this);
        NodeFaults faults = requireFaults(rig, NodeFaults.Kind.STOP_MINORITY, NodeFaults.Kind.RESTART_WITHOUT_PERSISTENCE);
        BackendDescriptor backend = rig.backend();
        Lease leaseA;
        try (NodeFaults.Fault fault = faults.stopMinority()) {
            // A's lease rests on a bare quorum: the stopped nodes never saw it.
            leaseA = rig.acquireWithin(rig.client(), rig.env.longLease(), rig.env.defaultTimeout(),
                    "with a minority of nodes down, A could not acquire");
        }
        // The stopped nodes are back, and one node that did grant A's lease forgets it.
        faults.restartOneWithoutPersistence();
        LockClient b = rig.client();
        Optional<Lease> leaseB = rig.track(b.lock(rig.name).tryAcquire(rig.env.longLease(), rig.env.shortWait()));
        if (leaseB.isEmpty() || !leaseA.isValid()) {
            assertTrue(leaseA.isValid(), rig.msg("A's lease ended although its lease time had not"));
            return;
        }
        String what = "4.3 node restart without persistence: A held the lock on a bare quorum, the nodes that were down"
                + " came back and one of A's nodes restarted empty; B then obtained a quorum while A's lease was valid"
                + " (a double grant)";
        if (backend.guarantee() == Guarantee.EFFICIENCY) {
            rig.findings.add(what + ": expected for an EFFICIENCY lock without a restart delay or fsync'd persistence;"
                    + " do not use '" + backend.scheme() + "' for correctness");
            return;
        }
        fail(rig.msg(what + "; declared " + backend.guarantee()));
    }

    /**
     * Rule 4.6: a minority of nodes is slow, then partitioned away.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.6 a slow or partitioned minority of nodes: acquires in time, no double grant")
    @SuppressWarnings("try") // the faults are only closed, never used
    default void required_4_6_slowOrPartitionedMinority() throws InterruptedException {
        Rig rig = Rig.of(this);
        NodeFaults faults = requireFaults(rig, NodeFaults.Kind.SLOW_MINORITY, NodeFaults.Kind.PARTITION_MINORITY);
        LockClient a = rig.client();
        try (NodeFaults.Fault slow = faults.slowMinority(rig.env.scaled(Duration.ofMillis(200)))) {
            checkMinorityFault(rig, a, "with a minority of nodes slowed by 200 ms", "-slow", faults.failover());
        }
        a = rig.client();
        try (NodeFaults.Fault partition = faults.partitionMinority()) {
            checkMinorityFault(rig, a, "with a minority of nodes partitioned away", "-partition", faults.failover());
        }
    }

    /**
     * Rule 4.7: the server processes of a minority of nodes are paused (SIGSTOP).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.7 a paused minority of servers (SIGSTOP): acquires in time, no double grant")
    @SuppressWarnings("try") // the fault is only closed, never used
    default void required_4_7_pausedMinority() throws InterruptedException {
        Rig rig = Rig.of(this);
        NodeFaults faults = requireFaults(rig, NodeFaults.Kind.PAUSE_MINORITY);
        LockClient a = rig.client();
        try (NodeFaults.Fault pause = faults.pauseMinority()) {
            checkMinorityFault(rig, a, "with a minority of servers paused", "-pause", faults.failover());
        }
    }

    /**
     * Under a minority fault: client {@code a}, connected before the fault began, acquires within
     * the hand-off bound (a hung node must not hold an acquire up), keeps the lock (extend, with
     * the feature), nobody else gets it, and after a release another client, connected during the
     * fault, does. A client that meets the faulty node may first need {@code failover}
     * ({@link NodeFaults#failover()}) to move off it: both grants are allowed that much more, and
     * B's attempt and A's extension are made again within it after an unknown outcome; the checks
     * that nobody else is granted the lock stay as strict.
     */
    private static void checkMinorityFault(Rig rig, LockClient a, String fault, String nameSuffix, Duration failover)
            throws InterruptedException {
        LockClient b = rig.client();
        String name = rig.name + nameSuffix;
        long start = System.nanoTime();
        Optional<Lease> leaseA = rig.track(a.lock(name).tryAcquire(rig.env.longLease(), rig.env.defaultTimeout().plus(failover)));
        Duration took = TestEnvironment.since(start);
        Duration bound = rig.env.handOffTimeout().plus(failover);
        assertTrue(leaseA.isPresent(), rig.msg(fault + ", A could not acquire a free lock"));
        assertTrue(took.compareTo(bound) <= 0, rig.msg(fault + ", A's acquire took " + TestEnvironment.millis(took)
                + ", more than " + TestEnvironment.millis(bound) + " (the hand-off bound + a failover of "
                + TestEnvironment.millis(failover) + "): the faulty nodes held it up"));
        assertTrue(withinFailover(rig, failover, fault + ", B's attempt on a lock A held",
                () -> rig.track(b.lock(name).tryAcquire(rig.env.longLease(), rig.env.shortWait()))).isEmpty(),
                rig.msg(fault + ", B was granted the lock while A's lease was valid"));
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            assertTrue(withinFailover(rig, failover, fault + ", A's extension", () -> leaseA.get().extend(rig.env.longLease())),
                    rig.msg(fault + ", A could not extend its lease"));
        }
        assertTrue(leaseA.get().isValid(), rig.msg(fault + ", A's lease ended although its lease time had not"));
        leaseA.get().release();
        start = System.nanoTime();
        // A long lease: a client behind the slow node waits a 400 ms round trip for its grant, and a
        // lease shorter than that has no validity left when it arrives (the engine gives it back).
        Optional<Lease> leaseB = rig.track(b.lock(name).tryAcquire(rig.env.longLease(), rig.env.defaultTimeout().plus(failover)));
        assertTrue(leaseB.isPresent(), rig.msg(fault + ", B could not acquire after A released"));
        rig.notes.add(nameSuffix.substring(1) + ": A acquired in " + TestEnvironment.millis(took) + ", B after A's release in "
                + TestEnvironment.millis(TestEnvironment.since(start)) + " (failover allowed: " + TestEnvironment.millis(failover) + ")");
        leaseB.get().release();
    }

    /**
     * A call that may meet the faulty node: an unknown outcome ({@link BackendUnavailableException},
     * which is never a grant nor a loss) is tried again while the failover allows, since the client
     * may still be moving off that node; the one after it is thrown. With no failover, the first is.
     */
    private static <T> T withinFailover(Rig rig, Duration failover, String what, Call<T> call) throws InterruptedException {
        long start = System.nanoTime();
        int unknown = 0;
        while (true) {
            try {
                T result = call.get();
                if (unknown > 0) {
                    rig.notes.add(what + " had " + unknown + " unknown outcome(s) before an answer, "
                            + TestEnvironment.millis(TestEnvironment.since(start)) + " in (failover allowed: "
                            + TestEnvironment.millis(failover) + ")");
                }
                return result;
            } catch (BackendUnavailableException e) {
                unknown++;
                if (TestEnvironment.since(start).compareTo(failover) >= 0) {
                    throw e;
                }
            }
        }
    }

    /** A call of {@link #withinFailover}. */
    @FunctionalInterface
    interface Call<T> {
        T get() throws InterruptedException;
    }

    /** The node-fault hook, if the backend declares QUORUM and the hook offers every fault in {@code kinds}. */
    private static NodeFaults requireFaults(Rig rig, NodeFaults.Kind... kinds) {
        rig.requireFeature(Feature.QUORUM);
        Optional<NodeFaults> faults = rig.hooks.nodeFaults();
        // A declared capability must be proven: a missing hook fails the rule instead of skipping it.
        assertTrue(faults.isPresent(), rig.msg("backend '" + rig.backend().scheme()
                + "' declares QUORUM but the verification supplies no nodeFaults() hook to prove it"));
        for (NodeFaults.Kind kind : kinds) {
            String impossible = faults.get().impossible().get(kind);
            assumeTrue(impossible == null, () -> VerdictExtension.DOES_NOT_APPLY + kind + " cannot happen to '"
                    + rig.backend().scheme() + "': " + impossible);
            assumeTrue(faults.get().offered().contains(kind), () -> VerdictExtension.NOT_RUN + "the nodeFaults() hook of backend '"
                    + rig.backend().scheme() + "' does not offer " + kind + " (NodeFaults.offered())");
        }
        return faults.get();
    }
}
