package io.distlock.spi;

import io.distlock.BackendUnavailableException;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of one {@link LockDriver#tryAcquire}: one of three.
 *
 * <ul>
 *   <li><b>granted</b> — the server answered that this request now holds the lock;</li>
 *   <li><b>busy</b> — the server answered that someone else holds it (with an optional hint of
 *       when that holder's lease ends, which bounds how long a waiter sleeps before retrying);</li>
 *   <li><b>unknown</b> — no definite answer: the server (or a quorum) did not answer in time, a
 *       reply was lost, a quorum could not be decided. The request's write may or may not have
 *       taken effect.</li>
 * </ul>
 *
 * <p>Only a definite answer may become "granted" or "contention" for the user. The engine turns an
 * unknown outcome into a {@link BackendUnavailableException} (a single attempt, or a waiting one
 * whose {@code maxWait} ended on it), never into an empty result, and always cleans up after it by
 * owner token ({@link LockDriver#abandon} with {@code outcomeUnknown}).
 */
public final class Attempt {

    private enum Kind { GRANTED, BUSY, UNKNOWN }

    private static final Attempt BUSY = new Attempt(Kind.BUSY, null, null, null);

    private final Kind kind;
    private final Grant grant;
    private final Duration retryAfter;
    private final BackendUnavailableException cause;

    private Attempt(Kind kind, Grant grant, Duration retryAfter, BackendUnavailableException cause) {
        this.kind = kind;
        this.grant = grant;
        this.retryAfter = retryAfter;
        this.cause = cause;
    }

    /**
     * @param grant what was granted
     * @return a granted attempt
     * @throws NullPointerException if {@code grant} is null
     */
    public static Attempt granted(Grant grant) {
        return new Attempt(Kind.GRANTED, Objects.requireNonNull(grant, "grant"), null, null);
    }

    /** @return a busy attempt with no hint */
    public static Attempt busy() {
        return BUSY;
    }

    /**
     * @param holderRemaining how long the holder's lease has left on the server, if known
     * @return a busy attempt with that hint (ignored if negative)
     * @throws NullPointerException if {@code holderRemaining} is null
     */
    public static Attempt busy(Duration holderRemaining) {
        Objects.requireNonNull(holderRemaining, "holderRemaining");
        return holderRemaining.isNegative() ? BUSY : new Attempt(Kind.BUSY, null, holderRemaining, null);
    }

    /**
     * @param cause why no definite answer came: names the endpoint(s), never a password
     * @return an attempt whose outcome is unknown
     * @throws NullPointerException if {@code cause} is null
     */
    public static Attempt unknown(BackendUnavailableException cause) {
        return new Attempt(Kind.UNKNOWN, null, null, Objects.requireNonNull(cause, "cause"));
    }

    /** @return true if the lock was granted */
    public boolean isGranted() {
        return kind == Kind.GRANTED;
    }

    /** @return true if the server answered that someone else holds the lock */
    public boolean isBusy() {
        return kind == Kind.BUSY;
    }

    /** @return true if no definite answer came */
    public boolean isUnknown() {
        return kind == Kind.UNKNOWN;
    }

    /**
     * @return the grant
     * @throws IllegalStateException if nothing was granted
     */
    public Grant grant() {
        if (grant == null) {
            throw new IllegalStateException("attempt was " + kind.name().toLowerCase(java.util.Locale.ROOT) + ", nothing was granted");
        }
        return grant;
    }

    /** @return for a busy attempt, how long the holder's lease has left, if the backend said */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /**
     * @return why the outcome is unknown
     * @throws IllegalStateException if the outcome is known
     */
    public BackendUnavailableException cause() {
        if (cause == null) {
            throw new IllegalStateException("attempt was " + kind.name().toLowerCase(java.util.Locale.ROOT) + ", not unknown");
        }
        return cause;
    }

    @Override
    public String toString() {
        switch (kind) {
            case GRANTED:
                return "Attempt[granted " + grant.name() + "]";
            case BUSY:
                return "Attempt[busy, retryAfter=" + retryAfter + "]";
            default:
                return "Attempt[unknown: " + cause.getMessage() + "]";
        }
    }
}
