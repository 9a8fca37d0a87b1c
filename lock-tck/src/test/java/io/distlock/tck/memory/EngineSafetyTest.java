package io.distlock.tck.memory;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Engine paths no generic TCK rule can reach, because they need the server to misbehave on cue:
 * a grant whose reply arrives after the caller was interrupted, and a loss the backend reports on
 * its own. Runs on the reference backend, which can hold replies and revoke grants.
 */
class EngineSafetyTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    @Test
    void aGrantWhoseReplyArrivesAfterAnInterruptIsGivenBack() throws Exception {
        MemoryServer server = MemoryServer.named("memory", "engine-interrupt", Bug.NONE);
        try (LockClient a = Locks.connect("memory://engine-interrupt");
             LockClient b = Locks.connect("memory://engine-interrupt")) {
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch replyHeld = server.holdRepliesUntil(gate);
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            Thread acquirer = new Thread(() -> {
                try {
                    outcome.complete(a.lock("interrupted").acquire(LONG_LEASE));
                } catch (InterruptedException e) {
                    outcome.complete(e);
                } catch (RuntimeException e) {
                    outcome.completeExceptionally(e);
                }
            }, "acquirer");
            acquirer.start();
            try {
                assertThat(replyHeld.await(10, TimeUnit.SECONDS)).as("the acquire reached the server").isTrue();
                // The server has granted the lock; its reply is on the wire when the caller gives up.
                acquirer.interrupt();
            } finally {
                server.stopHoldingReplies();
            }
            assertThat(outcome.get(10, TimeUnit.SECONDS))
                    .as("an acquire interrupted while its grant was in flight reports the interrupt")
                    .isInstanceOf(InterruptedException.class);
            assertThat(b.lock("interrupted").tryAcquire(LONG_LEASE))
                    .as("the late grant was given back: another client acquires at once").isPresent();
        }
    }

    @Test
    void aLossReportedByTheBackendCompletesLostAndEndsTheLease() throws Exception {
        MemoryServer server = MemoryServer.named("memory", "engine-revoke", Bug.NONE);
        try (LockClient a = Locks.connect("memory://engine-revoke");
             LockClient b = Locks.connect("memory://engine-revoke");
             LockClient c = Locks.connect("memory://engine-revoke")) {
            Lease lease = a.lock("revoked").tryAcquire(LONG_LEASE).orElseThrow();
            CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();

            server.revoke("revoked");

            assertThat(lost.get(10, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.remaining()).isZero();
            assertThat(lease.extend(LONG_LEASE)).as("a lost lease cannot be extended back to life").isFalse();
            Lease next = b.lock("revoked").tryAcquire(LONG_LEASE).orElseThrow();
            lease.release(); // owner-only: must not touch B's lease
            assertThat(next.isValid()).isTrue();
            assertThat(c.lock("revoked").tryAcquire(Duration.ofMillis(100))).as("B still holds the lock").isEmpty();
            next.release();
        }
    }
}
