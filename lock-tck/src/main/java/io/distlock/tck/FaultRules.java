package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.DistributedLock;
import io.distlock.Guarantee;
import io.distlock.Lease;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Group 4 of {@code lock-tck/SPEC.md}, faults: what a holder, a client or a server going wrong must
 * not break. A link of the chain that ends in {@link LockVerification} (see
 * {@link VerificationSupport}).
 */
abstract class FaultRules extends RenewalRules {

    /**
     * Rule 4.1: the one rule that sleeps, because a paused holder is what it models.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.1 a paused holder's stale write is fenced off")
    public void required_4_1_clientPauseIsFenced() throws InterruptedException {
        BackendDescriptor backend = rig.backend();
        FencedResource resource = new FencedResource();
        Lease leaseA = rig.acquireNow(rig.client(), env().shortLease());
        assertTrue(resource.write("A", leaseA.fencingToken()), msg("an empty resource rejected the first holder's write"));
        DistributedLock lockB = rig.client().lock(rig.name);
        OptionalLong[] tokenB = {OptionalLong.empty()};
        Rig.Waiter<Boolean> b = rig.start("B", () -> {
            Lease leaseB = rig.track(lockB.tryAcquire(env().longLease(), env().defaultTimeout())).orElseThrow(() ->
                    new AssertionError(msg("B did not acquire after A's lease ran out")));
            tokenB[0] = leaseB.fencingToken();
            return resource.write("B", leaseB.fencingToken());
        });

        assertTrue(leaseA.isValid(), msg("A's lease was not valid right after acquire"));
        // A has checked its lease and is about to write: now it pauses (a GC, a stopped VM) past its validity.
        Thread.sleep(leaseA.remaining().plus(env().tolerance()).toMillis());

        assertTrue(rig.outcome(b, env().defaultTimeout()), msg("the resource rejected the write of B, the valid holder"
                + " (token " + tokenB[0] + ", resource " + resource + ")"));
        assertFalse(leaseA.isValid(), msg("A's lease still reports isValid() == true after its validity passed"));
        boolean staleAccepted = resource.write("A", leaseA.fencingToken());
        if (!staleAccepted) {
            return;
        }
        if (leaseA.fencingToken().isEmpty() && backend.guarantee() == Guarantee.EFFICIENCY) {
            findings.add("4.1 client pause: the paused holder's stale write was accepted after another client"
                    + " acquired and wrote: '" + backend.scheme() + "' has no fencing tokens, so a pause longer than"
                    + " the lease lets two holders write (expected for an EFFICIENCY lock; do not use it for correctness)");
            return;
        }
        fail(msg("the resource accepted the stale write of the paused holder A (token " + leaseA.fencingToken()
                + ") after B (token " + tokenB[0] + ") wrote; declared " + backend.guarantee()));
    }
}
