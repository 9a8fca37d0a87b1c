package io.distlock.engine;

import io.distlock.Lease;
import io.distlock.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guaranteed cleanup (issue 9, item 2), on a manual clock: a release during an outage returns
 * at once and is carried out when the server is back; nothing is forgotten before the server
 * confirms it; closing sends everything still held or pending in one batch.
 */
class EngineCleanupTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, false);
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://test"),
            LockOptions.defaults(), runtime);

    @AfterEach
    void close() {
        driver.away = false;
        client.close();
    }

    @Test
    void aReleaseDuringAnOutageIsNeverForgottenAndStopsWaitingOnceTheOutageIsKnown() {
        Lease first = client.lock("first").tryAcquire(LEASE).orElseThrow();
        Lease second = client.lock("second").tryAcquire(LEASE).orElseThrow();
        driver.away = true;

        first.release(); // tries once, fails: the outage is now known
        assertThat(first.isValid()).isFalse();
        assertThat(driver.count("release first")).isEqualTo(1);
        second.release(); // the outage is known: straight to the queue, no attempt on the caller's thread
        assertThat(driver.count("release second")).isZero();
        assertThat(client.pendingCleanups()).isEqualTo(2);

        runtime.advance(TimeUnit.SECONDS.toNanos(2));
        assertThat(driver.count("releaseAll")).as("pending releases go out together, retried").isGreaterThan(1);
        assertThat(driver.holds("first", ownerOf(first)) || driver.server.containsKey("first")).isTrue();

        driver.away = false;
        runtime.advance(TimeUnit.SECONDS.toNanos(1));
        assertThat(client.pendingCleanups()).isZero();
        assertThat(driver.server).as("both locks removed once the server answered").doesNotContainKeys("first", "second");
    }

    @Test
    void aRestoredConnectionRetriesAtOnce() {
        Lease lease = client.lock("restored").tryAcquire(LEASE).orElseThrow();
        driver.away = true;
        lease.release();
        driver.away = false;
        driver.context.connectionRestored(); // no clock movement: the retry is not waiting for a back-off
        assertThat(client.pendingCleanups()).isZero();
        assertThat(driver.server).doesNotContainKey("restored");
    }

    @Test
    void closingReleasesEverythingHeldAndPendingInOneBatch() {
        for (int i = 0; i < 5; i++) {
            client.lock("held-" + i).tryAcquire(LEASE).orElseThrow();
        }
        Lease released = client.lock("pending").tryAcquire(LEASE).orElseThrow();
        driver.away = true;
        released.release();
        driver.away = false;
        long batchesBefore = driver.count("releaseAll");

        client.close();

        assertThat(driver.calls).contains("releaseAll 6");
        assertThat(driver.count("releaseAll") - batchesBefore).isEqualTo(1);
        assertThat(driver.server).isEmpty();
        assertThat(driver.calls.get(driver.calls.size() - 1)).isEqualTo("close");
    }

    private static String ownerOf(Lease lease) {
        return ((EngineLease) lease).grant().ownerToken();
    }
}
