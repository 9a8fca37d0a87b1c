package io.distlock.engine;

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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The keeper's heap of leases, on a manual clock: with many leases of different lease times, some
 * renewed, some released in between, each lease is looked at in its own time — lost exactly when its
 * validity passes, never before, and never once released.
 */
class LeaseKeeperTest {

    private static final long STEP = TimeUnit.MILLISECONDS.toNanos(50);

    private final ExecutorService io = Executors.newSingleThreadExecutor();
    private final ManualRuntime runtime = new ManualRuntime(io);
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, false);
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://test"),
            LockOptions.defaults(), runtime);

    @AfterEach
    void close() {
        client.close();
        io.shutdownNow();
    }

    private record Watched(Lease lease, long validUntil, CompletableFuture<Lease.LossReason> lost, boolean renewed) { }

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
                step(STEP); // leases taken at different times, the heap moving under them
            }
        }
        // Released in an order of their own, from the middle of the heap as much as from its head.
        java.util.Collections.shuffle(released, random);
        released.forEach(Lease::release);

        for (int i = 0; i < 120; i++) {
            step(STEP);
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
        io.submit(() -> { }).get(5, TimeUnit.SECONDS);
        runtime.runDue();
        io.submit(() -> { }).get(5, TimeUnit.SECONDS);
    }
}
