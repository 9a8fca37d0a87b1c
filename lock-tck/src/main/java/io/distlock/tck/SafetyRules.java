package io.distlock.tck;

import io.distlock.BackendDescriptor;
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
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Group 1 of {@code lock-tck/SPEC.md}, safety: at most one valid lease, owner-only release and
 * extend, fencing tokens, honest {@code remaining()}, no re-entrance, and a consistent declaration.
 * A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface SafetyRules extends RuleGroup {

    /**
     * Rule 1.1 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.1 at most one valid lease at any instant under contention")
    default void required_1_1_atMostOneValidLease() throws InterruptedException {
        Rig rig = Rig.of(this);
        History history = Contention.run(rig, new FencedResource(), 2);
        List<HistoryChecker.Violation> violations = HistoryChecker.overlappingLeases(history);
        assertTrue(violations.isEmpty(), () -> rig.msg(violations.size() + " overlapping valid leases in " + history
                + ":\n" + HistoryChecker.describe(violations, 5)));
        rig.notes.add("checked " + history.acquisitions() + " grants to " + history.distinctHolders() + " of "
                + rig.env.contentionClients() + " clients (" + rig.env.contentionRounds() + " rounds each; "
                + history.unknownOutcomes() + " attempt(s) got no answer)");
    }

    /**
     * Rule 1.2 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.2 release touches only the caller's own lease")
    default void required_1_2_releaseTouchesOnlyOwnLease() throws InterruptedException {
        Rig rig = Rig.of(this);
        LockClient a = rig.client();
        LockClient b = rig.client();
        LockClient c = rig.client();
        Lease leaseA = rig.acquireNow(a, rig.env.shortLease());
        rig.awaitInvalid(leaseA, "A's");
        Lease leaseB = rig.acquireWithin(b, rig.env.longLease(), rig.env.defaultTimeout(),
                "B could not acquire after A's lease expired");

        leaseA.release();

        assertTrue(leaseB.isValid(), rig.msg("B's lease turned invalid when A released its expired lease"));
        assertTrue(rig.track(c.lock(rig.name).tryAcquire(rig.env.shortLease())).isEmpty(),
                rig.msg("after A released its expired lease, a third client acquired the lock B holds:"
                        + " release is not owner-only (a blind delete?)"));
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            assertTrue(leaseB.extend(rig.env.longLease()),
                    rig.msg("B could not extend its lease after A released its expired lease: A's release removed B's lease"));
        }
    }

    /**
     * Rule 1.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.3 extend touches only the caller's own lease")
    default void required_1_3_extendTouchesOnlyOwnLease() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.LEASE_EXTENSION);
        LockClient a = rig.client();
        LockClient b = rig.client();
        LockClient c = rig.client();
        Lease leaseA = rig.acquireNow(a, rig.env.shortLease());
        rig.awaitInvalid(leaseA, "A's");
        long beforeB = System.nanoTime();
        Lease leaseB = rig.acquireWithin(b, rig.env.shortLease(), rig.env.defaultTimeout(),
                "B could not acquire after A's lease expired");
        long promiseB = System.nanoTime() + leaseB.remaining().toNanos();

        assertFalse(leaseA.extend(rig.env.longLease()),
                rig.msg("A extended its expired lease although B holds the lock now"));

        Duration maxWait = rig.env.shortLease().plus(rig.env.handOffTimeout());
        Optional<Lease> leaseC = rig.track(c.lock(rig.name).tryAcquire(rig.env.shortLease(), maxWait));
        long gotC = System.nanoTime();
        assertTrue(leaseC.isPresent(), rig.msg("B's lease of " + TestEnvironment.millis(rig.env.shortLease())
                + " was still held " + TestEnvironment.millis(TestEnvironment.since(beforeB))
                + " after B acquired it: A's extend prolonged B's lease"));
        assertTrue(gotC - promiseB >= 0, rig.msg("a third client acquired while B's lease was still valid"));
    }

    /**
     * Rule 1.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.4 fencing tokens strictly increase with every grant")
    default void required_1_4_fencingTokensIncrease() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.FENCING_TOKENS);
        ChildClient b = rig.launchSeparateProcess("B"); // its JVM starts while A connects
        LockClient a = rig.client();
        List<Long> tokens = new ArrayList<>();
        List<String> grants = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            long token;
            if (i % 2 == 0) {
                Lease lease = rig.acquireNow(a, rig.env.shortLease());
                token = rig.token(lease);
                lease.release();
            } else {
                ChildClient.Grant grant = b.tryAcquire(rig.name, rig.env.shortLease(), null).orElseThrow(() -> new AssertionError(
                        rig.msg("a single attempt of " + b.label() + " on the free lock found it busy")));
                token = rig.token(grant, b);
                b.release(grant);
            }
            tokens.add(token);
            grants.add((i % 2 == 0 ? "A " : "B ") + token);
        }
        Lease expiring = rig.acquireNow(a, rig.env.shortLease());
        tokens.add(rig.token(expiring));
        grants.add("A " + tokens.get(tokens.size() - 1));
        ChildClient.Grant next = b.tryAcquire(rig.name, rig.env.shortLease(), rig.env.defaultTimeout()).orElseThrow(() ->
                new AssertionError(rig.msg(b.label() + " could not acquire after A's lease expired (waited "
                        + TestEnvironment.millis(rig.env.defaultTimeout()) + ")")));
        tokens.add(rig.token(next, b));
        grants.add("B " + tokens.get(tokens.size() - 1));
        b.release(next);
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1),
                    rig.msg("fencing token did not increase from grant " + i + " to " + (i + 1) + ": " + grants
                            + (i == tokens.size() - 1 ? " (the last grant followed an expiry)" : "")
                            + "; A is a client in this JVM, " + b.label() + " one in another: a fence that increases"
                            + " only within one JVM fails here"));
        }

        History history = Contention.run(rig, new FencedResource(), 0, b);
        List<HistoryChecker.Violation> violations = HistoryChecker.fencingOrder(history);
        assertTrue(violations.isEmpty(), () -> rig.msg(violations.size() + " fencing-order violations under contention in "
                + history + ":\n" + HistoryChecker.describe(violations, 5)));
        rig.notes.add(tokens.size() + " sequential grants, then " + history.acquisitions() + " contended grants in order; " + b);
    }

    /** Rule 1.5 (see SPEC.md). */
    @Test
    @DisplayName("1.5 remaining() never over-promises")
    default void required_1_5_remainingNeverOverPromises() {
        Rig rig = Rig.of(this);
        LockClient a = rig.client();
        DistributedLock probe = rig.client().lock(rig.name);
        Duration leaseTime = rig.env.shortLease();
        Lease leaseA = rig.acquireNow(a, leaseTime);
        AtomicLong promise = new AtomicLong(System.nanoTime());
        Duration[] previous = {leaseTime};
        rig.env.awaitUntil(rig.msg("waiting for A's remaining() to reach zero, or another client to acquire after it did"),
                leaseTime.plus(rig.env.defaultTimeout()), () -> {
                    long before = System.nanoTime();
                    Duration remaining = leaseA.remaining();
                    assertFalse(remaining.isNegative(), rig.msg("remaining() was negative: " + remaining));
                    assertTrue(remaining.compareTo(previous[0]) <= 0, rig.msg("remaining() grew without an extend: "
                            + previous[0] + " then " + remaining + " (lease time " + leaseTime + ")"));
                    previous[0] = remaining;
                    promise.accumulateAndGet(before + remaining.toNanos(), (x, y) -> y - x > 0 ? y : x);
                    Optional<Lease> other = rig.track(probe.tryAcquire(leaseTime));
                    long probed = System.nanoTime();
                    if (other.isPresent()) {
                        long overPromise = promise.get() - probed;
                        assertTrue(overPromise <= 0, rig.msg("another client acquired while A's remaining() still promised "
                                + TestEnvironment.millis(Duration.ofNanos(overPromise)) + " of validity"));
                        return true;
                    }
                    return remaining.isZero();
                });
        assertFalse(leaseA.isValid(), rig.msg("isValid() was true after remaining() reached zero"));
    }

    /**
     * Rule 1.6 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.6 a lock is not re-entrant")
    default void required_1_6_notReentrant() throws InterruptedException {
        Rig rig = Rig.of(this);
        LockClient a = rig.client();
        DistributedLock lock = a.lock(rig.name);
        Lease held = rig.track(lock.tryAcquire(rig.env.longLease()))
                .orElseThrow(() -> new AssertionError(rig.msg("a single attempt on a free lock found it busy")));

        assertTrue(rig.track(lock.tryAcquire(rig.env.shortLease())).isEmpty(),
                rig.msg("a second tryAcquire through the same handle was granted while the first lease is held"));
        assertTrue(rig.track(a.lock(rig.name).tryAcquire(rig.env.shortLease())).isEmpty(),
                rig.msg("a second tryAcquire through the same client was granted while the first lease is held"));
        assertTrue(rig.track(a.lock(rig.name).tryAcquire(rig.env.shortLease(), rig.env.contentionWait())).isEmpty(),
                rig.msg("a waiting tryAcquire through the same client was granted while the first lease is held"));
        assertTrue(held.isValid(), rig.msg("the held lease turned invalid after re-entrant attempts"));

        held.release();
        assertTrue(rig.track(lock.tryAcquire(rig.env.shortLease())).isPresent(),
                rig.msg("after release, the same client could not acquire again"));
    }

    /**
     * Rule 1.7 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.7 a fenced resource accepts every write of a valid holder")
    default void required_1_7_fencedResourceAcceptsValidHolders() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.FENCING_TOKENS);
        ChildClient separate = rig.launchSeparateProcess("a contender"); // its JVM starts while the others connect
        FencedResource resource = new FencedResource();
        History history = Contention.run(rig, resource, 0, separate);
        List<HistoryChecker.Violation> violations = HistoryChecker.rejectedValidWrites(history);
        assertTrue(violations.isEmpty(), () -> rig.msg(violations.size() + " writes of valid holders were rejected by "
                + resource + " in " + history + ":\n" + HistoryChecker.describe(violations, 5)
                + "\n(" + separate.label() + " is a client in a child JVM, whose writes carry its own tokens: a fence that"
                + " increases only within one JVM fails here)"));
        assertTrue(resource.accepted() > 0, rig.msg("no write was accepted at all: " + resource));
        assertTrue(separate.grants() > 0, rig.msg("the contender in a separate process was never granted the lock: " + separate));
        rig.notes.add(resource.accepted() + " fenced writes by " + history.distinctHolders() + " clients accepted; " + separate);
    }

    /** Rule 1.8 (see SPEC.md). */
    @Test
    @DisplayName("1.8 the declaration is consistent and ended leases report it")
    default void required_1_8_consistentDeclaration() {
        Rig rig = Rig.of(this);
        BackendDescriptor declared = rig.backend();
        assertTrue(declared.guarantee() != Guarantee.CORRECTNESS || declared.has(Feature.FENCING_TOKENS),
                rig.msg("declares CORRECTNESS without FENCING_TOKENS"));
        assertTrue(!declared.has(Feature.AUTO_RENEWAL) || declared.has(Feature.LEASE_EXTENSION),
                rig.msg("declares AUTO_RENEWAL without LEASE_EXTENSION"));
        LockClient a = rig.client();
        assertEquals(declared, a.backend(), rig.msg("two clients of one backend describe it differently"));

        Lease lease = rig.acquireNow(a, rig.env.shortLease());
        assertEquals(rig.name, lease.lockName(), rig.msg("lockName() differs from the name the lock was taken by"));
        assertEquals(declared.has(Feature.FENCING_TOKENS), lease.fencingToken().isPresent(),
                rig.msg("fencingToken() presence disagrees with the declared features " + declared.features()));
        assertTrue(lease.remaining().compareTo(rig.env.shortLease()) <= 0,
                rig.msg("remaining() " + lease.remaining() + " exceeds the lease time " + rig.env.shortLease()));
        if (!declared.has(Feature.LEASE_EXTENSION)) {
            assertThrows(UnsupportedOperationException.class, () -> lease.extend(rig.env.shortLease()),
                    rig.msg("extend() must throw UnsupportedOperationException without LEASE_EXTENSION"));
        }
        if (!declared.has(Feature.AUTO_RENEWAL)) {
            assertThrows(UnsupportedOperationException.class, lease::autoRenew,
                    rig.msg("autoRenew() must throw UnsupportedOperationException without AUTO_RENEWAL"));
        }
        lease.release();
        assertFalse(lease.isValid(), rig.msg("a released lease reports isValid() == true"));
        assertEquals(Duration.ZERO, lease.remaining(), rig.msg("a released lease reports remaining() > 0"));
        lease.release(); // idempotent

        Lease expiring = rig.acquireNow(a, rig.env.shortLease());
        rig.awaitInvalid(expiring, "the");
        assertEquals(Duration.ZERO, expiring.remaining(), rig.msg("an expired lease reports remaining() > 0"));
    }
}
