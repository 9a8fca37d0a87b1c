package io.distlock.shedlock;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisServer;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.awaitility.Awaitility.await;

/**
 * ShedLock's {@link KeepAliveLockProvider} on this provider keeps a lock past its lockAtMostFor
 * by extending it, and frees it on unlock.
 */
class KeepAliveTest {

    /**
     * The public constructor insists on a lockAtMostFor of at least 30 s (extended every 15 s);
     * ShedLock's package-private one takes that minimum, so the test takes a second, not a minute.
     * Reached by reflection (the tests run on the class path); the extensions it makes are the
     * public API's.
     */
    private static LockProvider keepAlive(ExtensibleLockProvider provider, ScheduledExecutorService scheduler,
                                          Duration minimalLockAtMostFor) throws ReflectiveOperationException {
        Constructor<KeepAliveLockProvider> constructor = KeepAliveLockProvider.class.getDeclaredConstructor(
                ExtensibleLockProvider.class, ScheduledExecutorService.class, Duration.class);
        constructor.setAccessible(true);
        return constructor.newInstance(provider, scheduler, minimalLockAtMostFor);
    }

    @Test
    void keepsTheLockPastLockAtMostForAndFreesItOnUnlock() throws Exception {
        String name = "keep-alive-" + UUID.randomUUID();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (RedisServer server = RedisServer.start();
                LockClient probe = Locks.connect(server.uri());
                DistlockLockProvider provider = new DistlockLockProvider(server.uri())) {
            LockProvider keepAlive = keepAlive(provider, scheduler, Duration.ofMillis(100));
            Duration lockAtMostFor = Duration.ofMillis(300);
            SimpleLock lock = keepAlive.lock(new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, Duration.ZERO))
                    .orElseThrow();

            await().pollInterval(Duration.ofMillis(50)).during(lockAtMostFor.multipliedBy(3))
                    .atMost(lockAtMostFor.multipliedBy(4)).until(() -> held(probe, name));
            lock.unlock();
            await().atMost(Duration.ofSeconds(1)).until(() -> !held(probe, name));
        } finally {
            scheduler.shutdownNow();
        }
    }

    private static boolean held(LockClient probe, String name) {
        Optional<Lease> lease = probe.lock(name).tryAcquire(Duration.ofSeconds(5));
        lease.ifPresent(Lease::release);
        return lease.isEmpty();
    }
}
