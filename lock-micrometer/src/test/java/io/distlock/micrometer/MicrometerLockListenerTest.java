package io.distlock.micrometer;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockEvent;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisServer;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The listener on a real Redis: the meters a user's dashboard reads, with the tags it filters on. */
class MicrometerLockListenerTest {

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    private static LockClient connect(MicrometerLockListener listener) {
        return Locks.connect(redis.uri(), LockOptions.builder().listener(listener).build());
    }

    private static long acquires(SimpleMeterRegistry registry, String outcome) {
        var timer = registry.find(MicrometerLockListener.ACQUIRE).tags("backend", "redis", "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void everyAcquireOutcomeAndEveryHoldIsTimedByBackendAndOutcome() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LockClient client = connect(MicrometerLockListener.of(registry))) {
            Lease lease = client.lock("orders-1").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(registry.get(MicrometerLockListener.LEASES_HELD).tags("backend", "redis").gauge().value()).isEqualTo(1.0);
            assertThat(client.lock("orders-1").tryAcquire(Duration.ofSeconds(10))).isEmpty();
            assertThat(client.lock("orders-1").tryAcquire(Duration.ofSeconds(10), Duration.ofMillis(50))).isEmpty();
            assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
            lease.release();

            assertThat(acquires(registry, "acquired")).isEqualTo(1);
            assertThat(acquires(registry, "busy")).isEqualTo(1);
            assertThat(acquires(registry, "timed_out")).isEqualTo(1);
            assertThat(registry.get(MicrometerLockListener.ACQUIRE).tags("outcome", "timed_out").timer()
                    .totalTime(TimeUnit.MILLISECONDS)).as("the wait is recorded").isGreaterThanOrEqualTo(50);
            assertThat(registry.get(MicrometerLockListener.HELD).tags("backend", "redis", "outcome", "released", "reason", "none")
                    .timer().count()).isEqualTo(1);
            assertThat(registry.get(MicrometerLockListener.EXTENSIONS).tags("outcome", "extended").counter().count()).isEqualTo(1);
            assertThat(registry.get(MicrometerLockListener.LEASES_HELD).gauge().value()).isZero();
            assertThat(registry.getMeters()).as("no lock name in any tag by default")
                    .allSatisfy(meter -> assertThat(meter.getId().getTag("lock")).isNull());
        }
    }

    @Test
    void aLeaseTheServerDroppedIsCountedAsLostNotHeld() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LockClient client = connect(MicrometerLockListener.of(registry))) {
            Lease lease = client.lock("revoked").tryAcquire(Duration.ofMillis(600)).orElseThrow().autoRenew();
            // The single-Redis backend's key for the name (its README); an operator's DEL: the next renewal finds it gone.
            assertThat(redis.call("DEL", "distlock:{revoked}")).isEqualTo(1L);
            await().atMost(Duration.ofSeconds(5)).until(() -> registry.find(MicrometerLockListener.HELD)
                    .tags("outcome", "lost", "reason", "not_held").timer() != null);
            assertThat(lease.isValid()).isFalse();
            assertThat(registry.get(MicrometerLockListener.LEASES_HELD).gauge().value()).isZero();
        }
    }

    @Test
    void aRevocationIsCountedOnBothSidesAndEndsTheHoldersHoldTime() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerLockListener listener = MicrometerLockListener.of(registry);
        listener.onEvent(new LockEvent(LockEvent.Type.ACQUIRED, "redis", "nightly", Duration.ofMillis(3), null, null));
        listener.onEvent(new LockEvent(LockEvent.Type.REVOKED, "redis", "nightly", Duration.ofSeconds(40),
                Lease.LossReason.REVOKED, null, "stuck since 02:10"));
        listener.onEvent(new LockEvent(LockEvent.Type.REVOKED, "redis", "nightly", Duration.ofMillis(2), null, null,
                "stuck since 02:10"));

        assertThat(registry.get(MicrometerLockListener.REVOCATIONS).tags("side", "holder").counter().count()).isEqualTo(1);
        assertThat(registry.get(MicrometerLockListener.REVOCATIONS).tags("side", "operator").counter().count()).isEqualTo(1);
        assertThat(registry.get(MicrometerLockListener.HELD).tags("outcome", "lost", "reason", "revoked").timer()
                .totalTime(TimeUnit.SECONDS)).isEqualTo(40);
        assertThat(registry.get(MicrometerLockListener.LEASES_HELD).gauge().value())
                .as("the holder's lease is gone; the operator's side held nothing").isZero();
    }

    @Test
    void anUnreachableServerIsUnavailableNeverBusy() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (RedisServer doomed = RedisServer.start();
             LockClient client = Locks.connect(doomed.uri(), LockOptions.builder()
                     .listener(MicrometerLockListener.of(registry)).operationTimeout(Duration.ofMillis(300)).build())) {
            doomed.kill();
            assertThatThrownBy(() -> client.lock("away").tryAcquire(Duration.ofSeconds(5)))
                    .isInstanceOf(BackendUnavailableException.class);
            assertThat(acquires(registry, "unavailable")).isEqualTo(1);
            assertThat(acquires(registry, "busy")).isZero();
        }
    }

    @Test
    void aLockTagComesOnlyFromTheUsersFunctionAndExtraTagsGoEverywhere() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerLockListener listener = MicrometerLockListener.builder(registry)
                .lockNameTag(name -> name.substring(0, name.indexOf('-')))
                .tags(Tags.of("app", "billing"))
                .build();
        try (LockClient client = connect(listener)) {
            client.lock("invoice-17").tryAcquire(Duration.ofSeconds(5)).orElseThrow().release();
            client.lock("invoice-18").tryAcquire(Duration.ofSeconds(5)).orElseThrow().release();
        }
        assertThat(registry.get(MicrometerLockListener.ACQUIRE).tags("lock", "invoice", "app", "billing", "outcome", "acquired")
                .timer().count()).as("two names, one series").isEqualTo(2);
        assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getTag("app")).isEqualTo("billing"));
    }

    @Test
    void aTagFunctionReturningNullIsReportedAndChangesNothingForTheLock() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerLockListener listener = MicrometerLockListener.builder(registry).lockNameTag(name -> null).build();
        assertThatThrownBy(() -> listener.onEvent(new LockEvent(LockEvent.Type.BUSY, "redis", "x", Duration.ZERO, null, null)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("lock-name tag function returned null");
        try (LockClient client = connect(listener)) {
            Lease lease = client.lock("x").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(lease.isValid()).as("the engine logs a failing listener and goes on").isTrue();
            lease.release();
        }
    }
}
