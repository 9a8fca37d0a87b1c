package io.distlock.engine;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;

import java.time.Duration;
import java.util.Optional;

/**
 * The engine's {@link DistributedSemaphore}: an {@link EngineLock} that asks the driver for one
 * {@link io.distlock.spi.Hold#permit permit} of the count at each acquire, so that a permit is a lease
 * like any other (validity, renewal, loss, cleanup after an unknown outcome).
 */
final class EngineSemaphore implements DistributedSemaphore {

    private final EngineLock permit;
    private final int permits;

    EngineSemaphore(EngineLock permit, int permits) {
        this.permit = permit;
        this.permits = permits;
    }

    @Override
    public String name() {
        return permit.name();
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public Optional<Lease> tryAcquire(Duration leaseTime) {
        return permit.tryAcquire(leaseTime);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration leaseTime, Duration maxWait) throws InterruptedException {
        return permit.tryAcquire(leaseTime, maxWait);
    }

    @Override
    public Lease acquire(Duration leaseTime) throws InterruptedException {
        return permit.acquire(leaseTime);
    }

    @Override
    public String toString() {
        return "DistributedSemaphore[" + permit.name() + ", " + permits + " permits]";
    }
}
