package io.distlock.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of one {@link LockDriver#tryAcquire}: granted, or busy with an optional hint of when
 * the current holder's lease ends (which bounds how long a waiter sleeps before retrying).
 */
public final class Attempt {
    private final Grant grant;
    private final Duration retryAfter;

    private Attempt(Grant grant, Duration retryAfter) {
        this.grant = grant;
        this.retryAfter = retryAfter;
    }

    /**
     * @param grant what was granted
     * @return a granted attempt
     */
    public static Attempt granted(Grant grant) {
        return new Attempt(Objects.requireNonNull(grant, "grant"), null);
    }

    /** @return a busy attempt with no hint */
    public static Attempt busy() {
        return new Attempt(null, null);
    }

    /**
     * @param holderRemaining how long the holder's lease has left on the server, if known
     * @return a busy attempt with that hint (ignored if negative)
     */
    public static Attempt busy(Duration holderRemaining) {
        Objects.requireNonNull(holderRemaining, "holderRemaining");
        return new Attempt(null, holderRemaining.isNegative() ? null : holderRemaining);
    }

    /** @return true if the lock was granted */
    public boolean isGranted() {
        return grant != null;
    }

    /**
     * @return the grant
     * @throws IllegalStateException if the attempt was busy
     */
    public Grant grant() {
        if (grant == null) {
            throw new IllegalStateException("attempt was busy, nothing was granted");
        }
        return grant;
    }

    /** @return for a busy attempt, how long the holder's lease has left, if the backend said */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    @Override
    public String toString() {
        return grant != null ? "Attempt[granted " + grant.name() + "]" : "Attempt[busy, retryAfter=" + retryAfter + "]";
    }
}
