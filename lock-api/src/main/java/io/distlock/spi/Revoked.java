package io.distlock.spi;

import io.distlock.LockInfo;

import java.util.Objects;

/**
 * What a driver's {@link LockDriver#revoke} ended: the holder as the server showed it, and the
 * owner token of its lease, so that the engine can end at once a lease of its own client that was
 * the one revoked (the token never leaves the engine: it is not part of {@link LockInfo}).
 *
 * @param holder     the holder, as {@link io.distlock.LockClient#revoke} returns it
 * @param ownerToken the owner token the revoked lease held the lock with
 */
public record Revoked(LockInfo holder, String ownerToken) {
    /**
     * @param holder     the holder
     * @param ownerToken the owner token
     * @throws NullPointerException if either is null
     */
    public Revoked {
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(ownerToken, "ownerToken");
    }
}
