package io.distlock;

import java.util.Objects;

/**
 * The lease of a lock held through a {@link LeaseLock} could not be confirmed when it was needed,
 * and it is not known to be lost either: its fate is unknown. The client cannot vouch for the lease
 * right now — its connection to a session store is suspended, or its session was not confirmed
 * recently enough — but the server may well still hold the lock for it (a connection blip that the
 * session outlives). Thrown by {@link LeaseLock#unlock()}, which has still freed the lock locally and
 * handed the release to the client's guaranteed cleanup (see {@link Lease#release()}), and by a
 * re-entry, which it refuses.
 *
 * <p>Unlike {@link LeaseLostException}, this is not a loss: the lease may have lasted to the end.
 * Work that must not overlap another holder's cannot tell from this which it was; it checks
 * {@link Lease#isValid()} or a {@linkplain Lease#fencingToken() fencing token} before it writes (see
 * {@link LeaseLock#lease()}).
 */
public class LeaseUnconfirmedException extends LockException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The name of the lock whose lease could not be confirmed. */
    private final String lockName;

    /**
     * @param lockName the name of the lock whose lease could not be confirmed
     * @param message  what could not be confirmed, and what was done
     * @throws NullPointerException if an argument is null
     */
    public LeaseUnconfirmedException(String lockName, String message) {
        super(Objects.requireNonNull(message, "message"));
        this.lockName = Objects.requireNonNull(lockName, "lockName");
    }

    /** @return the name of the lock whose lease could not be confirmed */
    public String lockName() {
        return lockName;
    }
}
