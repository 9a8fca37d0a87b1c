package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Session-bounded validity (issue 9, item 6), on a manual clock: on a session store, no lease is
 * valid past what the session can vouch for — the last confirmed exchange plus the session
 * timeout, less drift — so a process paused longer than its session wakes up with no valid lease,
 * before its connection has noticed anything.
 */
class EngineSessionBoundTest {

    private static final Duration SESSION = Duration.ofSeconds(4);
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, true);
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://session"),
            LockOptions.defaults(), runtime);

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aLeaseIsNeverValidLongerThanTheSessionCanVouchFor() {
        Lease lease = client.lock("paused").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        driver.context.sessionConfirmed(runtime.nanoTime(), SESSION);
        assertThat(lease.remaining()).as("bounded by the session, not the 30 s lease")
                .isLessThanOrEqualTo(SESSION.minus(LockOptions.defaults().clockDrift(SESSION)));

        runtime.advance(TimeUnit.SECONDS.toNanos(5)); // a pause longer than the session: nothing was confirmed
        assertThat(lease.isValid()).as("the session may have expired on the server meanwhile").isFalse();
        assertThat(lease.remaining()).isZero();

        driver.context.sessionConfirmed(runtime.nanoTime(), SESSION); // the same session answered: it survived
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(25));
    }

    @Test
    void anOlderConfirmationNeverExtendsTheBound() {
        Lease lease = client.lock("ordered").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
        long early = runtime.nanoTime();
        runtime.advance(TimeUnit.SECONDS.toNanos(2));
        driver.context.sessionConfirmed(runtime.nanoTime(), SESSION);
        driver.context.sessionConfirmed(early, SESSION); // a late report of an older exchange
        runtime.advance(TimeUnit.SECONDS.toNanos(3));
        assertThat(lease.isValid()).as("bounded by the newest confirmation, 2 s in").isTrue();
    }

    @Test
    void aReleasedLeaseLeavesTheKeeperNothingToWakeFor() {
        // A session store's keeper watches every lease's end; once released, that watch must not
        // cost a wake-up per lease.
        for (int i = 0; i < 100; i++) {
            client.lock("one-after-another").tryAcquire(Duration.ofSeconds(30)).orElseThrow().release();
        }
        assertThat(runtime.scheduled()).as("keeper wake-ups pending after 100 acquire-release pairs").isZero();
    }

    @Test
    void aGrantTheClientCannotVouchForIsUnavailableNeverBusy() {
        // The server grants, but the driver reports its connection suspended: the grant is given
        // back, and the caller hears "unavailable", never "someone else holds it".
        driver.context.connectionSuspended();
        assertThatThrownBy(() -> client.lock("suspended").tryAcquire(Duration.ofSeconds(30)))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("suspended");
        driver.context.connectionRestored();
        client.lock("suspended").tryAcquire(Duration.ofSeconds(30)).orElseThrow().release();

        // The same when the session was last confirmed too long ago.
        driver.context.sessionConfirmed(runtime.nanoTime(), SESSION);
        runtime.advance(TimeUnit.SECONDS.toNanos(5));
        assertThatThrownBy(() -> client.lock("unconfirmed").tryAcquire(Duration.ofSeconds(30)))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("not confirmed");
    }
}
