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
 * A diagnostic row: a backend's driver called directly, without the engine (no fresh owner
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

    /** The driver of the installed backend of {@code uri}'s scheme ({@link Peers#backend}), with nothing but the driver in the loop. */
    static DriverOnly of(String name, String uri, String lockName) {
        URI parsed = URI.create(uri);
        return new DriverOnly(name, Peers.backend(parsed.getScheme()).connect(parsed, LockOptions.defaults(), NoEngine.INSTANCE),
                lockName);
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
