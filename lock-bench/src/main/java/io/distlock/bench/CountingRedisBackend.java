package io.distlock.bench;

import io.distlock.BackendDescriptor;
import io.distlock.LockOptions;
import io.distlock.redis.RedisLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;

import java.net.URI;

/**
 * {@code bench-redis://host:port}: the real single-Redis backend, unchanged, with a look inside the
 * renewal path. Every call goes to {@link RedisLockBackend}'s driver; {@link LockDriver#extendAll}
 * calls (one per renewal tick of the engine's keeper) are counted with their size and duration
 * ({@link #TICKS}), so the scale scenario can tell ticks, leases per tick and round trips per tick apart.
 */
public final class CountingRedisBackend implements LockBackend {

    /** Every renewal tick of every {@code bench-redis://} client in this JVM. */
    static final TickLog TICKS = new TickLog();

    private final RedisLockBackend delegate = new RedisLockBackend();

    /** For {@link java.util.ServiceLoader}; cheap, no I/O. */
    public CountingRedisBackend() {
    }

    @Override
    public BackendDescriptor descriptor() {
        BackendDescriptor redis = delegate.descriptor();
        return new BackendDescriptor("bench-redis", redis.guarantee(), redis.features());
    }

    @Override
    public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
        return TICKS.counting(delegate.connect(uri, options, context));
    }
}
