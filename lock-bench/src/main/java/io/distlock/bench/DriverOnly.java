package io.distlock.bench;

import io.distlock.LockOptions;
import io.distlock.redis.RedisLockBackend;
import io.distlock.spi.Attempt;
import io.distlock.tck.fixtures.NoEngine;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;

import java.net.URI;
import java.time.Duration;
import java.util.ServiceLoader;

/**
 * A diagnostic row: a backend's driver called directly, without the engine (no SecureRandom owner
 * token, no lease object, no validity arithmetic, no keeper). Beside the full distlock row and the
 * peer it tells the driver's share of the time from the engine's: for single Redis, between
 * {@link ScriptsOnly} and the distlock row, the pool's; for Hazelcast, the protocol messages' and
 * holds' against the engine's.
 */
final class DriverOnly extends LoopScenario {

    private static final Duration LEASE = Duration.ofSeconds(10);

    private final LockDriver driver;
    private final String lockName;
    private long token;

    DriverOnly(String name, LockDriver driver, String lockName) {
        super(name);
        this.driver = driver;
        this.lockName = lockName;
    }

    /** The single-Redis driver (its node, pool and scripts). */
    static DriverOnly redis(String uri, String lockName) {
        // No engine on this path: what the driver would report to it (no watches, no renewals here) goes nowhere.
        return new DriverOnly("diagnostic: RedisLockDriver called directly (pool + scripts, no engine)",
                new RedisLockBackend().connect(URI.create(uri), LockOptions.defaults(), NoEngine.INSTANCE), lockName);
    }

    /**
     * The driver of the backend that serves {@code uri}'s scheme (found as the engine finds it, by
     * {@link ServiceLoader}: the bench has the backend on its runtime path only), with nothing but the
     * driver in the loop.
     */
    static DriverOnly of(String name, String uri, String lockName) {
        URI parsed = URI.create(uri);
        LockBackend backend = ServiceLoader.load(LockBackend.class).stream().map(ServiceLoader.Provider::get)
                .filter(candidate -> candidate.descriptor().scheme().equals(parsed.getScheme())).findFirst()
                .orElseThrow(() -> new IllegalStateException("no backend for " + parsed.getScheme() + "://"));
        return new DriverOnly(name, backend.connect(parsed, LockOptions.defaults(), NoEngine.INSTANCE), lockName);
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
