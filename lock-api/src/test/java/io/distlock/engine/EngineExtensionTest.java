package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Extensions and renewals, on a manual clock (issue 9, items 4 and 5): one extension in flight per
 * lease, the caller's and the keeper's serialised; validity only ever raised by a confirmed
 * extension; an unknown renewal retried until the validity ends; the keeper's next look at a
 * lease read from its latest state, each of many leases looked at in its own time.
 */
class EngineExtensionTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private final ExecutorService io = Executors.newSingleThreadExecutor();
    private final ManualRuntime runtime = new ManualRuntime(io);
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, false);
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://test"),
            LockOptions.defaults(), runtime);

    @AfterEach
    void close() {
        CountDownLatch gate = driver.extendGate;
        if (gate != null) {
            gate.countDown();
        }
        client.close();
        io.shutdownNow();
    }

    @Test
    void theCallersExtendWaitsForTheKeepersRenewalInFlightAndNeitherShortensTheLease() throws Exception {
        Lease lease = client.lock("serial").tryAcquire(LEASE).orElseThrow().autoRenew();
        CountDownLatch slowServer = new CountDownLatch(1);
        driver.extendGate = slowServer;
        runtime.advance(TimeUnit.SECONDS.toNanos(1)); // a third into the lease: the keeper sends the renewal
        await().atMost(Duration.ofSeconds(5)).until(() -> driver.extensionsInFlight.get() == 1);

        CompletableFuture<Boolean> callers = CompletableFuture.supplyAsync(() -> lease.extend(Duration.ofMillis(500)));
        // The caller's extension must not go out while the keeper's is on its way.
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2))
                .until(() -> driver.extensionsInFlight.get() == 1 && !callers.isDone());
        Duration promised = lease.remaining();

        slowServer.countDown();
        assertThat(callers.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(driver.maxExtensionsInFlight.get()).as("extensions of one lease in flight at once").isEqualTo(1);
        assertThat(lease.remaining()).as("a shorter extension never lowers the validity").isGreaterThanOrEqualTo(promised.minusMillis(1));
        ScriptedDriver.Held onServer = driver.server.get("serial");
        assertThat(onServer.expiresAt() - runtime.nanoTime()).as("the server holds at least what is promised")
                .isGreaterThanOrEqualTo(lease.remaining().toNanos());
    }

    @Test
    void leasesDueWhileTheIoThreadIsBusyAreRenewedInOneBatch() throws Exception {
        // One I/O thread, held by the first lease's renewal (a slow server). The other two leases come
        // due one after the other, each too early in its lease to join the batch before it: the second
        // lease's batch waits for the thread, and the third lease joins it rather than queue its own.
        CountDownLatch slowServer = new CountDownLatch(1);
        driver.extendGate = slowServer;
        Lease first = client.lock("busy-first").tryAcquire(LEASE).orElseThrow().autoRenew();
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(600));
        Lease second = client.lock("busy-second").tryAcquire(LEASE).orElseThrow().autoRenew();
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(700)); // t = 1.3 s: the first lease's renewal went out at 1 s, and hangs
        await().atMost(Duration.ofSeconds(5)).until(() -> driver.extensionsInFlight.get() == 1);
        Lease third = client.lock("busy-third").tryAcquire(LEASE).orElseThrow().autoRenew();
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(400)); // t = 1.7 s: the second is due; the third, 0.4 s in, is not
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(700)); // t = 2.4 s: the third is due, the first still valid
        assertThat(driver.count("extendAll")).as("still the first lease's batch only").isEqualTo(1);
        slowServer.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> driver.count("extendAll") >= 2 && driver.extensionsInFlight.get() == 0);
        assertThat(driver.calls.stream().filter(call -> call.startsWith("extendAll")).toList())
                .as("the first lease's batch, then one with both leases that came due while it hung")
                .containsExactly("extendAll 1", "extendAll 2");
        assertThat(List.of(first, second, third)).allMatch(Lease::isValid);
    }

    @Test
    void anUnknownExtendThrowsAndKeepsTheLeaseAsItWas() {
        Lease lease = client.lock("unknown").tryAcquire(LEASE).orElseThrow();
        Duration before = lease.remaining();
        driver.away = true;
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(30))).isInstanceOf(BackendUnavailableException.class);
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.remaining()).isEqualTo(before);
    }

    @Test
    void anUnknownRenewalIsRetriedAndTheLeaseEndsOnlyWithItsValidity() throws Exception {
        Lease lease = client.lock("retried").tryAcquire(LEASE).orElseThrow().autoRenew();
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
        driver.away = true;
        runtime.advance(TimeUnit.SECONDS.toNanos(1));
        await().atMost(Duration.ofSeconds(5)).until(() -> driver.count("extend retried") >= 1);
        for (int i = 0; i < 15; i++) {
            step(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertThat(driver.count("extend retried")).as("retried a tenth of the lease apart").isGreaterThan(3);
        assertThat(lost).as("no answer is not a loss while validity is left").isNotDone();
        assertThat(lease.isValid()).isTrue();
        step(TimeUnit.SECONDS.toNanos(1));
        assertThat(lost.get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.EXPIRED);
    }

    @Test
    void aRenewalAnsweredLostIsRevoked() throws Exception {
        Lease lease = client.lock("revoked").tryAcquire(LEASE).orElseThrow().autoRenew();
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
        driver.server.remove("revoked");
        runtime.advance(TimeUnit.SECONDS.toNanos(1));
        assertThat(lost.get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.NOT_HELD);
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void lostThenAutoRenewRacingStillRenews() throws Exception {
        // Item 5: lost() and autoRenew() from two threads; the keeper must look at the lease at its renewal time.
        for (int i = 0; i < 200; i++) {
            Lease lease = client.lock("race-" + i).tryAcquire(LEASE).orElseThrow();
            CountDownLatch start = new CountDownLatch(1);
            CompletableFuture<?> a = CompletableFuture.runAsync(() -> {
                awaitQuietly(start);
                lease.lost();
            });
            CompletableFuture<?> b = CompletableFuture.runAsync(() -> {
                awaitQuietly(start);
                lease.autoRenew();
            });
            start.countDown();
            CompletableFuture.allOf(a, b).get(5, TimeUnit.SECONDS);
            long renewalsBefore = driver.count("extend race-" + i);
            step(TimeUnit.MILLISECONDS.toNanos(1100)); // past the renewal (1 s), long before the end (3 s)
            assertThat(driver.count("extend race-" + i)).as("round %d renewed", i).isGreaterThan(renewalsBefore);
            assertThat(lease.isValid()).isTrue();
            lease.release();
        }
    }

    private static final long KEEPER_STEP = TimeUnit.MILLISECONDS.toNanos(50);

    private record Watched(Lease lease, long validUntil, CompletableFuture<Lease.LossReason> lost, boolean renewed) { }

    /**
     * The keeper's heap of leases: with many leases of different lease times, some renewed, some
     * released in between, each lease is looked at in its own time — lost exactly when its validity
     * passes, never before, and never once released.
     */
    @Test
    void manyLeasesAreEachLostExactlyWhenTheirValidityPassesAndReleasedOnesNever() throws Exception {
        Random random = new Random(20261203);
        List<Watched> watched = new ArrayList<>();
        List<Lease> released = new ArrayList<>();
        List<CompletableFuture<Lease.LossReason>> releasedLost = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            boolean renewed = i % 5 == 0;
            boolean toRelease = i % 3 == 0 && !renewed;
            // The ones to release are released before their validity ends; the others end in the test's time.
            Duration leaseTime = toRelease ? Duration.ofSeconds(30 + random.nextInt(30))
                    : Duration.ofMillis(500 + 100L * random.nextInt(40));
            Lease lease = client.lock("keeper-" + i).tryAcquire(leaseTime).orElseThrow();
            CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
            if (renewed) {
                lease.autoRenew();
            }
            if (toRelease) {
                released.add(lease);
                releasedLost.add(lost);
            } else {
                watched.add(new Watched(lease, runtime.nanoTime() + lease.remaining().toNanos(), lost, renewed));
            }
            if (i % 7 == 0) {
                step(KEEPER_STEP); // leases taken at different times, the heap moving under them
            }
        }
        // Released in an order of their own, from the middle of the heap as much as from its head.
        java.util.Collections.shuffle(released, random);
        released.forEach(Lease::release);

        for (int i = 0; i < 120; i++) {
            step(KEEPER_STEP);
            long now = runtime.nanoTime();
            for (Watched w : watched) {
                if (w.renewed()) {
                    assertThat(w.lease().isValid()).as("auto-renewed %s", w.lease().lockName()).isTrue();
                } else if (now - w.validUntil() >= 0) {
                    // lost() completes off the keeper's thread, a moment after the keeper marked it
                    await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(5))
                            .until(w.lost()::isDone);
                    assertThat(w.lost().get()).isEqualTo(Lease.LossReason.EXPIRED);
                } else {
                    assertThat(w.lost()).as("%s lost %d ms before its validity ends", w.lease().lockName(),
                            TimeUnit.NANOSECONDS.toMillis(w.validUntil() - now)).isNotDone();
                }
            }
        }
        assertThat(releasedLost).allMatch(lost -> !lost.isDone());
        assertThat(watched.stream().filter(Watched::renewed).count()).isPositive();
    }

    /** Moves the clock, then lets the I/O thread finish what the keeper handed it and runs what that scheduled. */
    private void step(long nanos) throws Exception {
        runtime.advance(nanos);
        awaitIoIdle();
        runtime.runDue();
        awaitIoIdle();
    }

    private void awaitIoIdle() throws Exception {
        io.submit(() -> { }).get(5, TimeUnit.SECONDS);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aSlowRenewalDelaysNoOtherLeasesExpiryOrLossNotice() throws Exception {
        // Item 7: the keeper only decides; the renewal waits on the I/O thread, not on the keeper.
        Lease renewed = client.lock("slow-renewal").tryAcquire(LEASE).orElseThrow().autoRenew();
        Lease expiring = client.lock("expiring").tryAcquire(Duration.ofMillis(1500)).orElseThrow();
        CompletableFuture<Lease.LossReason> lost = expiring.lost().toCompletableFuture();
        CountDownLatch slowServer = new CountDownLatch(1);
        driver.extendGate = slowServer;
        runtime.advance(TimeUnit.SECONDS.toNanos(1)); // the renewal goes out, and hangs
        await().atMost(Duration.ofSeconds(5)).until(() -> driver.extensionsInFlight.get() == 1);
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(600)); // past the other lease's validity
        assertThat(lost.get(5, TimeUnit.SECONDS)).as("declared lost on time, with a renewal still hanging")
                .isEqualTo(Lease.LossReason.EXPIRED);
        assertThat(renewed.isValid()).isTrue();
        slowServer.countDown();
    }
}
