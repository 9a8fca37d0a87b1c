package io.distlock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One acquisition as the engine asks a driver for it.
 *
 * @param name       the lock name, already validated (see {@link io.distlock.LockClient#lock(String)})
 * @param ownerToken a fresh random value (128 bits from {@link java.security.SecureRandom}, URL-safe
 *                   Base64) that identifies this acquisition on the server; never reused
 * @param leaseTime  the lease time, already validated
 */
public record LockRequest(String name, String ownerToken, Duration leaseTime) {
    /**
     * @param name       the lock name
     * @param ownerToken the owner token
     * @param leaseTime  the lease time
     * @throws NullPointerException if a component is null
     */
    public LockRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ownerToken, "ownerToken");
        Objects.requireNonNull(leaseTime, "leaseTime");
    }
}
