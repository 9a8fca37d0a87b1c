package io.distlock.bench;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/** The clients of the contended scenario, one per library. */
final class Contenders {

    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private Contenders() {
    }

    /** A distlock client of its own (its own pool and subscriber), waiting with {@code tryAcquire(lease, maxWait)}. */
    static Contended.Contender distlock(String uri, String lockName) {
        LockClient client = Locks.connect(uri);
        DistributedLock lock = client.lock(lockName);
        return new Contended.Contender() {
            @Override
            public Object acquire() throws InterruptedException {
                return lock.tryAcquire(LEASE, MAX_WAIT)
                        .orElseThrow(() -> new IllegalStateException("no grant of " + lockName + " within " + MAX_WAIT));
            }

            @Override
            public void release(Object held) {
                ((Lease) held).release();
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /** A Redisson client of its own, waiting with {@code RLock.tryLock(wait, lease)} (pub/sub wake-up). */
    static Contended.Contender redisson(String host, int port, String lockName) {
        RedissonClient client = RedissonClients.connect(host, port);
        RLock lock = client.getLock(lockName);
        return new Contended.Contender() {
            @Override
            public Object acquire() throws InterruptedException {
                if (!lock.tryLock(MAX_WAIT.toSeconds(), LEASE.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no grant of " + lockName + " within " + MAX_WAIT);
                }
                return lock;
            }

            @Override
            public void release(Object held) {
                lock.unlock();
            }

            @Override
            public void close() {
                client.shutdown();
            }
        };
    }
}
