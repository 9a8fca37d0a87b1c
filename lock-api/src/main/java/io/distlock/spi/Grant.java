package io.distlock.spi;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A driver's record of a granted lock.
 *
 * @param request      the request that was granted
 * @param fencingToken the fencing token, present iff the backend declares
 *                     {@link io.distlock.Feature#FENCING_TOKENS}
 * @param handle       driver-private state (for example a znode path), or null
 */
public record Grant(LockRequest request, OptionalLong fencingToken, Object handle) {
    /**
     * @param request      the request that was granted
     * @param fencingToken the fencing token, or empty
     * @param handle       driver-private state, or null
     * @throws NullPointerException if {@code request} or {@code fencingToken} is null
     */
    public Grant {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(fencingToken, "fencingToken");
    }

    /** @return the lock name */
    public String name() {
        return request.name();
    }

    /** @return the owner token that identifies this grant on the server */
    public String ownerToken() {
        return request.ownerToken();
    }
}
