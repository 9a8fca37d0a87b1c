package io.distlock.bench;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Lock;

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
        return threadOwned(() -> {
            if (!lock.tryLock(MAX_WAIT.toSeconds(), LEASE.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("no grant of " + lockName + " within " + MAX_WAIT);
            }
            return lock;
        }, lock::unlock, client::shutdown);
    }

    /**
     * A jetcd client of its own with one kept-alive lease ({@link JetcdSession}), waiting with
     * {@code Lock.lock(name, lease)}: the member's lock service answers once the lock is this
     * client's (it waits for the deletion of the key before this client's, inside the member).
     */
    static Contended.Contender jetcd(String endpoint, String lockName) throws ExecutionException, InterruptedException, TimeoutException {
        JetcdSession session = JetcdSession.open(endpoint);
        Lock lock = session.client().getLockClient();
        ByteSequence name = JetcdSession.bytes(lockName);
        return new Contended.Contender() {
            @Override
            public Object acquire() throws Exception {
                try {
                    return lock.lock(name, session.leaseId()).get(MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS).getKey();
                } catch (TimeoutException e) {
                    throw new IllegalStateException("no grant of " + lockName + " within " + MAX_WAIT, e);
                }
            }

            @Override
            public void release(Object held) throws Exception {
                lock.unlock((ByteSequence) held).get(MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }

            @Override
            public void close() {
                session.close();
            }
        };
    }

    /**
     * A Hazelcast client of its own ({@code client}, shut down with the contender), waiting with
     * {@code FencedLock.tryLockAndGetFence(wait)} on the thread that will unlock, as its users do: the
     * CP group queues the waiter and answers it once the lock is its.
     */
    static Contended.Contender fencedLock(HazelcastInstance client, String lockName) {
        FencedLock lock = client.getCPSubsystem().getLock(lockName);
        return threadOwned(() -> {
            long fence = lock.tryLockAndGetFence(MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (fence == FencedLock.INVALID_FENCE) {
                throw new IllegalStateException("no grant of " + lockName + " within " + MAX_WAIT);
            }
            return fence;
        }, lock::unlock, client::shutdown);
    }

    /**
     * A contender of a library whose lock belongs to the thread that took it, released by an
     * {@code unlock()} on that thread ({@link Contended} releases on the acquiring thread).
     *
     * @param acquire waits for the lock; returns what the loop holds
     * @param unlock  gives it back
     * @param close   shuts the client down
     */
    private static Contended.Contender threadOwned(Callable<Object> acquire, Runnable unlock, Runnable close) {
        return new Contended.Contender() {
            @Override
            public Object acquire() throws Exception {
                return acquire.call();
            }

            @Override
            public void release(Object held) {
                unlock.run();
            }

            @Override
            public void close() {
                close.run();
            }
        };
    }
}
