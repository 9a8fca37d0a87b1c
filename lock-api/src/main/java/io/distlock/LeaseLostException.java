package io.distlock;

import java.util.Objects;

/**
 * A lock held through a {@link LeaseLock} lost its lease before it was unlocked: the renewal found
 * the lock gone on the server, the backend dropped it (a session expired), or its validity passed
 * without a confirmed renewal. Thrown by {@link LeaseLock#unlock()}, which has still freed the lock
 * locally and released whatever was left of it on the server, and by a re-entry of the holding
 * thread, which it refuses (the hold count is unchanged; the last unlock still reports the loss).
 * A lease whose fate the client cannot tell is not lost: see {@link LeaseUnconfirmedException}.
 *
 * <p>The work done under the lock may have overlapped another holder's: from the loss on, the lock
 * could be granted to someone else. Work that must not overlap checks
 * {@link Lease#isValid()} or a {@linkplain Lease#fencingToken() fencing token} before it writes
 * (see {@link LeaseLock#lease()}).
 */
public class LeaseLostException extends LockException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** Why the lease was lost. */
    private final Lease.LossReason reason;

    /** The name of the lock whose lease was lost. */
    private final String lockName;

    /**
     * @param lockName the name of the lock whose lease was lost
     * @param reason   why it was lost
     * @throws NullPointerException if an argument is null
     */
    public LeaseLostException(String lockName, Lease.LossReason reason) {
        this(lockName, reason, "the lease on lock '" + Objects.requireNonNull(lockName, "lockName") + "' was lost before"
                + " unlock (" + Objects.requireNonNull(reason, "reason") + "): the work done under the lock may have"
                + " overlapped another holder's");
    }

    /**
     * @param lockName the name of the lock whose lease was lost
     * @param reason   why it was lost
     * @param message  what the loss means where it was found (a refused re-entry, say)
     * @throws NullPointerException if an argument is null
     */
    public LeaseLostException(String lockName, Lease.LossReason reason, String message) {
        super(Objects.requireNonNull(message, "message"));
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** @return why the lease was lost */
    public Lease.LossReason reason() {
        return reason;
    }

    /** @return the name of the lock whose lease was lost */
    public String lockName() {
        return lockName;
    }
}
