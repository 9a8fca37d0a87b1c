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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Group 3 of {@code lock-tck/SPEC.md}, renewal: {@code extend}, {@code autoRenew}, renewal ending at
 * release, loss notification, extending an ended lease, and renewal of many leases at once.
 * A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface RenewalRules extends RuleGroup {

    /** Rule 3.1 (see SPEC.md). */
    @Test
    @DisplayName("3.1 extend prolongs the lease")
    default void required_3_1_extendProlongsLease() {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.LEASE_EXTENSION);
        Duration leaseTime = rig.env.shortLease();
        Duration extended = leaseTime.multipliedBy(3);
        DistributedLock probe = rig.client().lock(rig.name);
        long beforeA;
        Lease extendedLease;
        Duration before;
        long extendStart;
        for (int attempt = 1; ; attempt++) {
            beforeA = System.nanoTime();
            Lease lease = rig.acquireNow(rig.client(), leaseTime);
            before = lease.remaining();
            extendStart = System.nanoTime();
            boolean ok = lease.extend(extended);
            Duration took = Duration.ofNanos(System.nanoTime() - extendStart);
            if (ok) {
                extendedLease = lease;
                break;
            }
            // false is right for a lease whose validity passed before the extension was sent: on a
            // loaded machine a 300 ms lease can run out between the grant and the call. Only a lease
            // with validity left beyond the whole call was surely still valid when it was sent.
            assertTrue(before.compareTo(took) <= 0 && attempt < 3, rig.msg("extend of a held lease returned false with "
                    + TestEnvironment.millis(before) + " of validity left just before the call, which took "
                    + TestEnvironment.millis(took) + (attempt > 1 ? " (attempt " + attempt + ")" : "")));
            rig.notes.add("attempt " + attempt + ": the lease had " + TestEnvironment.millis(before) + " left and the extension took "
                    + TestEnvironment.millis(took) + ", so its validity may have passed before it was sent: tried again");
            lease.release();
        }
        Lease lease = extendedLease;
        long originalEnd = beforeA + leaseTime.toNanos();
        Duration after = lease.remaining();
        assertTrue(after.compareTo(extended) <= 0, rig.msg("remaining() " + after + " exceeds the new lease time " + extended));
        assertTrue(after.compareTo(before) > 0, rig.msg("remaining() was not recomputed by extend: " + before + " then " + after));

        // Valid until the new end, less the tolerance for the extension's own round trip and the
        // drift allowance: checked at every look until then (a probe on a loaded server can end
        // past the new end, where the lease may rightly be over).
        long mustBeValidUntil = extendStart + extended.toNanos() - rig.env.tolerance().toNanos();
        rig.env.assertHoldsUntil(rig.msg("no other client acquires past the original end of an extended lease"),
                originalEnd + rig.env.tolerance().toNanos(),
                () -> {
                    boolean valid = lease.isValid();
                    assertTrue(valid || System.nanoTime() - mustBeValidUntil >= 0,
                            rig.msg("the extended lease turned invalid before its new end"));
                    return rig.track(probe.tryAcquire(leaseTime)).isEmpty();
                });
        assertTrue(lease.isValid() || System.nanoTime() - mustBeValidUntil >= 0,
                rig.msg("the extended lease turned invalid before its new end"));
        lease.release();
        assertTrue(rig.track(probe.tryAcquire(leaseTime)).isPresent(), rig.msg("after release, another client could not acquire"));
    }

    /** Rule 3.2 (see SPEC.md). */
    @Test
    @DisplayName("3.2 autoRenew keeps the lease across many lease times")
    default void required_3_2_autoRenewKeepsLease() {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.AUTO_RENEWAL);
        Duration leaseTime = rig.env.shortLease();
        Lease lease = rig.acquireNow(rig.client(), leaseTime).autoRenew();
        DistributedLock probe = rig.client().lock(rig.name);
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();

        long start = System.nanoTime();
        rig.env.assertHoldsFor(rig.msg("an auto-renewed lease stays valid and exclusive for 5 lease times"),
                leaseTime.multipliedBy(5), () -> {
                    String after = " after " + TestEnvironment.millis(TestEnvironment.since(start));
                    assertTrue(lease.isValid(), rig.msg("the auto-renewed lease turned invalid" + after));
                    assertFalse(lost.isDone(), rig.msg("lost() of the auto-renewed lease completed" + after));
                    assertTrue(lease.remaining().compareTo(leaseTime) <= 0,
                            rig.msg("remaining() " + lease.remaining() + " exceeds the lease time " + leaseTime + after));
                    return rig.track(probe.tryAcquire(leaseTime)).isEmpty();
                });
        lease.release();
        assertTrue(rig.track(probe.tryAcquire(leaseTime)).isPresent(), rig.msg("after release, another client could not acquire"));
    }

    /**
     * Rule 3.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("3.3 renewal stops after release")
    default void required_3_3_renewalStopsAfterRelease() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.AUTO_RENEWAL);
        Duration leaseTime = rig.env.shortLease();
        Lease leaseA = rig.acquireNow(rig.client(), leaseTime).autoRenew();
        rig.env.assertHoldsFor(rig.msg("an auto-renewed lease stays valid past its lease time"), leaseTime.multipliedBy(2),
                leaseA::isValid);
        leaseA.release();

        LockClient b = rig.client();
        long beforeB = System.nanoTime();
        Lease leaseB = rig.track(b.lock(rig.name).tryAcquire(leaseTime)).orElseThrow(() -> new AssertionError(
                rig.msg("right after A released its auto-renewed lease, a single attempt of B found the lock held")));
        long promiseB = System.nanoTime() + leaseB.remaining().toNanos();
        DistributedLock probe = rig.client().lock(rig.name);
        List<Lease> probed = new CopyOnWriteArrayList<>();
        rig.env.assertHoldsUntil(rig.msg("nobody else acquires while B's lease is valid"), promiseB, () -> {
            Optional<Lease> got = rig.track(probe.tryAcquire(leaseTime));
            got.ifPresent(probed::add); // legitimate only if the probe ended after B's validity
            return got.isEmpty();
        });

        Optional<Lease> after = probed.isEmpty()
                ? rig.track(probe.tryAcquire(leaseTime, rig.env.handOffTimeout()))
                : Optional.of(probed.get(0));
        assertTrue(after.isPresent(), rig.msg("B's lease of " + TestEnvironment.millis(leaseTime) + " was still held "
                + TestEnvironment.millis(TestEnvironment.since(beforeB)) + " after B acquired it:"
                + " something kept it held (A's renewal running on after release? a leftover request?)"));
        assertFalse(leaseA.lost().toCompletableFuture().isDone(), rig.msg("lost() of a released lease completed"));
    }

    /**
     * Rule 3.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("3.4 loss is signalled, and only for leases that were not released")
    default void required_3_4_lossIsSignalled() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.LOSS_NOTIFICATION);
        Duration leaseTime = rig.env.shortLease();
        LockClient a = rig.client();
        long beforeA = System.nanoTime();
        Lease lease = rig.acquireNow(a, leaseTime);
        long promise = System.nanoTime() + lease.remaining().toNanos();
        AtomicLong lostAt = new AtomicLong();
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture()
                .whenComplete((reason, error) -> lostAt.set(System.nanoTime()));

        Lease.LossReason reason;
        try {
            reason = lost.get(leaseTime.plus(rig.env.defaultTimeout()).toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(rig.msg("lost() did not complete for a lease that was neither released nor renewed"), e);
        } catch (ExecutionException e) {
            throw new AssertionError(rig.msg("lost() completed exceptionally"), e.getCause());
        }
        assertEquals(Lease.LossReason.EXPIRED, reason, rig.msg("a lease that simply ran out was lost for another reason"));
        assertTrue(lostAt.get() - promise >= 0, rig.msg("lost() completed before the lease's validity passed"));
        Duration late = Duration.ofNanos(lostAt.get() - beforeA).minus(leaseTime);
        assertTrue(late.compareTo(rig.env.tolerance()) <= 0, rig.msg("lost() completed " + TestEnvironment.millis(late)
                + " after the lease time ended; at most " + TestEnvironment.millis(rig.env.tolerance())));
        assertFalse(lease.isValid(), rig.msg("a lost lease reports isValid() == true"));

        // Another name: the server may hold the lost lease for the drift allowance after lost() completed.
        Lease released = rig.acquireNow(a, rig.name + "-released", leaseTime);
        CompletableFuture<Lease.LossReason> releasedLost = released.lost().toCompletableFuture();
        released.release();
        rig.env.assertHoldsFor(rig.msg("lost() of a released lease never completes"), leaseTime.plus(rig.env.tolerance()),
                () -> !releasedLost.isDone());
    }

    /**
     * Rule 3.6 (see SPEC.md): renewal must scale with the leases a client holds. A driver that renews
     * one lease per round trip (the SPI's default {@code extendAll} over a real link) passes 3.2 with
     * one lease and loses leases once a renewal tick outlasts the lease time.
     */
    @Test
    @DisplayName("3.6 many auto-renewed leases of one client all stay held")
    default void required_3_6_manyAutoRenewedLeasesStayHeld() {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.AUTO_RENEWAL);
        // Three short leases: a loaded machine's scheduling hiccups stay well inside what is left of a
        // lease after the engine's renewal point (a third in), while 500 round trips of 1.2 ms do not.
        Duration leaseTime = rig.env.shortLease().multipliedBy(3);
        int count = rig.env.renewedLeases();
        LockClient holder = rig.client();
        List<Lease> leases = new ArrayList<>(count);
        List<CompletableFuture<Lease.LossReason>> losses = new ArrayList<>(count);
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            Lease lease = rig.acquireNow(holder, rig.name + "-" + i, leaseTime).autoRenew();
            leases.add(lease);
            losses.add(lease.lost().toCompletableFuture());
        }
        String acquired = count + " leases of " + TestEnvironment.millis(leaseTime) + " acquired in "
                + TestEnvironment.millis(TestEnvironment.since(start));
        // Another client probes the first, a middle and the last name: each must stay held.
        LockClient other = rig.client();
        int[] probed = {0, count / 2, count - 1};
        List<DistributedLock> probes = new ArrayList<>(probed.length);
        for (int i : probed) {
            probes.add(other.lock(rig.name + "-" + i));
        }

        long held = System.nanoTime();
        rig.env.assertHoldsFor(rig.msg("every one of " + count + " auto-renewed leases of one client stays valid and exclusive"
                + " for 3 lease times (" + acquired + ")"), leaseTime.multipliedBy(3), () -> {
                    for (int i = 0; i < count; i++) {
                        assertStillHeld(rig, i, count, leases.get(i), losses.get(i), held, acquired);
                    }
                    for (int p = 0; p < probed.length; p++) {
                        if (rig.track(probes.get(p).tryAcquire(leaseTime)).isPresent()) {
                            // The lease may have lapsed between the sweep above and this probe: then the
                            // renewal was late. Only a holder that still believes its lease valid now, after
                            // another client was granted the name, is a double grant.
                            int i = probed[p];
                            assertStillHeld(rig, i, count, leases.get(i), losses.get(i), held, acquired);
                            return false;
                        }
                    }
                    return true;
                });
        for (int i = 0; i < count; i++) {
            assertFalse(losses.get(i).isDone(), rig.msg("lease " + (i + 1) + " of " + count + " was lost (" + losses.get(i).getNow(null)
                    + ") " + TestEnvironment.millis(TestEnvironment.since(held)) + " after all were held, before its release"));
            leases.get(i).release();
        }
        for (int i = 0; i < count; i++) {
            assertFalse(losses.get(i).isDone(), rig.msg("lost() of released lease " + (i + 1) + " of " + count + " completed"));
        }
        assertTrue(rig.track(probes.get(2).tryAcquire(leaseTime)).isPresent(),
                rig.msg("after the releases, another client could not acquire the last name"));
        rig.notes.add("3.6: " + acquired + "; all held and renewed for " + TestEnvironment.millis(leaseTime.multipliedBy(3)));
    }

    /** Rule 3.6's check of one lease: neither lost nor invalid, or a failure that asks why renewal fell behind. */
    private static void assertStillHeld(Rig rig, int i, int count, Lease lease, CompletableFuture<Lease.LossReason> loss,
            long heldNanos, String acquired) {
        String which = "lease " + (i + 1) + " of " + count + " ";
        String after = " " + TestEnvironment.millis(TestEnvironment.since(heldNanos)) + " after all were held (" + acquired
                + "): does renewal cost a round trip per lease?";
        assertFalse(loss.isDone(), rig.msg(which + "was lost (" + loss.getNow(null) + ")" + after));
        assertTrue(lease.isValid(), rig.msg(which + "turned invalid" + after));
    }

    /**
     * Rule 3.5 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("3.5 extend fails after expiry, and throws after release")
    default void required_3_5_extendAfterEnd() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.LEASE_EXTENSION);
        LockClient a = rig.client();
        Lease expired = rig.acquireNow(a, rig.env.shortLease());
        rig.awaitInvalid(expired, "A's");
        Lease other = rig.acquireWithin(rig.client(), rig.env.longLease(), rig.env.defaultTimeout(),
                "B could not acquire after A's lease expired");
        assertFalse(expired.extend(rig.env.shortLease()), rig.msg("extend of an expired lease, since granted to B, returned true"));
        assertFalse(expired.isValid(), rig.msg("an expired lease reports isValid() == true after a failed extend"));
        if (rig.backend().has(Feature.LOSS_NOTIFICATION)) {
            rig.env.awaitUntil(rig.msg("waiting for lost() of an expired lease whose extend failed to complete"), rig.env.tolerance(),
                    () -> expired.lost().toCompletableFuture().isDone());
        }
        other.release();

        Lease released = rig.acquireNow(a, rig.env.shortLease());
        released.release();
        assertThrows(IllegalStateException.class, () -> released.extend(rig.env.shortLease()),
                rig.msg("extend of a released lease must throw IllegalStateException"));
        if (rig.backend().has(Feature.AUTO_RENEWAL)) {
            assertThrows(IllegalStateException.class, released::autoRenew,
                    rig.msg("autoRenew of a released lease must throw IllegalStateException"));
        }
    }
}
