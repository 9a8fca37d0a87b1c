package io.distlock.spi;

import io.distlock.BackendUnavailableException;

import java.util.Objects;

/**
 * The outcome of one extension ({@link LockDriver#extend}, {@link LockDriver#extendAll}): one of three.
 *
 * <ul>
 *   <li><b>extended</b> — the server answered that the lock still held the grant's owner token and
 *       its lease now ends the asked lease time after the request was sent (or later);</li>
 *   <li><b>lost</b> — the server answered that the lock no longer holds the grant's owner token
 *       (it expired there, was deleted, or was given to someone else); when the server also
 *       knows that an operator revoked it ({@link io.distlock.LockClient#revoke}), the outcome
 *       carries the revocation's reason ({@link #revoked(String)});</li>
 *   <li><b>unknown</b> — no definite answer (a timeout, a lost reply, no quorum of answers either
 *       way). The extension may or may not have taken effect.</li>
 * </ul>
 *
 * <p>Only a definite "lost" ends a lease, as {@link io.distlock.Lease.LossReason#NOT_HELD} (or
 * {@link io.distlock.Lease.LossReason#REVOKED} for a revoked one). The engine
 * retries an unknown renewal until the lease's validity ends, and meanwhile keeps promising only
 * the validity the server last confirmed (the extension may have landed, or not).
 */
public final class ExtendOutcome {

    private static final ExtendOutcome EXTENDED = new ExtendOutcome(true, false, null, null);
    private static final ExtendOutcome LOST = new ExtendOutcome(false, true, null, null);

    private final boolean extended;
    private final boolean lost;
    private final BackendUnavailableException cause;
    private final String revocationReason;

    private ExtendOutcome(boolean extended, boolean lost, BackendUnavailableException cause, String revocationReason) {
        this.extended = extended;
        this.lost = lost;
        this.cause = cause;
        this.revocationReason = revocationReason;
    }

    /** @return the server extended the lease */
    public static ExtendOutcome extended() {
        return EXTENDED;
    }

    /** @return the server answered that the grant no longer holds the lock */
    public static ExtendOutcome lost() {
        return LOST;
    }

    /**
     * @param reason the reason the operator gave to {@link io.distlock.LockClient#revoke}, as the
     *               server kept it
     * @return the server answered that the grant no longer holds the lock because it was revoked
     * @throws NullPointerException if {@code reason} is null
     */
    public static ExtendOutcome revoked(String reason) {
        return new ExtendOutcome(false, true, null, Objects.requireNonNull(reason, "reason"));
    }

    /**
     * @param cause why no definite answer came: names the endpoint(s), never a password
     * @return an outcome that is not known
     * @throws NullPointerException if {@code cause} is null
     */
    public static ExtendOutcome unknown(BackendUnavailableException cause) {
        return new ExtendOutcome(false, false, Objects.requireNonNull(cause, "cause"), null);
    }

    /**
     * @param extended true for {@link #extended()}, false for {@link #lost()}
     * @return the definite outcome a compare-and-extend answered
     */
    public static ExtendOutcome of(boolean extended) {
        return extended ? EXTENDED : LOST;
    }

    /** @return true if the server extended the lease */
    public boolean isExtended() {
        return extended;
    }

    /** @return true if the server answered that the grant no longer holds the lock */
    public boolean isLost() {
        return lost;
    }

    /** @return the revocation's reason, for a lease an operator revoked ({@link #revoked}); otherwise empty */
    public java.util.Optional<String> revocationReason() {
        return java.util.Optional.ofNullable(revocationReason);
    }

    /** @return true if no definite answer came */
    public boolean isUnknown() {
        return cause != null;
    }

    /**
     * @return why the outcome is unknown
     * @throws IllegalStateException if the outcome is known
     */
    public BackendUnavailableException cause() {
        if (cause == null) {
            throw new IllegalStateException("the extension's outcome is known: " + this);
        }
        return cause;
    }

    @Override
    public String toString() {
        return extended ? "ExtendOutcome[extended]" : revocationReason != null ? "ExtendOutcome[revoked: " + revocationReason + "]"
                : lost ? "ExtendOutcome[lost]" : "ExtendOutcome[unknown: " + cause.getMessage() + "]";
    }
}
