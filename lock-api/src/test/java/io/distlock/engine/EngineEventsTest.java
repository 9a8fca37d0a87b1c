package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockEvent;
import io.distlock.LockEvent.Type;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The listener SPI, on a manual clock: every outcome of an acquire and every end of a lease is
 * told once, with the time it waited or held; an unknown outcome is its own event, never "busy";
 * a failing listener changes nothing.
 */
class EngineEventsTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, false);
    private final List<LockEvent> events = new CopyOnWriteArrayList<>();
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://events"),
            LockOptions.builder().retryBackoff(Duration.ofMillis(1), Duration.ofMillis(2)).listener(events::add).build(),
            runtime);

    @AfterEach
    void close() {
        driver.away = false;
        client.close();
    }

    private List<Type> types() {
        return events.stream().map(LockEvent::type).toList();
    }

    @Test
    void anAcquireAndItsReleaseAreToldWithTheWaitAndTheHoldTime() {
        driver.attempts = request -> {
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(7)); // the round trip, on the test's clock
            driver.attempts = null;
            return driver.tryAcquire(request);
        };
        Lease lease = client.lock("a").tryAcquire(LEASE).orElseThrow();
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(250));
        lease.release();
        lease.release();

        assertThat(types()).containsExactly(Type.ACQUIRED, Type.RELEASED);
        assertThat(lease.backend()).as("the lease names the backend that granted it").isEqualTo(ScriptedDriver.DESCRIPTOR);
        LockEvent acquired = events.get(0);
        assertThat(acquired.backend()).isEqualTo("scripted");
        assertThat(acquired.lockName()).isEqualTo("a");
        assertThat(acquired.duration()).isEqualTo(Duration.ofMillis(7));
        assertThat(events.get(1).duration()).as("held from the grant to the release").isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void aRefusalEndsAWaitAtOnceAndIsToldAsRefusedNeverBusyOrUnavailable() {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        driver.attempts = request -> {
            calls.incrementAndGet();
            throw new io.distlock.AuthenticationException("scripted:1", "scripted:1 refused the credentials of user 'u'", null);
        };
        assertThatThrownBy(() -> client.lock("r").tryAcquire(LEASE, Duration.ofSeconds(30)))
                .isInstanceOf(io.distlock.AuthenticationException.class);
        assertThat(calls).as("a refusal is not retried within the wait").hasValue(1);
        driver.attempts = request -> {
            throw new io.distlock.AccessDeniedException("scripted:1", "user 'u' has no rights on lock 'r'", null);
        };
        assertThatThrownBy(() -> client.lock("r").tryAcquire(LEASE)).isInstanceOf(io.distlock.AccessDeniedException.class);
        assertThat(types()).containsExactly(Type.REFUSED, Type.REFUSED);
        assertThat(events.get(0).duration()).as("no wait was spent").isEqualTo(Duration.ZERO);
        assertThat(events.get(1).failure()).containsInstanceOf(io.distlock.AccessDeniedException.class);
    }

    @Test
    void aRefusedAttemptIsWithdrawnAsAnsweredAndARefusedWithdrawalIsNotRetriedForever() {
        io.distlock.AccessDeniedException denied = new io.distlock.AccessDeniedException("scripted:1", "no rights on 'w'", null);
        driver.attempts = request -> {
            throw denied;
        };
        driver.abandonRefusal = denied;
        assertThatThrownBy(() -> client.lock("w").tryAcquire(LEASE, Duration.ofSeconds(30))).isSameAs(denied);
        assertThat(driver.calls).as("withdrawn as an answered request, not cleaned up as an unknown outcome")
                .contains("abandon w").doesNotContain("abandon w unknown");
        assertThat(client.pendingCleanups()).as("a refused withdrawal of an answered request is given up").isZero();
    }

    @Test
    void contentionIsBusyForOneAttemptAndTimedOutForAWaitButAnUnknownOutcomeIsUnavailable() throws InterruptedException {
        Lease holder = client.lock("b").tryAcquire(LEASE).orElseThrow();
        events.clear();
        assertThat(client.lock("b").tryAcquire(LEASE)).isEmpty();
        assertThat(client.lock("b").tryAcquire(LEASE, Duration.ZERO)).isEmpty();
        driver.attempts = request -> {
            runtime.advance(TimeUnit.MILLISECONDS.toNanos(20));
            return Attempt.busy();
        };
        assertThat(client.lock("b").tryAcquire(LEASE, Duration.ofMillis(100))).isEmpty();
        assertThat(types()).containsExactly(Type.BUSY, Type.BUSY, Type.TIMED_OUT);
        assertThat(events.get(2).duration()).isGreaterThanOrEqualTo(Duration.ofMillis(100));

        events.clear();
        driver.attempts = null;
        driver.away = true;
        assertThatThrownBy(() -> client.lock("c").tryAcquire(LEASE)).isInstanceOf(BackendUnavailableException.class);
        assertThat(types()).containsExactly(Type.UNAVAILABLE);
        assertThat(events.get(0).failure()).containsInstanceOf(BackendUnavailableException.class);
        driver.away = false;
        holder.release();
    }

    @Test
    void anInterruptedWaitIsTold() {
        driver.attempts = request -> {
            Thread.currentThread().interrupt();
            return Attempt.busy();
        };
        assertThatThrownBy(() -> client.lock("d").tryAcquire(LEASE, Duration.ofSeconds(1))).isInstanceOf(InterruptedException.class);
        assertThat(types()).containsExactly(Type.INTERRUPTED);
    }

    @Test
    void renewalsExtensionsAndALossAreTold() {
        Lease lease = client.lock("e").tryAcquire(LEASE).orElseThrow().autoRenew();
        runtime.advance(TimeUnit.SECONDS.toNanos(1) + 1); // a third of the lease: the keeper renews
        assertThat(types()).containsExactly(Type.ACQUIRED, Type.EXTENDED);
        assertThat(events.get(1).duration()).isEqualTo(LEASE);

        driver.away = true;
        runtime.advance(TimeUnit.SECONDS.toNanos(1) + 1);
        assertThat(types()).contains(Type.RENEWAL_FAILED);
        assertThat(events.get(events.size() - 1).failure()).containsInstanceOf(BackendUnavailableException.class);

        driver.away = false;
        driver.server.clear(); // the server forgot the lock: the next renewal finds it gone
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(500));
        LockEvent last = events.get(events.size() - 1);
        assertThat(last.type()).isEqualTo(Type.LOST);
        assertThat(last.lossReason()).contains(Lease.LossReason.NOT_HELD);
        assertThat(lease.extend(LEASE)).isFalse();
        lease.release();
        assertThat(types()).as("a lost lease is not released again").doesNotContain(Type.RELEASED);
    }

    @Test
    void aCallersExtendIsTold() {
        Lease lease = client.lock("f").tryAcquire(LEASE).orElseThrow();
        assertThat(lease.extend(Duration.ofSeconds(5))).isTrue();
        driver.away = true;
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5))).isInstanceOf(BackendUnavailableException.class);
        assertThat(types()).containsExactly(Type.ACQUIRED, Type.EXTENDED, Type.RENEWAL_FAILED);
        assertThat(events.get(1).duration()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void leasesReleasedByClosingTheClientAreTold() {
        client.lock("g").tryAcquire(LEASE).orElseThrow();
        client.close();
        assertThat(types()).containsExactly(Type.ACQUIRED, Type.RELEASED);
    }

    @Test
    void aFailingListenerChangesNothing() {
        EngineClient failing = EngineClient.connect(driver.backend(), URI.create("scripted://failing"),
                LockOptions.builder().listener(event -> {
                    throw new IllegalStateException("listener bug");
                }).build(), runtime);
        try {
            Lease lease = failing.lock("h").tryAcquire(LEASE).orElseThrow();
            assertThat(lease.isValid()).isTrue();
            assertThat(failing.lock("h").tryAcquire(LEASE)).as("still contention, not the listener's exception").isEmpty();
            lease.release();
            assertThat(driver.server).doesNotContainKey("h");
        } finally {
            failing.close();
        }
    }

    @Test
    void aClientWithoutAListenerCreatesNoEvents() {
        EngineClient quiet = EngineClient.connect(driver.backend(), URI.create("scripted://quiet"), LockOptions.defaults(), runtime);
        try {
            assertThat(quiet.listening()).isFalse();
            quiet.lock("i").tryAcquire(LEASE).orElseThrow().release();
            assertThat(events).isEmpty();
        } finally {
            quiet.close();
        }
    }
}
