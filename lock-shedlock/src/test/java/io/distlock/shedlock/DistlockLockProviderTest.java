package io.distlock.shedlock;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisServer;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The provider's own promises, on one real {@code redis-server}: bad input, lockAtLeastFor,
 * failures, the name prefix, and which client closing closes. The lock's state is always read
 * from the server, through a second client ({@link #held}).
 */
class DistlockLockProviderTest {

    private static RedisServer server;
    private static LockClient client;
    private static LockClient probe;
    private static DistlockLockProvider provider;

    private final String name = "shedlock-test-" + UUID.randomUUID();

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        client = Locks.connect(server.uri());
        probe = Locks.connect(server.uri());
        provider = new DistlockLockProvider(client);
    }

    @AfterAll
    static void stop() {
        Servers.closeAll(provider, client, probe, server);
    }

    /** Whether the server has {@code lockName} held: a second client's try is refused. */
    private static boolean held(String lockName) {
        Optional<Lease> lease = probe.lock(lockName).tryAcquire(Duration.ofSeconds(5));
        lease.ifPresent(Lease::release);
        return lease.isEmpty();
    }

    private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    // ---- bad input ------------------------------------------------------------------------

    @Test
    void aNameDistlockRefusesGetsTheCoresErrorAndNothingIsHeld() {
        String controlCharacter = "job\u0007bell";
        String tooLong = "x".repeat(LockClient.MAX_NAME_LENGTH + 1);
        for (String bad : new String[] {controlCharacter, tooLong, "   "}) {
            String coreMessage = catchMessage(() -> client.lock(bad));
            assertThatThrownBy(() -> provider.lock(config(bad, Duration.ofSeconds(10), Duration.ZERO)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(coreMessage);
        }
        assertThat(held(tooLong.substring(1))).isFalse();
    }

    @Test
    void aPrefixThatMakesTheNameTooLongGetsTheCoresError() {
        try (DistlockLockProvider prefixed = new DistlockLockProvider(client, "p".repeat(LockClient.MAX_NAME_LENGTH))) {
            assertThatThrownBy(() -> prefixed.lock(config("job", Duration.ofSeconds(10), Duration.ZERO)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(catchMessage(() -> client.lock("p".repeat(LockClient.MAX_NAME_LENGTH) + "job")));
        }
    }

    @Test
    void lockAtLeastForLongerThanLockAtMostForIsRefusedAndNothingIsHeld() {
        // ShedLock's own LockConfiguration refuses it first...
        assertThatThrownBy(() -> config(name, Duration.ofSeconds(1), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class);
        // ...and the provider does not rely on that: a configuration that reports it anyway.
        LockConfiguration inconsistent = new LockConfiguration(ClockProvider.now(), name, Duration.ofSeconds(1), Duration.ZERO) {
            @Override
            public Duration getLockAtLeastFor() {
                return Duration.ofSeconds(2);
            }
        };
        assertThatThrownBy(() -> provider.lock(inconsistent))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor PT2S")
                .hasMessageContaining("longer than its lockAtMostFor PT1S");
        assertThat(held(name)).isFalse();
    }

    @Test
    void extendWithLockAtLeastForLongerThanLockAtMostForIsRefusedAndTheLockStaysAsItWas() {
        SimpleLock lock = provider.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();

        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than its lockAtMostFor");
        assertThat(held(name)).isTrue();
        lock.unlock();
        assertThat(held(name)).isFalse();
    }

    @Test
    void aLockAtMostForBelowTheShortestLeaseGetsTheCoresErrorAndNothingIsHeld() {
        assertThatThrownBy(() -> provider.lock(config(name, Duration.ofMillis(2), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(catchMessage(() -> client.lock(name).tryAcquire(Duration.ofMillis(2))));
        assertThat(held(name)).isFalse();
    }

    @Test
    void aLockAtMostForWithinTheClockDriftAllowanceGetsTheCoresError() {
        LockOptions drifty = LockOptions.builder().clockDrift(0, Duration.ofMillis(50)).build();
        try (DistlockLockProvider strict = new DistlockLockProvider(server.uri(), drifty, "")) {
            assertThatThrownBy(() -> strict.lock(config(name, Duration.ofMillis(40), Duration.ZERO)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("clock-drift");
        }
        assertThat(held(name)).isFalse();
    }

    // ---- lockAtLeastFor -------------------------------------------------------------------

    @Test
    void anUnlockBeforeLockAtLeastForKeepsTheLockUntilThenAndFreesItLongBeforeLockAtMostFor() {
        Duration lockAtLeastFor = Duration.ofMillis(1500);
        LockConfiguration config = config(name, Duration.ofSeconds(30), lockAtLeastFor);
        long lockedAt = System.nanoTime();
        SimpleLock lock = provider.lock(config).orElseThrow();
        lock.unlock();

        assertThat(provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
        // Held until lockAtLeastUntil (a margin below it for the probe's round trip)...
        await().pollInterval(Duration.ofMillis(50))
                .during(lockAtLeastFor.minusMillis(300).minusNanos(System.nanoTime() - lockedAt))
                .atMost(lockAtLeastFor)
                .until(() -> held(name));
        // ...then free, within a second, not at lockAtMostFor (30 s).
        await().atMost(Duration.ofSeconds(2)).until(() -> !held(name));
        assertThat(Duration.ofNanos(System.nanoTime() - lockedAt)).isGreaterThanOrEqualTo(lockAtLeastFor.minusMillis(50));
    }

    @Test
    void whenTheLeaseWouldEndBeforeLockAtLeastForTheUnlockExtendsIt() {
        // lockAtLeastFor == lockAtMostFor: the lease's validity (less the acquire and the drift
        // allowance) ends before lockAtLeastUntil, so the unlock extends it to cover the rest with
        // a margin; the key's expiry on the server shows it (without the extension: at most 1500 ms).
        Duration both = Duration.ofMillis(1500);
        long lockedAt = System.nanoTime();
        SimpleLock lock = provider.lock(config(name, both, both)).orElseThrow();
        lock.unlock();
        long pttl = (Long) server.call("PTTL", "distlock:{" + name + "}");
        assertThat(pttl).as("the key's expiry after the unlock, ms").isGreaterThan(1550);

        await().pollInterval(Duration.ofMillis(50))
                .during(both.minusMillis(300).minusNanos(System.nanoTime() - lockedAt))
                .atMost(both)
                .until(() -> held(name));
        await().atMost(Duration.ofSeconds(2)).until(() -> !held(name));
    }

    @Test
    void anUnlockAfterLockAtLeastForFreesAtOnce() {
        LockConfiguration config = config(name, Duration.ofSeconds(30), Duration.ofMillis(100));
        SimpleLock lock = provider.lock(config).orElseThrow();
        await().until(() -> ClockProvider.now().isAfter(config.getLockAtLeastUntil().plusMillis(20)));
        lock.unlock();
        assertThat(held(name)).isFalse();
    }

    @Test
    void anExtensionCountsLockAtLeastForFromItsOwnTime() {
        SimpleLock lock = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        long extendedAt = System.nanoTime();
        SimpleLock extended = lock.extend(Duration.ofSeconds(30), Duration.ofMillis(1000)).orElseThrow();
        extended.unlock();

        await().pollInterval(Duration.ofMillis(50))
                .during(Duration.ofMillis(700).minusNanos(System.nanoTime() - extendedAt))
                .atMost(Duration.ofSeconds(1))
                .until(() -> held(name));
        await().atMost(Duration.ofSeconds(2)).until(() -> !held(name));
    }

    @Test
    void closingTheProviderReleasesThePendingLockAtLeastForReleasesAtOnce() {
        DistlockLockProvider own = new DistlockLockProvider(client);
        own.lock(config(name, Duration.ofSeconds(30), Duration.ofSeconds(20))).orElseThrow().unlock();
        assertThat(held(name)).isTrue();

        own.close();
        assertThat(held(name)).isFalse();
    }

    // ---- the SimpleLock's life ------------------------------------------------------------

    @Test
    void anUnlockedOrExtendedLockCannotBeUsedAgain() {
        SimpleLock lock = provider.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class).hasMessageContaining(name);

        SimpleLock second = provider.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        SimpleLock extended = second.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        assertThatThrownBy(second::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> second.extend(Duration.ofSeconds(10), Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        assertThat(held(name)).as("the failed unlock of the old lock freed nothing").isTrue();
        extended.unlock();
        assertThat(held(name)).isFalse();
    }

    // ---- failures -------------------------------------------------------------------------

    @Test
    void anUnreachableBackendIsAnExceptionNeverAnEmptyResult() {
        RedisServer lonely = RedisServer.start();
        try (DistlockLockProvider cut = new DistlockLockProvider(lonely.uri())) {
            lonely.stop();
            assertThatThrownBy(() -> cut.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)))
                    .isInstanceOf(BackendUnavailableException.class);
        } finally {
            lonely.close();
        }
    }

    // ---- prefix and ownership -------------------------------------------------------------

    @Test
    void thePrefixIsPartOfTheLockNameOnTheServer() {
        try (DistlockLockProvider prefixed = new DistlockLockProvider(client, "job-lock:test:")) {
            SimpleLock lock = prefixed.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
            assertThat(held("job-lock:test:" + name)).isTrue();
            assertThat(held(name)).isFalse();
            assertThat(provider.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)))
                    .as("an unprefixed provider's lock of the same ShedLock name is another lock")
                    .hasValueSatisfying(SimpleLock::unlock);
            lock.unlock();
            assertThat(held("job-lock:test:" + name)).isFalse();
        }
    }

    @Test
    void aProviderFromAUriClosesItsClientAndAProviderFromAClientDoesNot() {
        DistlockLockProvider owning = new DistlockLockProvider(server.uri());
        owning.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        assertThat(held(name)).isTrue();
        owning.close();
        assertThat(held(name)).as("closing the owned client released its leases").isFalse();
        assertThatThrownBy(() -> owning.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)))
                .isInstanceOf(IllegalStateException.class);

        try (LockClient borrowed = Locks.connect(server.uri())) {
            new DistlockLockProvider(borrowed).close();
            Optional<Lease> lease = borrowed.lock(name).tryAcquire(Duration.ofSeconds(5));
            assertThat(lease).as("the borrowed client still works").isPresent();
            lease.get().release();
        }
    }

    private static String catchMessage(Runnable call) {
        try {
            call.run();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        throw new AssertionError("the core accepted what it should refuse");
    }
}
