package io.distlock.bench;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.DistributedLock;

import java.time.Duration;

/**
 * Uncontended acquire+release of one key through the public API ({@code tryAcquire} once, then
 * {@code release}), as a user writes it, on one client. With {@code readFence} the fencing token
 * is read too, as a correctness-minded caller does. Each step's median goes into the notes
 * ({@link TwoStepScenario}): where a row's time goes, the grant or the release.
 */
final class DistlockUncontended extends TwoStepScenario {

    private static final Duration LEASE = Duration.ofSeconds(10);

    private final LockClient client;
    private final DistributedLock lock;
    private final boolean readFence;
    private long fenceSum;

    DistlockUncontended(String label, String uri, String lockName, boolean readFence) {
        this(label, uri, lockName, readFence, LockOptions.defaults());
    }

    /** With {@code options}: a listener set on the client, say. */
    DistlockUncontended(String label, String uri, String lockName, boolean readFence, LockOptions options) {
        super(label, uri.startsWith("redis") || uri.startsWith("redlock") || uri.startsWith("tair"), "tryAcquire", "release");
        this.client = Locks.connect(uri, options);
        this.lock = client.lock(lockName);
        this.readFence = readFence;
    }

    @Override
    Object first() {
        Lease lease = lock.tryAcquire(LEASE).orElseThrow(() -> new IllegalStateException(lock + " was busy"));
        if (readFence) {
            fenceSum += lease.fencingToken().orElseThrow();
        }
        return lease;
    }

    @Override
    void second(Object lease) {
        ((Lease) lease).release();
    }

    @Override
    public void close() {
        client.close();
    }

    @Override
    public String toString() {
        return name() + " (fence sum " + fenceSum + ")";
    }
}
