package io.distlock.tck.memory;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's side of a session-based store, on the reference shaped like one
 * ({@code memory-session}): a suspended connection makes every lease of the client invalid until it
 * is restored, and a lease nobody releases is ended on the server at the end of its validity,
 * because the server will not.
 */
class EngineSessionTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);
    private static final Duration SHORT_LEASE = Duration.ofMillis(300);

    @Test
    void aSuspendedConnectionMakesLeasesInvalidUntilRestored() {
        MemoryServer server = MemoryServer.named("memory-session", "engine-suspend", Bug.NO_EXPIRY);
        try (LockClient a = Locks.connect("memory-session://engine-suspend");
             LockClient b = Locks.connect("memory-session://engine-suspend")) {
            Lease lease = a.lock("suspended").tryAcquire(LONG_LEASE).orElseThrow();
            CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
            assertThat(lease.isValid()).isTrue();

            server.suspendConnections();

            assertThat(lease.isValid()).as("no validity is promised on a suspended connection").isFalse();
            assertThat(lease.remaining()).isZero();
            assertThat(lost).as("a suspension alone is not a loss").isNotDone();
            assertThat(b.lock("suspended").tryAcquire(SHORT_LEASE)).as("the server still holds A's grant").isEmpty();

            server.restoreConnections();

            assertThat(lease.isValid()).as("restored with the session: valid again").isTrue();
            assertThat(lease.remaining()).isPositive().isLessThanOrEqualTo(LONG_LEASE);
            assertThat(lost).isNotDone();
            lease.release();
        }
    }

    @Test
    void aLeaseNobodyReleasesIsEndedOnTheServerAtTheEndOfItsValidity() throws Exception {
        MemoryServer.named("memory-session", "engine-expiry", Bug.NO_EXPIRY);
        try (LockClient a = Locks.connect("memory-session://engine-expiry");
             LockClient b = Locks.connect("memory-session://engine-expiry")) {
            // Nobody listens to lost() and nothing renews: the engine must still end the lease.
            Lease lease = a.lock("stopped").tryAcquire(SHORT_LEASE).orElseThrow();
            long start = System.nanoTime();
            Optional<Lease> next = b.lock("stopped").tryAcquire(LONG_LEASE, Duration.ofSeconds(5));
            long waited = System.nanoTime() - start;
            assertThat(next).as("B acquires once A's lease time passed, on a server that never expires").isPresent();
            assertThat(Duration.ofNanos(waited)).isLessThan(SHORT_LEASE.plusSeconds(1));
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.EXPIRED);
            next.get().release();
        }
    }

    @Test
    void aLeaseThatExpiresDuringASuspensionIsLost() {
        MemoryServer server = MemoryServer.named("memory-session", "engine-suspend-expiry", Bug.NO_EXPIRY);
        try (LockClient a = Locks.connect("memory-session://engine-suspend-expiry")) {
            Lease lease = a.lock("expires-while-suspended").tryAcquire(SHORT_LEASE).orElseThrow();
            server.suspendConnections();
            await().atMost(Duration.ofSeconds(5)).until(() -> lease.lost().toCompletableFuture().isDone());
            server.restoreConnections();
            assertThat(lease.isValid()).as("its validity passed meanwhile: restoring does not revive it").isFalse();
        }
    }
}
