package io.distlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One thing a lock did, as reported to a {@link LockListener}. Immutable.
 *
 * <p>{@link #duration()} depends on the {@link Type}: for an acquire's outcome it is the time the
 * acquire call took (waiting included); for {@link Type#RELEASED}, {@link Type#LOST} and a holder's
 * {@link Type#REVOKED}, how long the lease was held (from its grant); for {@link Type#EXTENDED},
 * the lease time of the extension; for an operator's {@link Type#REVOKED}, the time the revoke
 * took; otherwise zero.
 */
public final class LockEvent {

    /** What happened. */
    public enum Type {
        /** An acquire was granted a lease. Duration: the time the acquire took. */
        ACQUIRED,
        /** A single attempt ({@code tryAcquire(leaseTime)}, or a zero wait) found the lock held by someone else. */
        BUSY,
        /** A waiting acquire's wait ended while someone else still held the lock. */
        TIMED_OUT,
        /**
         * An acquire ended with no definite answer from the backend ({@link BackendUnavailableException},
         * see {@link #failure()}): the lock may or may not have been free; nothing is left held.
         */
        UNAVAILABLE,
        /** A waiting acquire was interrupted; nothing is left held. */
        INTERRUPTED,
        /**
         * An acquire was refused: the backend did not accept the client's identity
         * ({@link AuthenticationException}) or the principal has no rights on the lock
         * ({@link AccessDeniedException}); see {@link #failure()}. Not retried; nothing is left held.
         */
        REFUSED,
        /** A lease was released by its holder, or by the client's {@link LockClient#close()}. Duration: the hold time. */
        RELEASED,
        /** The server confirmed an extension, a caller's {@link Lease#extend} or the automatic renewal. Duration: its lease time. */
        EXTENDED,
        /**
         * An extension (a renewal, or a caller's {@link Lease#extend}) got no definite answer (see
         * {@link #failure()}): the lease keeps its validity, and the renewal is retried until it ends.
         */
        RENEWAL_FAILED,
        /** A lease was lost without being released; see {@link #lossReason()}. Duration: the hold time. */
        LOST,
        /**
         * A lock was taken back ({@link LockClient#revoke}), with {@link #revocationReason()}. On
         * both sides: on the client whose lease was revoked (the holder: {@link #lossReason()} is
         * {@link Lease.LossReason#REVOKED}, duration the hold time; no {@link #LOST} event
         * besides), and on the client that revoked it (the operator: no loss reason, duration
         * the time the revoke took).
         */
        REVOKED,
    }

    private final Type type;
    private final String backend;
    private final String lockName;
    private final Duration duration;
    private final Lease.LossReason lossReason;
    private final Throwable failure;
    private final String revocationReason;

    /**
     * @param type       what happened
     * @param backend    the backend's URI scheme ({@link BackendDescriptor#scheme()})
     * @param lockName   the lock's name
     * @param duration   see the class comment; not negative
     * @param lossReason the reason, for {@link Type#LOST} only (else null)
     * @param failure    the unknown outcome's cause, for {@link Type#UNAVAILABLE} and
     *                   {@link Type#RENEWAL_FAILED}, or the refusal, for {@link Type#REFUSED} (else null)
     * @throws NullPointerException     if {@code type}, {@code backend}, {@code lockName} or
     *                                  {@code duration} is null, a LOST event has no reason, or the event
     *                                  is a {@link Type#REVOKED} (which needs the revocation's reason: use
     *                                  the other constructor)
     * @throws IllegalArgumentException if {@code duration} is negative
     */
    public LockEvent(Type type, String backend, String lockName, Duration duration, Lease.LossReason lossReason,
                     Throwable failure) {
        this(type, backend, lockName, duration, lossReason, failure, null);
    }

    /**
     * @param type             what happened
     * @param backend          the backend's URI scheme ({@link BackendDescriptor#scheme()})
     * @param lockName         the lock's name
     * @param duration         see the class comment; not negative
     * @param lossReason       the reason, for {@link Type#LOST} and a holder's {@link Type#REVOKED} (else null)
     * @param failure          the unknown outcome's cause or the refusal, as for the other constructor (else null)
     * @param revocationReason the reason the operator gave, for {@link Type#REVOKED} only (else null)
     * @throws NullPointerException     if {@code type}, {@code backend}, {@code lockName} or
     *                                  {@code duration} is null, a LOST event has no loss reason, or a
     *                                  REVOKED event no revocation reason
     * @throws IllegalArgumentException if {@code duration} is negative, or a REVOKED event's loss
     *                                  reason is other than {@link Lease.LossReason#REVOKED}
     */
    public LockEvent(Type type, String backend, String lockName, Duration duration, Lease.LossReason lossReason,
                     Throwable failure, String revocationReason) {
        this.type = Objects.requireNonNull(type, "type");
        this.backend = Objects.requireNonNull(backend, "backend");
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.duration = Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative, was " + duration);
        }
        if (type == Type.LOST) {
            Objects.requireNonNull(lossReason, "lossReason of a LOST event");
        }
        if (type == Type.REVOKED) {
            Objects.requireNonNull(revocationReason, "revocationReason of a REVOKED event");
            if (lossReason != null && lossReason != Lease.LossReason.REVOKED) {
                throw new IllegalArgumentException("a REVOKED event's loss reason is REVOKED or none, was " + lossReason);
            }
        }
        this.lossReason = type == Type.LOST || type == Type.REVOKED ? lossReason : null;
        this.failure = failure;
        this.revocationReason = type == Type.REVOKED ? revocationReason : null;
    }

    /** @return what happened */
    public Type type() {
        return type;
    }

    /** @return the backend's URI scheme, e.g. {@code redis} */
    public String backend() {
        return backend;
    }

    /** @return the lock's name (unbounded in number: think twice before making it a metric tag) */
    public String lockName() {
        return lockName;
    }

    /** @return the wait, hold or lease time, as the class comment says; zero where none applies */
    public Duration duration() {
        return duration;
    }

    /**
     * @return why the lease was lost, for {@link Type#LOST} and for the holder's side of
     *         {@link Type#REVOKED}; otherwise empty (the operator's side of a revocation included)
     */
    public Optional<Lease.LossReason> lossReason() {
        return Optional.ofNullable(lossReason);
    }

    /**
     * @return the cause of an unknown outcome ({@link Type#UNAVAILABLE}, {@link Type#RENEWAL_FAILED}) or
     *         the refusal ({@link Type#REFUSED}); otherwise empty
     */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /** @return the reason an operator gave for taking the lock back, for {@link Type#REVOKED}; otherwise empty */
    public Optional<String> revocationReason() {
        return Optional.ofNullable(revocationReason);
    }

    @Override
    public String toString() {
        return "LockEvent[" + type + ", " + backend + ", '" + lockName + "', " + duration
                + (lossReason != null ? ", " + lossReason : "")
                + (revocationReason != null ? ", '" + revocationReason + "'" : "")
                + (failure != null ? ", " + failure.getClass().getSimpleName() : "") + "]";
    }
}
