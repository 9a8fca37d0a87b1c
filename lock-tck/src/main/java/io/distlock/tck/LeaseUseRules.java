package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Group 1 of {@code lock-tck/SPEC.md}, continued: what one client does with its own leases —
 * an old lease of a client must not touch the same client's newer lease of the same name (1.9),
 * and one lease used from several threads at once must never promise more than the server holds
 * (1.10). A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface LeaseUseRules extends RuleGroup {

    /**
     * Rule 1.9: ownership is per lease, not per client and name.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.9 a client's stale lease does not touch the same client's newer lease")
    default void required_1_9_ownershipWithinOneClient() throws InterruptedException {
        Rig rig = Rig.of(this);
        LockClient a = rig.client();
        LockClient c = rig.client();
        Lease stale = rig.acquireNow(a, rig.env.shortLease());
        long acquired = System.nanoTime();
        // Wait out A's first lease by the clock alone, without asking the lease: a lease found
        // invalid is handed to the engine's cleanup, whose removal could then reach the server
        // before A's new grant exists and do no harm, so a server keyed by client and name would
        // slip through. Untouched, the stale lease is released below, after the new grant.
        Duration passed = rig.env.shortLease().plus(rig.env.tolerance());
        rig.env.awaitUntil(rig.msg("waiting for A's first lease time to pass"), passed.plus(rig.env.defaultTimeout()),
                () -> System.nanoTime() - acquired > passed.toNanos());
        Lease fresh = rig.acquireWithin(a, rig.env.longLease(), rig.env.defaultTimeout(),
                "A could not acquire the lock again after its first lease expired");

        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            assertFalse(stale.extend(rig.env.longLease()), rig.msg("A's expired lease was extended"));
        }
        stale.release();
        // The release of the stale lease may reach the server after it returned (a cleanup runs
        // in the background): keep looking for a while.
        DistributedLock other = c.lock(rig.name);
        rig.env.assertHoldsFor(rig.msg("after A released its expired lease, A's newer lease must keep the lock (ownership"
                + " keyed by lease, not by client and name)"), rig.env.tolerance(), () -> {
                    if (!fresh.isValid()) {
                        throw new AssertionError(rig.msg("A's new lease turned invalid when A released its expired lease"
                                + " of the same name"));
                    }
                    if (rig.track(other.tryAcquire(rig.env.shortLease())).isPresent()) {
                        throw new AssertionError(rig.msg("after A released its expired lease, another client acquired the"
                                + " lock A's newer lease holds: ownership is keyed by client and name instead of by lease"));
                    }
                    return true;
                });
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            assertTrue(fresh.extend(rig.env.longLease()), rig.msg("A could not extend its newer lease after using its expired one:"
                    + " did the release of the expired lease take the newer one's lock (ownership keyed by client and name"
                    + " instead of by lease)?"));
            assertTrue(rig.track(c.lock(rig.name).tryAcquire(rig.env.shortLease())).isEmpty(),
                    rig.msg("another client acquired the lock while A's newer lease holds it"));
        }
    }

    /**
     * Rule 1.10: extend, auto-renewal and release of one lease from several threads at once; the
     * server must hold the lock at least as long as {@code remaining()} promised, at every check.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.10 one lease used from several threads never promises more than the server holds")
    default void required_1_10_concurrentUseNeverOverPromises() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.LEASE_EXTENSION);
        Optional<LockProbe> hook = rig.hooks.lockProbe();
        assertTrue(hook.isPresent(), rig.msg("backend '" + rig.backend().scheme() + "' declares LEASE_EXTENSION but the"
                + " verification supplies no lockProbe() to show that concurrent extensions never over-promise"));
        LockProbe probe = hook.get();
        Duration[] leaseTimes = {rig.env.scaled(Duration.ofMillis(400)), rig.env.scaled(Duration.ofMillis(800)),
                rig.env.scaled(Duration.ofMillis(1500)), rig.env.scaled(Duration.ofMillis(3000))};
        Lease lease = rig.acquireNow(rig.client(), leaseTimes[3]);
        if (rig.backend().has(Feature.AUTO_RENEWAL)) {
            lease.autoRenew();
        }
        List<String> violations = new CopyOnWriteArrayList<>();
        AtomicInteger checks = new AtomicInteger();
        AtomicInteger extensions = new AtomicInteger();
        long end = System.nanoTime() + rig.env.scaled(Duration.ofMillis(1500)).toNanos();
        List<Rig.Waiter<Boolean>> extenders = new CopyOnWriteArrayList<>();
        for (int t = 0; t < 3; t++) {
            extenders.add(rig.start("extender-" + t, () -> {
                while (System.nanoTime() - end < 0) {
                    Duration leaseTime = leaseTimes[ThreadLocalRandom.current().nextInt(leaseTimes.length)];
                    try {
                        if (!lease.extend(leaseTime)) {
                            return false;
                        }
                        extensions.incrementAndGet();
                    } catch (BackendUnavailableException e) {
                        // no answer: the lease promises the shorter of both until the next success
                    }
                }
                return true;
            }));
        }
        while (System.nanoTime() - end < 0) {
            check(rig, probe, lease, violations);
            checks.incrementAndGet();
        }
        List<String> falseExtends = new CopyOnWriteArrayList<>();
        for (Rig.Waiter<Boolean> extender : extenders) {
            if (!rig.outcome(extender, rig.env.defaultTimeout())) {
                falseExtends.add(extender.label);
            }
        }
        check(rig, probe, lease, violations);
        Rig.Waiter<Boolean> lateExtender = rig.start("late-extender", () -> {
            try {
                return lease.extend(leaseTimes[3]);
            } catch (IllegalStateException | BackendUnavailableException released) {
                return false; // released first, or no answer: either is fine here
            }
        });
        lease.release();
        rig.outcome(lateExtender, rig.env.defaultTimeout());
        assertTrue(violations.isEmpty(), () -> rig.msg(violations.size() + " of " + checks.get() + " checks found the server"
                + " holding the lock for less time than remaining() had promised just before (" + extensions.get()
                + " extensions from 3 threads" + (rig.backend().has(Feature.AUTO_RENEWAL) ? " and the auto-renewal" : "")
                + "): " + String.join("; ", violations.subList(0, Math.min(5, violations.size())))));
        assertTrue(falseExtends.isEmpty(), rig.msg("extend returned false (in " + falseExtends + ") for a lease that was"
                + " never released nor revoked"));
        assertFalse(lease.isValid(), rig.msg("the lease is valid after release()"));
        rig.env.awaitUntil(rig.msg("waiting for the server to let go after release()"),
                () -> probe.heldFor(rig.name).isEmpty()
                        || rig.track(rig.client().lock(rig.name).tryAcquire(rig.env.shortLease())).isPresent());
        rig.notes.add(checks.get() + " checks of remaining() against the server while " + extensions.get()
                + " extensions ran from 3 threads");
    }

    /**
     * Reads the promise, then asks the server: a promise that ends later than the server's hold
     * (with 2 ms for the server's whole-millisecond TTLs) is recorded.
     */
    private static void check(Rig rig, LockProbe probe, Lease lease, List<String> violations) {
        long read = System.nanoTime();
        Duration remaining = lease.remaining();
        long promise = read + remaining.toNanos();
        Optional<Duration> held = probe.heldFor(rig.name);
        long answered = System.nanoTime();
        if (remaining.isZero()) {
            return;
        }
        // The server measured its hold at some moment in [asked, answered], so it holds the lock until
        // no later than answered + held: a promise beyond that was an over-promise for sure.
        long holdsUntil = held.map(d -> answered + d.toNanos()).orElse(answered);
        long overPromise = promise - holdsUntil - Duration.ofMillis(2).toNanos();
        if (overPromise > 0 && promise - answered > 0) {
            violations.add("remaining() promised " + TestEnvironment.millis(remaining) + ", the server "
                    + held.map(d -> "held it for " + TestEnvironment.millis(d)).orElse("no longer held it")
                    + " (over-promise " + TestEnvironment.millis(Duration.ofNanos(overPromise)) + ")");
        }
    }
}
