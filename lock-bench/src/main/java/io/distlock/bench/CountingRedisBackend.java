package io.distlock.bench;

import io.distlock.BackendDescriptor;
import io.distlock.LockOptions;
import io.distlock.redis.RedisLockBackend;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Watch;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code bench-redis://host:port}: the real single-Redis backend, unchanged, with a look inside the
 * renewal path. Every call goes to {@link RedisLockBackend}'s driver; {@link LockDriver#extendAll}
 * calls (one per renewal tick of the engine's keeper) are counted with their size and duration,
 * so the scale scenario can tell ticks, leases per tick and round trips per tick apart.
 */
public final class CountingRedisBackend implements LockBackend {

    /** One {@code extendAll} call: when it started, how many leases, how long it took. */
    record Tick(long startNanos, int leases, long nanos) {
        /** @return whether this call ran at some time in [{@code from}, {@code to}] */
        boolean overlaps(long from, long to) {
            return startNanos - to <= 0 && startNanos + nanos - from >= 0;
        }
    }

    private static final List<Tick> TICKS = new ArrayList<>();

    /** {@code extendAll} calls started and not yet recorded (the engine may run two at once). */
    private static final AtomicInteger IN_FLIGHT = new AtomicInteger();

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
        return new Counting(delegate.connect(uri, options, context));
    }

    /** @return the renewal ticks seen so far, oldest first */
    static synchronized List<Tick> ticks() {
        return List.copyOf(TICKS);
    }

    /** @return how many {@code extendAll} calls are running now */
    static int inFlight() {
        return IN_FLIGHT.get();
    }

    private static synchronized void record(Tick tick) {
        TICKS.add(tick);
    }

    /** Delegates every method the Redis driver implements; the others keep their defaults, as there. */
    private record Counting(LockDriver driver) implements LockDriver {
        @Override
        public Attempt tryAcquire(LockRequest request) {
            return driver.tryAcquire(request);
        }

        @Override
        public ExtendOutcome extend(Grant grant, Duration leaseTime) {
            return driver.extend(grant, leaseTime);
        }

        @Override
        public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
            IN_FLIGHT.incrementAndGet();
            long start = System.nanoTime();
            try {
                return driver.extendAll(renewals);
            } finally {
                record(new Tick(start, renewals.size(), System.nanoTime() - start));
                IN_FLIGHT.decrementAndGet();
            }
        }

        @Override
        public boolean release(Grant grant) {
            return driver.release(grant);
        }

        @Override
        public void abandon(LockRequest request, boolean outcomeUnknown) {
            driver.abandon(request, outcomeUnknown);
        }

        @Override
        public Watch watch(String name, Runnable onChange) {
            return driver.watch(name, onChange);
        }

        @Override
        public void close() {
            driver.close();
        }
    }
}
