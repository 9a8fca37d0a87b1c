package io.distlock.redis.support;

import io.distlock.Lease;
import io.distlock.spi.DriverContext;
import io.distlock.spi.Grant;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's side of a driver, for tests that drive a {@link RedisLockDriver} directly (the SPI
 * contract without the engine's policy on top): an owner description, and the revocations and
 * releases that woke waiters reported.
 */
final class RecordingContext implements DriverContext {

    /** Owner token to the reason reported with {@link #leaseRevoked}. */
    final Map<String, String> revoked = new ConcurrentHashMap<>();
    /** Lock name to the round trip reported with {@link #releaseWokeWaiters}. */
    final Map<String, Duration> wokeWaiters = new ConcurrentHashMap<>();
    private final String owner;

    RecordingContext(String owner) {
        this.owner = owner;
    }

    RecordingContext() {
        this("test-owner");
    }

    @Override
    public String owner() {
        return owner;
    }

    @Override
    public void leaseRevoked(String ownerToken, String reason) {
        revoked.put(ownerToken, reason);
    }

    @Override
    public void leaseLost(Grant grant, Lease.LossReason reason) {
    }

    @Override
    public void releaseWokeWaiters(String name, Duration roundTrip) {
        wokeWaiters.put(name, roundTrip);
    }

    @Override
    public void connectionSuspended() {
    }

    @Override
    public void connectionRestored() {
    }
}
