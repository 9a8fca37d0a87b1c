package io.distlock.engine;

import io.distlock.DistributedSemaphore;
import io.distlock.Feature;
import io.distlock.LockInfo;
import io.distlock.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The engine's {@link DistributedSemaphore}: an {@link EngineLock} that asks the driver for one
 * {@link io.distlock.spi.Hold#permit permit} of the count at each acquire, so that a permit is a lease
 * like any other (validity, renewal, loss, cleanup after an unknown outcome).
 */
final class EngineSemaphore implements DistributedSemaphore {

    private final EngineLock permit;
    private final int permits;
    private final Inspection inspection;

    EngineSemaphore(EngineLock permit, int permits, Inspection inspection) {
        this.permit = permit;
        this.permits = permits;
        this.inspection = inspection;
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
    public List<LockInfo> holders() {
        return inspection.holds(permit.name(), Feature.SEMAPHORE);
    }

    @Override
    public Optional<LockInfo> revoke(String holdId, String reason) {
        return inspection.revokeHold(permit.name(), Feature.SEMAPHORE, holdId, reason);
    }

    @Override
    public String toString() {
        return "DistributedSemaphore[" + permit.name() + ", " + permits + " permits]";
    }
}
