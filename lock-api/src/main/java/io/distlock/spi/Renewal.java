package io.distlock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One entry of a batched {@link LockDriver#extendAll}.
 *
 * @param grant     the grant to extend
 * @param leaseTime its new lease time, counted from now
 */
public record Renewal(Grant grant, Duration leaseTime) {
    /**
     * @param grant     the grant to extend
     * @param leaseTime its new lease time
     * @throws NullPointerException if a component is null
     */
    public Renewal {
        Objects.requireNonNull(grant, "grant");
        Objects.requireNonNull(leaseTime, "leaseTime");
    }
}
