package io.distlock.bench;

import java.util.concurrent.TimeUnit;

import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * The peer: Redisson's {@code RLock} ({@code lock(leaseTime)} + {@code unlock()}, no watchdog) and
 * {@code RFencedLock} ({@code lockAndGetToken(leaseTime)} + {@code unlock()}), uncontended, on one
 * client with Redisson's default settings.
 */
final class RedissonUncontended extends LoopScenario {

    private final RedissonClient client;
    private final RLock lock;
    private final RFencedLock fenced;
    private long fenceSum;

    private RedissonUncontended(String label, RedissonClient client, RLock lock, RFencedLock fenced) {
        super(label);
        this.client = client;
        this.lock = lock;
        this.fenced = fenced;
    }

    static RedissonUncontended rLock(String host, int port, String name) {
        RedissonClient client = RedissonClients.connect(host, port);
        return new RedissonUncontended("Redisson 4 RLock lock+unlock", client, client.getLock(name), null);
    }

    static RedissonUncontended rLockOnCluster(String label, java.util.List<String> nodes, String name) {
        RedissonClient client = RedissonClients.connectCluster(nodes);
        return new RedissonUncontended(label, client, client.getLock(name), null);
    }

    static RedissonUncontended rFencedLock(String host, int port, String name) {
        RedissonClient client = RedissonClients.connect(host, port);
        RFencedLock fenced = client.getFencedLock(name);
        return new RedissonUncontended("Redisson 4 RFencedLock lockAndGetToken+unlock", client, fenced, fenced);
    }

    @Override
    void op() {
        if (fenced != null) {
            fenceSum += fenced.lockAndGetToken(10, TimeUnit.SECONDS);
            fenced.unlock();
        } else {
            lock.lock(10, TimeUnit.SECONDS);
            lock.unlock();
        }
    }

    @Override
    public void close() {
        client.shutdown();
    }

    @Override
    public String toString() {
        return name() + " (fence sum " + fenceSum + ")";
    }
}
