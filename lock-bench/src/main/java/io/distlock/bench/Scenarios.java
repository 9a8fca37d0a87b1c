package io.distlock.bench;

import io.distlock.LockOptions;
import io.distlock.bench.DistlockHoldUncontended.Hold;
import io.distlock.micrometer.MicrometerLockListener;
import io.distlock.tck.fixtures.RedisServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The rows on the main {@code redis-server}: the floor, the diagnostic layers, single Redis and
 * its peer Redisson, uncontended and contended, and the semaphore and read-lock rows beside
 * Redisson's. Backends that arrive as plugin modules have their rows, servers and peers in
 * {@link Peers}.
 */
final class Scenarios {

    static final String DISTLOCK_FENCE = "distlock single Redis tryAcquire+release, fence read";
    static final String DISTLOCK_NO_FENCE = "distlock single Redis tryAcquire+release, fence not read";
    static final String DISTLOCK_METERED = "distlock single Redis tryAcquire+release, fence not read, Micrometer listener";
    static final String REDISSON_RLOCK = "Redisson 4 RLock lock+unlock";
    static final String CONTENDED_DISTLOCK = "contended, 4 clients: distlock single Redis";
    static final String CONTENDED_REDISSON = "contended, 4 clients: Redisson 4 RLock";
    static final String CONTENDED_RAW = "floor: contended, 4 clients: raw SET NX PX + PUBLISH on release, subscriber wakes waiter";
    static final String DISTLOCK_SEMAPHORE = "distlock single Redis semaphore (" + DistlockHoldUncontended.PERMITS
            + " permits) tryAcquire+release";
    static final String REDISSON_SEMAPHORE = "Redisson 4 RPermitExpirableSemaphore (" + DistlockHoldUncontended.PERMITS
            + " permits) acquire+release";
    static final String DISTLOCK_READ = "distlock single Redis read lock tryAcquire+release";
    static final String REDISSON_READ = "Redisson 4 RReadWriteLock read lock lock+unlock";

    private Scenarios() {
    }

    /** The floor, single Redis and Redisson, all on one server. */
    static void redisSingle(RedisServer redis, List<Scenario> into) throws InterruptedException {
        String host = redis.host();
        int port = redis.port();
        into.add(new Floor.Ping(host, port));
        into.add(new Floor.Pair(host, port));
        into.add(new ScriptsOnly(host, port));
        into.add(DriverOnly.redis(redis.uri(), "driver-only"));
        into.add(new DistlockUncontended(DISTLOCK_FENCE, redis.uri(), "uncontended-fenced", true));
        into.add(new DistlockUncontended(DISTLOCK_NO_FENCE, redis.uri(), "uncontended", false));
        // The listener's cost: the row above with lock-micrometer's listener on a registry that keeps
        // every meter in memory (a Prometheus or OTLP registry only adds its own export work).
        into.add(new DistlockUncontended(DISTLOCK_METERED, redis.uri(), "uncontended-metered", false,
                LockOptions.builder().listener(MicrometerLockListener.of(new SimpleMeterRegistry())).build()));
        into.add(RedissonUncontended.rLock(host, port, "redisson-uncontended"));
        into.add(RedissonUncontended.rFencedLock(host, port, "redisson-uncontended-fenced"));
        List<Contended.Contender> raw = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            raw.add(new RawNotifiedContender(host, port, "raw-contended", i));
        }
        into.add(new Contended(CONTENDED_RAW, raw));
        into.add(new Contended(CONTENDED_DISTLOCK, List.of(
                Contenders.distlock(redis.uri(), "contended"), Contenders.distlock(redis.uri(), "contended"),
                Contenders.distlock(redis.uri(), "contended"), Contenders.distlock(redis.uri(), "contended"))));
        into.add(new Contended(CONTENDED_REDISSON, List.of(
                Contenders.redisson(host, port, "redisson-contended"), Contenders.redisson(host, port, "redisson-contended"),
                Contenders.redisson(host, port, "redisson-contended"), Contenders.redisson(host, port, "redisson-contended"))));
    }

    /**
     * Single Redis's semaphore and read lock, uncontended, each beside its Redisson peer on the same
     * server — when {@code redis://} declares {@link io.distlock.Feature#SEMAPHORE} and
     * {@link io.distlock.Feature#READ_WRITE}; {@code absent} is told of the rows left out.
     */
    static void redisHolds(RedisServer redis, List<Scenario> into, Consumer<String> absent) {
        Optional<DistlockHoldUncontended> semaphore = DistlockHoldUncontended.connect(Hold.PERMIT, DISTLOCK_SEMAPHORE,
                redis.uri(), "semaphore-uncontended", absent, REDISSON_SEMAPHORE);
        if (semaphore.isPresent()) {
            into.add(semaphore.get());
            into.add(RedissonHoldUncontended.permitExpirableSemaphore(REDISSON_SEMAPHORE, redis.host(), redis.port(),
                    "redisson-semaphore-uncontended", DistlockHoldUncontended.PERMITS));
        }
        Optional<DistlockHoldUncontended> read = DistlockHoldUncontended.connect(Hold.READ, DISTLOCK_READ,
                redis.uri(), "rw-uncontended", absent, REDISSON_READ);
        if (read.isPresent()) {
            into.add(read.get());
            into.add(RedissonHoldUncontended.readLock(REDISSON_READ, redis.host(), redis.port(), "redisson-rw-uncontended"));
        }
    }
}
