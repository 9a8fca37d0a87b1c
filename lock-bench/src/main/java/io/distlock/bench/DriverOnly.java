package io.distlock.bench;

import io.distlock.LockOptions;
import io.distlock.redis.RedisLockBackend;
import io.distlock.spi.Attempt;
import io.distlock.tck.fixtures.NoEngine;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;

import java.net.URI;
import java.time.Duration;

/**
 * A diagnostic row: the single-Redis driver called directly (its node, pool and scripts), without
 * the engine (no SecureRandom owner token, no lease object, no validity arithmetic). Between
 * {@link ScriptsOnly} and the full distlock row it tells the pool's share from the engine's.
 */
final class DriverOnly extends LoopScenario {

    private static final Duration LEASE = Duration.ofSeconds(10);

    private final LockDriver driver;
    private final String lockName;
    private long token;

    DriverOnly(String uri, String lockName) {
        super("diagnostic: RedisLockDriver called directly (pool + scripts, no engine)");
        // No engine on this path: what the driver would report to it (no watches, no renewals here) goes nowhere.
        this.driver = new RedisLockBackend().connect(URI.create(uri), LockOptions.defaults(), NoEngine.INSTANCE);
        this.lockName = lockName;
    }

    @Override
    void op() {
        Attempt attempt = driver.tryAcquire(new LockRequest(lockName, Long.toString(++token), LEASE));
        if (!attempt.isGranted()) {
            throw new IllegalStateException(lockName + " was busy");
        }
        if (!driver.release(attempt.grant())) {
            throw new IllegalStateException(lockName + " was not released");
        }
    }

    @Override
    public void close() {
        driver.close();
    }
}
