package io.distlock.tck.memory;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's renewal, seen from a backend: a client holding many auto-renewed leases renews them
 * in a few shared batches (one {@code extendAll} each), not one call per lease, and keeps all of
 * them alive across several lease times. Runs on the reference backend, which counts the batches.
 */
class EngineRenewalTest {

    private static final int LEASES = 2_000;
    private static final Duration LEASE_TIME = Duration.ofMillis(600);

    @Test
    void manyAutoRenewedLeasesAreRenewedInBatchesAndStayValid() {
        MemoryServer server = MemoryServer.named("memory", "engine-renewal", Bug.NONE);
        try (LockClient client = Locks.connect("memory://engine-renewal")) {
            List<Lease> leases = new ArrayList<>(LEASES);
            List<CompletableFuture<Lease.LossReason>> losses = new ArrayList<>(LEASES);
            for (int i = 0; i < LEASES; i++) {
                Lease lease = client.lock("renewed-" + i).tryAcquire(LEASE_TIME).orElseThrow().autoRenew();
                leases.add(lease);
                losses.add(lease.lost().toCompletableFuture());
            }
            long batchesBefore = server.renewalBatches.get();
            long renewedBefore = server.renewedLeases.get();

            // Three lease times' worth of renewal: every lease renewed at least 3 × 3 times.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> server.renewedLeases.get() - renewedBefore >= 9L * LEASES);

            long batches = server.renewalBatches.get() - batchesBefore;
            long renewed = server.renewedLeases.get() - renewedBefore;
            assertThat(losses).as("no auto-renewed lease was lost").noneMatch(CompletableFuture::isDone);
            assertThat(leases).as("every auto-renewed lease is still valid").allMatch(Lease::isValid);
            assertThat(renewed / batches)
                    .as("leases per renewal batch (%d renewals in %d batches): renewals must be batched", renewed, batches)
                    .isGreaterThanOrEqualTo(LEASES / 10);
            leases.forEach(Lease::release);
            assertThat(losses).as("a released lease is never reported lost").noneMatch(CompletableFuture::isDone);
        }
    }
}
