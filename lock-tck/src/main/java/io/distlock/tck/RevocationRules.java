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
 * Group 4 of {@code lock-tck/SPEC.md}, continued: the server takes a lease away (rule 4.8). A link
 * of the chain that ends in {@link LockVerification} (see {@link VerificationSupport}).
 */
abstract class RevocationRules extends FaultRules {

    /**
     * Rule 4.8: the server revokes the holder's lease (a session expiry): {@code lost()} completes,
     * a waiter acquires long before the holder's lease time would have ended, and the stale
     * holder's fenced write is rejected.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.8 a lease the server revokes is lost, handed on, and its holder fenced off")
    public void required_4_8_revokedLeaseIsLostAndFenced() throws InterruptedException {
        requireFeature(Feature.LOSS_NOTIFICATION);
        BackendDescriptor backend = rig.backend();
        Optional<LeaseRevocation> hook = leaseRevocation();
        if (hook.isEmpty()) {
            assertTrue(backend.guarantee() != Guarantee.CORRECTNESS, msg("the verification supplies no leaseRevocation():"
                    + " a CORRECTNESS backend must show that a holder whose lease the server revoked is fenced off"));
            assumeTrue(false, "skipped: the verification of backend '" + backend.scheme() + "' supplies no leaseRevocation() hook");
        }
        FencedResource resource = new FencedResource();
        LockClient holder = rig.client();
        Lease leaseA = rig.acquireNow(holder, env().longLease());
        if (backend.has(Feature.AUTO_RENEWAL)) {
            leaseA.autoRenew(); // how a TTL-based backend learns of a revocation: its renewal finds the lock gone
        }
        CompletableFuture<Lease.LossReason> lostA = leaseA.lost().toCompletableFuture();
        assertTrue(resource.write("A", leaseA.fencingToken()), msg("an empty resource rejected the first holder's write"));
        DistributedLock lockB = rig.client().lock(rig.name);
        OptionalLong[] tokenB = {OptionalLong.empty()};
        Rig.Waiter<Boolean> b = rig.start("B", () -> {
            Lease leaseB = rig.track(lockB.tryAcquire(env().longLease(), env().defaultTimeout())).orElseThrow(() ->
                    new AssertionError(msg("B did not acquire within " + TestEnvironment.millis(env().defaultTimeout())
                            + " of the revocation of A's lease (A's lease time is " + TestEnvironment.millis(env().longLease()) + ")")));
            tokenB[0] = leaseB.fencingToken();
            return resource.write("B", leaseB.fencingToken());
        });
        rig.awaitBlocked(b);

        long revoked = System.nanoTime();
        hook.get().revoke(holder, rig.name);

        assertTrue(rig.outcome(b, env().defaultTimeout().plus(env().tolerance())), msg("the resource rejected the write of B,"
                + " the valid holder (token " + tokenB[0] + ", resource " + resource + ")"));
        Duration handOff = TestEnvironment.since(revoked);
        assertTrue(handOff.compareTo(env().longLease()) < 0, msg("B acquired only " + TestEnvironment.millis(handOff)
                + " after the revocation: the lock waited for A's lease time instead"));
        Lease.LossReason reason;
        try {
            reason = lostA.get(env().defaultTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(msg("A's lost() did not complete within " + TestEnvironment.millis(env().defaultTimeout())
                    + " of B's acquire, after the server revoked A's lease"), e);
        } catch (ExecutionException e) {
            throw new AssertionError(msg("A's lost() completed exceptionally: " + e.getCause()), e.getCause());
        }
        assertFalse(leaseA.isValid(), msg("A's lease reports isValid() == true after lost() completed with " + reason));
        boolean staleAccepted = resource.write("A", leaseA.fencingToken());
        if (!staleAccepted) {
            notes.add("4.8 revocation: A's lease was lost (" + reason + ") " + TestEnvironment.millis(TestEnvironment.since(revoked))
                    + " after the revocation; B acquired after " + TestEnvironment.millis(handOff) + "; A's stale write was rejected");
            return;
        }
        if (leaseA.fencingToken().isEmpty() && backend.guarantee() == Guarantee.EFFICIENCY) {
            findings.add("4.8 revocation: the revoked holder's stale write was accepted after another client acquired"
                    + " and wrote: '" + backend.scheme() + "' has no fencing tokens (expected for an EFFICIENCY lock)");
            return;
        }
        fail(msg("the resource accepted the stale write of A (token " + leaseA.fencingToken() + "), whose lease the server"
                + " revoked, after B (token " + tokenB[0] + ") wrote; declared " + backend.guarantee()));
    }
}
