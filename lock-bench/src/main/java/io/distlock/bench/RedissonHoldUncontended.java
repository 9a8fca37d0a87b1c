package io.distlock.bench;

import java.util.concurrent.TimeUnit;

import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

/**
 * The peers of the single-Redis semaphore and read-lock rows, uncontended, on one client with
 * Redisson's default settings: {@code RPermitExpirableSemaphore} (permits set once with
 * {@code trySetPermits}, then {@code acquire(leaseTime)} for a permit id and {@code release(id)}) —
 * Redisson's semaphore whose permits expire, as distlock's do — and {@code RReadWriteLock.readLock()}
 * ({@code lock(leaseTime)} + {@code unlock()}, no watchdog).
 */
abstract class RedissonHoldUncontended extends TwoStepScenario {

    private final RedissonClient client;

    private RedissonHoldUncontended(String label, RedissonClient client, String firstStep, String secondStep) {
        super(label, true, firstStep, secondStep);
        this.client = client;
    }

    static RedissonHoldUncontended permitExpirableSemaphore(String label, String host, int port, String name, int permits) {
        RedissonClient client = RedissonClients.connect(host, port);
        RPermitExpirableSemaphore semaphore = client.getPermitExpirableSemaphore(name);
        if (!semaphore.trySetPermits(permits) && semaphore.getPermits() != permits) {
            client.shutdown();
            throw new IllegalStateException("Redisson semaphore " + name + " has " + semaphore.getPermits()
                    + " permits, not " + permits);
        }
        return new RedissonHoldUncontended(label, client, "acquire", "release") {
            @Override
            Object first() throws InterruptedException {
                return semaphore.acquire(10, TimeUnit.SECONDS);
            }

            @Override
            void second(Object permitId) {
                semaphore.release((String) permitId);
            }
        };
    }

    static RedissonHoldUncontended readLock(String label, String host, int port, String name) {
        RedissonClient client = RedissonClients.connect(host, port);
        RLock read = client.getReadWriteLock(name).readLock();
        return new RedissonHoldUncontended(label, client, "lock", "unlock") {
            @Override
            Object first() {
                read.lock(10, TimeUnit.SECONDS);
                return read;
            }

            @Override
            void second(Object held) {
                read.unlock();
            }
        };
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
