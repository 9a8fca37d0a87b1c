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
 * A link of the chain that ends in {@link LockVerification} (see {@link VerificationSupport}).
 */
abstract class SafetyRules extends VerificationSupport {

    /**
     * Rule 1.1 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.1 at most one valid lease at any instant under contention")
    public void required_1_1_atMostOneValidLease() throws InterruptedException {
        History history = Contention.run(rig, new FencedResource(), 2);
        List<HistoryChecker.Violation> violations = HistoryChecker.overlappingLeases(history);
        assertTrue(violations.isEmpty(), () -> msg(violations.size() + " overlapping valid leases in " + history
                + ":\n" + HistoryChecker.describe(violations, 5)));
        notes.add("checked " + history.acquisitions() + " grants to " + history.distinctHolders() + " of "
                + env().contentionClients() + " clients (" + env().contentionRounds() + " rounds each)");
    }

    /**
     * Rule 1.2 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.2 release touches only the caller's own lease")
    public void required_1_2_releaseTouchesOnlyOwnLease() throws InterruptedException {
        LockClient a = rig.client();
        LockClient b = rig.client();
        LockClient c = rig.client();
        Lease leaseA = rig.acquireNow(a, env().shortLease());
        rig.awaitInvalid(leaseA, "A's");
        Lease leaseB = rig.acquireWithin(b, env().longLease(), env().defaultTimeout(),
                "B could not acquire after A's lease expired");

        leaseA.release();

        assertTrue(leaseB.isValid(), msg("B's lease turned invalid when A released its expired lease"));
        assertTrue(rig.track(c.lock(rig.name).tryAcquire(env().shortLease())).isEmpty(),
                msg("after A released its expired lease, a third client acquired the lock B holds:"
                        + " release is not owner-only (a blind delete?)"));
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            assertTrue(leaseB.extend(env().longLease()),
                    msg("B could not extend its lease after A released its expired lease: A's release removed B's lease"));
        }
    }

    /**
     * Rule 1.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.3 extend touches only the caller's own lease")
    public void required_1_3_extendTouchesOnlyOwnLease() throws InterruptedException {
        requireFeature(Feature.LEASE_EXTENSION);
        LockClient a = rig.client();
        LockClient b = rig.client();
        LockClient c = rig.client();
        Lease leaseA = rig.acquireNow(a, env().shortLease());
        rig.awaitInvalid(leaseA, "A's");
        long beforeB = System.nanoTime();
        Lease leaseB = rig.acquireWithin(b, env().shortLease(), env().defaultTimeout(),
                "B could not acquire after A's lease expired");
        long promiseB = System.nanoTime() + leaseB.remaining().toNanos();

        assertFalse(leaseA.extend(env().longLease()),
                msg("A extended its expired lease although B holds the lock now"));

        Duration maxWait = env().shortLease().plus(env().handOffTimeout());
        Optional<Lease> leaseC = rig.track(c.lock(rig.name).tryAcquire(env().shortLease(), maxWait));
        long gotC = System.nanoTime();
        assertTrue(leaseC.isPresent(), msg("B's lease of " + TestEnvironment.millis(env().shortLease())
                + " was still held " + TestEnvironment.millis(TestEnvironment.since(beforeB))
                + " after B acquired it: A's extend prolonged B's lease"));
        assertTrue(gotC - promiseB >= 0, msg("a third client acquired while B's lease was still valid"));
    }

    /**
     * Rule 1.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.4 fencing tokens strictly increase with every grant")
    public void required_1_4_fencingTokensIncrease() throws InterruptedException {
        requireFeature(Feature.FENCING_TOKENS);
        ChildClient b = launchSeparateProcess("B"); // its JVM starts while A connects
        LockClient a = rig.client();
        List<Long> tokens = new ArrayList<>();
        List<String> grants = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            long token;
            if (i % 2 == 0) {
                Lease lease = rig.acquireNow(a, env().shortLease());
                token = token(lease);
                lease.release();
            } else {
                ChildClient.Grant grant = b.tryAcquire(rig.name, env().shortLease(), null).orElseThrow(() -> new AssertionError(
                        msg("a single attempt of " + b.label() + " on the free lock found it busy")));
                token = token(grant, b);
                b.release(grant);
            }
            tokens.add(token);
            grants.add((i % 2 == 0 ? "A " : "B ") + token);
        }
        Lease expiring = rig.acquireNow(a, env().shortLease());
        tokens.add(token(expiring));
        grants.add("A " + tokens.get(tokens.size() - 1));
        ChildClient.Grant next = b.tryAcquire(rig.name, env().shortLease(), env().defaultTimeout()).orElseThrow(() ->
                new AssertionError(msg(b.label() + " could not acquire after A's lease expired (waited "
                        + TestEnvironment.millis(env().defaultTimeout()) + ")")));
        tokens.add(token(next, b));
        grants.add("B " + tokens.get(tokens.size() - 1));
        b.release(next);
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1),
                    msg("fencing token did not increase from grant " + i + " to " + (i + 1) + ": " + grants
                            + (i == tokens.size() - 1 ? " (the last grant followed an expiry)" : "")
                            + "; A is a client in this JVM, " + b.label() + " one in another: a fence that increases"
                            + " only within one JVM fails here"));
        }

        History history = Contention.run(rig, new FencedResource(), 0, b);
        List<HistoryChecker.Violation> violations = HistoryChecker.fencingOrder(history);
        assertTrue(violations.isEmpty(), () -> msg(violations.size() + " fencing-order violations under contention in "
                + history + ":\n" + HistoryChecker.describe(violations, 5)));
        notes.add(tokens.size() + " sequential grants, then " + history.acquisitions() + " contended grants in order; " + b);
    }

    /** The lease's fencing token; fails naming it if a backend declaring FENCING_TOKENS gave none. */
    long token(Lease lease) {
        OptionalLong token = lease.fencingToken();
        assertTrue(token.isPresent(), msg("a lease of a backend declaring FENCING_TOKENS has no fencing token"));
        return token.getAsLong();
    }

    /** The fencing token of a grant to a client in a separate process; fails naming it if there is none. */
    long token(ChildClient.Grant grant, ChildClient child) {
        assertTrue(grant.token().isPresent(), msg("a lease of a backend declaring FENCING_TOKENS has no fencing token"
                + " (granted to " + child.label() + ")"));
        return grant.token().getAsLong();
    }

    /** Rule 1.5 (see SPEC.md). */
    @Test
    @DisplayName("1.5 remaining() never over-promises")
    public void required_1_5_remainingNeverOverPromises() {
        LockClient a = rig.client();
        DistributedLock probe = rig.client().lock(rig.name);
        Duration leaseTime = env().shortLease();
        Lease leaseA = rig.acquireNow(a, leaseTime);
        AtomicLong promise = new AtomicLong(System.nanoTime());
        Duration[] previous = {leaseTime};
        env().awaitUntil(msg("waiting for A's remaining() to reach zero, or another client to acquire after it did"),
                leaseTime.plus(env().defaultTimeout()), () -> {
                    long before = System.nanoTime();
                    Duration remaining = leaseA.remaining();
                    assertFalse(remaining.isNegative(), msg("remaining() was negative: " + remaining));
                    assertTrue(remaining.compareTo(previous[0]) <= 0, msg("remaining() grew without an extend: "
                            + previous[0] + " then " + remaining + " (lease time " + leaseTime + ")"));
                    previous[0] = remaining;
                    promise.accumulateAndGet(before + remaining.toNanos(), (x, y) -> y - x > 0 ? y : x);
                    Optional<Lease> other = rig.track(probe.tryAcquire(leaseTime));
                    long probed = System.nanoTime();
                    if (other.isPresent()) {
                        long overPromise = promise.get() - probed;
                        assertTrue(overPromise <= 0, msg("another client acquired while A's remaining() still promised "
                                + TestEnvironment.millis(Duration.ofNanos(overPromise)) + " of validity"));
                        return true;
                    }
                    return remaining.isZero();
                });
        assertFalse(leaseA.isValid(), msg("isValid() was true after remaining() reached zero"));
    }

    /**
     * Rule 1.6 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.6 a lock is not re-entrant")
    public void required_1_6_notReentrant() throws InterruptedException {
        LockClient a = rig.client();
        DistributedLock lock = a.lock(rig.name);
        Lease held = rig.track(lock.tryAcquire(env().longLease()))
                .orElseThrow(() -> new AssertionError(msg("a single attempt on a free lock found it busy")));

        assertTrue(rig.track(lock.tryAcquire(env().shortLease())).isEmpty(),
                msg("a second tryAcquire through the same handle was granted while the first lease is held"));
        assertTrue(rig.track(a.lock(rig.name).tryAcquire(env().shortLease())).isEmpty(),
                msg("a second tryAcquire through the same client was granted while the first lease is held"));
        assertTrue(rig.track(a.lock(rig.name).tryAcquire(env().shortLease(), env().contentionWait())).isEmpty(),
                msg("a waiting tryAcquire through the same client was granted while the first lease is held"));
        assertTrue(held.isValid(), msg("the held lease turned invalid after re-entrant attempts"));

        held.release();
        assertTrue(rig.track(lock.tryAcquire(env().shortLease())).isPresent(),
                msg("after release, the same client could not acquire again"));
    }

    /**
     * Rule 1.7 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.7 a fenced resource accepts every write of a valid holder")
    public void required_1_7_fencedResourceAcceptsValidHolders() throws InterruptedException {
        requireFeature(Feature.FENCING_TOKENS);
        ChildClient separate = launchSeparateProcess("a contender"); // its JVM starts while the others connect
        FencedResource resource = new FencedResource();
        History history = Contention.run(rig, resource, 0, separate);
        List<HistoryChecker.Violation> violations = HistoryChecker.rejectedValidWrites(history);
        assertTrue(violations.isEmpty(), () -> msg(violations.size() + " writes of valid holders were rejected by "
                + resource + " in " + history + ":\n" + HistoryChecker.describe(violations, 5)
                + "\n(" + separate.label() + " is a client in a child JVM, whose writes carry its own tokens: a fence that"
                + " increases only within one JVM fails here)"));
        assertTrue(resource.accepted() > 0, msg("no write was accepted at all: " + resource));
        assertTrue(separate.grants() > 0, msg("the contender in a separate process was never granted the lock: " + separate));
        notes.add(resource.accepted() + " fenced writes by " + history.distinctHolders() + " clients accepted; " + separate);
    }

    /** Rule 1.8 (see SPEC.md). */
    @Test
    @DisplayName("1.8 the declaration is consistent and ended leases report it")
    public void required_1_8_consistentDeclaration() {
        BackendDescriptor declared = rig.backend();
        assertTrue(declared.guarantee() != Guarantee.CORRECTNESS || declared.has(Feature.FENCING_TOKENS),
                msg("declares CORRECTNESS without FENCING_TOKENS"));
        assertTrue(!declared.has(Feature.AUTO_RENEWAL) || declared.has(Feature.LEASE_EXTENSION),
                msg("declares AUTO_RENEWAL without LEASE_EXTENSION"));
        LockClient a = rig.client();
        assertEquals(declared, a.backend(), msg("two clients of one backend describe it differently"));

        Lease lease = rig.acquireNow(a, env().shortLease());
        assertEquals(rig.name, lease.lockName(), msg("lockName() differs from the name the lock was taken by"));
        assertEquals(declared.has(Feature.FENCING_TOKENS), lease.fencingToken().isPresent(),
                msg("fencingToken() presence disagrees with the declared features " + declared.features()));
        assertTrue(lease.remaining().compareTo(env().shortLease()) <= 0,
                msg("remaining() " + lease.remaining() + " exceeds the lease time " + env().shortLease()));
        if (!declared.has(Feature.LEASE_EXTENSION)) {
            assertThrows(UnsupportedOperationException.class, () -> lease.extend(env().shortLease()),
                    msg("extend() must throw UnsupportedOperationException without LEASE_EXTENSION"));
        }
        if (!declared.has(Feature.AUTO_RENEWAL)) {
            assertThrows(UnsupportedOperationException.class, lease::autoRenew,
                    msg("autoRenew() must throw UnsupportedOperationException without AUTO_RENEWAL"));
        }
        lease.release();
        assertFalse(lease.isValid(), msg("a released lease reports isValid() == true"));
        assertEquals(Duration.ZERO, lease.remaining(), msg("a released lease reports remaining() > 0"));
        lease.release(); // idempotent

        Lease expiring = rig.acquireNow(a, env().shortLease());
        rig.awaitInvalid(expiring, "the");
        assertEquals(Duration.ZERO, expiring.remaining(), msg("an expired lease reports remaining() > 0"));
    }
}
