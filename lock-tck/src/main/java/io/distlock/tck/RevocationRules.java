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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Group 4 of {@code lock-tck/SPEC.md}, continued: the server takes a lease away (rules 4.8 and
 * 4.13) or forgets everything (4.15, a restart without persistence).
 * A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface RevocationRules extends RuleGroup {

    /**
     * Rule 4.8: the server revokes the holder's lease (a session expiry): {@code lost()} completes,
     * a waiter acquires long before the holder's lease time would have ended, and the stale
     * holder's fenced write is rejected.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.8 a lease the server revokes is lost, handed on, and its holder fenced off")
    default void required_4_8_revokedLeaseIsLostAndFenced() throws InterruptedException {
        Rig rig = Rig.of(this);
        BackendDescriptor backend = rig.backend();
        // A CORRECTNESS backend must show the fence even without loss notification: only the
        // lost() part of the rule needs the feature.
        boolean notified = backend.has(Feature.LOSS_NOTIFICATION);
        if (backend.guarantee() != Guarantee.CORRECTNESS) {
            rig.requireFeature(Feature.LOSS_NOTIFICATION);
        }
        LeaseRevocation revocation = rig.requireRevocation();
        FencedResource resource = new FencedResource();
        LockClient holder = rig.client();
        Lease leaseA = rig.acquireNow(holder, rig.env.longLease());
        if (backend.has(Feature.AUTO_RENEWAL)) {
            leaseA.autoRenew(); // how a TTL-based backend learns of a revocation: its renewal finds the lock gone
        }
        CompletableFuture<Lease.LossReason> lostA = notified ? leaseA.lost().toCompletableFuture() : null;
        assertTrue(resource.write("A", leaseA.fencingToken()), rig.msg("an empty resource rejected the first holder's write"));
        DistributedLock lockB = rig.client().lock(rig.name);
        OptionalLong[] tokenB = {OptionalLong.empty()};
        Rig.Waiter<Boolean> b = rig.start("B", () -> {
            Lease leaseB = rig.track(lockB.tryAcquire(rig.env.longLease(), rig.env.defaultTimeout())).orElseThrow(() ->
                    new AssertionError(rig.msg("B did not acquire within " + TestEnvironment.millis(rig.env.defaultTimeout())
                            + " of the revocation of A's lease (A's lease time is " + TestEnvironment.millis(rig.env.longLease()) + ")")));
            tokenB[0] = leaseB.fencingToken();
            return resource.write("B", leaseB.fencingToken());
        });
        rig.awaitBlocked(b);

        long revoked = System.nanoTime();
        revocation.revoke(holder, rig.name);

        assertTrue(rig.outcome(b, rig.env.defaultTimeout().plus(rig.env.tolerance())), rig.msg("the resource rejected the write of B,"
                + " the valid holder (token " + tokenB[0] + ", resource " + resource + ")"));
        Duration handOff = TestEnvironment.since(revoked);
        assertTrue(handOff.compareTo(rig.env.longLease()) < 0, rig.msg("B acquired only " + TestEnvironment.millis(handOff)
                + " after the revocation: the lock waited for A's lease time instead"));
        String reason = "not notified (no LOSS_NOTIFICATION)";
        if (notified) {
            try {
                reason = String.valueOf(lostA.get(rig.env.defaultTimeout().toNanos(), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError(rig.msg("A's lost() did not complete within " + TestEnvironment.millis(rig.env.defaultTimeout())
                        + " of B's acquire, after the server revoked A's lease"), e);
            } catch (ExecutionException e) {
                throw new AssertionError(rig.msg("A's lost() completed exceptionally: " + e.getCause()), e.getCause());
            }
            assertFalse(leaseA.isValid(), rig.msg("A's lease reports isValid() == true after lost() completed with " + reason));
        }
        boolean staleAccepted = resource.write("A", leaseA.fencingToken());
        if (!staleAccepted) {
            rig.notes.add("4.8 revocation: A's lease was lost (" + reason + ") " + TestEnvironment.millis(TestEnvironment.since(revoked))
                    + " after the revocation; B acquired after " + TestEnvironment.millis(handOff) + "; A's stale write was rejected");
            return;
        }
        if (leaseA.fencingToken().isEmpty() && backend.guarantee() == Guarantee.EFFICIENCY) {
            rig.findings.add("4.8 revocation: the revoked holder's stale write was accepted after another client acquired"
                    + " and wrote: '" + backend.scheme() + "' has no fencing tokens (expected for an EFFICIENCY lock)");
            return;
        }
        fail(rig.msg("the resource accepted the stale write of A (token " + leaseA.fencingToken() + "), whose lease the server"
                + " revoked, after B (token " + tokenB[0] + ") wrote; declared " + backend.guarantee()));
    }

    /**
     * Rule 4.13: a holder whose lease the server revoked may still believe it holds the lock; its
     * {@code extend} must reach the server, find the lock gone, return false, and leave the new
     * holder's lock alone — and, when nobody took the lock since, leave it free.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.13 a revoked holder's extend returns false and does not take the lock back")
    default void required_4_13_revokedHolderCannotExtend() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.LEASE_EXTENSION);
        LeaseRevocation revocation = rig.requireRevocation();
        LockClient a = rig.client();
        LockClient b = rig.client();
        LockClient c = rig.client();
        Lease leaseA = rig.acquireNow(a, rig.env.longLease()); // not auto-renewed: A learns nothing on its own
        revocation.revoke(a, rig.name);
        Lease leaseB = rig.acquireWithin(b, rig.env.longLease(), rig.env.defaultTimeout(),
                "B could not acquire after the server revoked A's lease");
        boolean believed = leaseA.isValid();

        boolean extended = leaseA.extend(rig.env.longLease());

        assertFalse(extended, rig.msg("A's extend returned true after the server revoked A's lease and B acquired"
                + (believed ? " (A still believed its lease valid: its extend is not a compare-and-extend on the server)" : "")));
        assertFalse(leaseA.isValid(), rig.msg("A's lease is valid after its extend found the lock gone"));
        assertTrue(leaseB.isValid(), rig.msg("B's lease turned invalid when A tried to extend its revoked lease"));
        assertTrue(rig.track(c.lock(rig.name).tryAcquire(rig.env.shortLease())).isEmpty(),
                rig.msg("a third client acquired the lock B holds after A's extend: the extend took it from B"));
        assertTrue(leaseB.extend(rig.env.longLease()), rig.msg("B could not extend its lease after A's extend: A's extend took it"));
        rig.notes.add(believed ? "A still believed its lease valid when it extended; the server said no"
                : "A already knew its lease was gone when it extended");

        // A revoked holder's extend on a lock nobody took since: the lock is free, and an extend that
        // takes a free lock (a re-lock that cannot tell "mine" from "nobody's") would bring the lease back.
        LockClient d = rig.client();
        String free = rig.name + "-free";
        Lease leaseD = rig.acquireNow(d, free, rig.env.longLease());
        revocation.revoke(d, free);
        assertFalse(leaseD.extend(rig.env.longLease()), rig.msg("D's extend returned true after the server revoked D's lease"
                + " and nobody took the lock: the extend took the free lock back"));
        assertFalse(leaseD.isValid(), rig.msg("D's lease is valid after its extend of a revoked lease"));
        assertTrue(rig.track(c.lock(free).tryAcquire(rig.env.longLease(), rig.env.handOffTimeout())).isPresent(),
                rig.msg("a third client could not acquire the lock whose holder the server revoked, after that holder's extend:"
                        + " the extend took the free lock back"));
    }

    /**
     * Rule 4.15: fencing tokens keep increasing across a restart of the server (one node of a
     * quorum) without persistence. The grant after the restart goes to a client in a separate
     * process, so that a fence kept in the clients' JVM does not pass for one kept by the servers.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.15 fencing tokens survive a restart without persistence")
    default void required_4_15_fencesSurviveRestart() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.FENCING_TOKENS);
        BackendDescriptor backend = rig.backend();
        Optional<ServerRestart> hook = rig.hooks.serverRestart();
        assertTrue(hook.isPresent(), rig.msg("backend '" + backend.scheme() + "' declares FENCING_TOKENS but the verification"
                + " supplies no serverRestart() to show its tokens survive a restart without persistence"));
        Optional<String> impossible = hook.get().impossibleBecause();
        assumeTrue(impossible.isEmpty(), () -> VerdictExtension.DOES_NOT_APPLY + "a restart without persistence cannot"
                + " happen to '" + backend.scheme() + "': " + impossible.orElse(""));
        ChildClient b = rig.launchSeparateProcess("B"); // its JVM starts while A takes its grants and the server restarts
        long highest = Long.MIN_VALUE;
        for (int i = 0; i < 3; i++) {
            Lease lease = rig.acquireNow(rig.client(), rig.env.shortLease());
            highest = Math.max(highest, rig.token(lease));
            lease.release();
        }
        hook.get().restartWithoutPersistence();
        ChildClient.Grant[] after = {null};
        rig.env.awaitUntil(rig.msg("waiting for " + b.label() + " to acquire after the restart"),
                rig.env.defaultTimeout().plus(rig.env.defaultTimeout()), () -> {
                    try {
                        after[0] = b.tryAcquire(rig.name, rig.env.shortLease(), null).orElse(null);
                    } catch (io.distlock.BackendUnavailableException reconnecting) {
                        return false;
                    }
                    return after[0] != null;
                });
        long token = rig.token(after[0], b);
        b.release(after[0]);
        if (token > highest) {
            rig.notes.add("token " + token + " after the restart, above " + highest + " before it; " + b);
            return;
        }
        String what = "4.15 restart without persistence: the server restarted empty and handed out fencing token " + token
                + " to " + b.label() + " after " + highest + " (a stale holder's write would be accepted)";
        if (backend.guarantee() == Guarantee.EFFICIENCY) {
            rig.findings.add(what + ": expected for an EFFICIENCY lock whose fence lives with the server's memory");
            return;
        }
        fail(rig.msg(what + "; declared " + backend.guarantee()));
    }
}
