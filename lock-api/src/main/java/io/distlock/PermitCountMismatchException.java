package io.distlock;

/**
 * A semaphore was asked for with a permit count other than the one its holders on the server use:
 * the count is part of the semaphore, stored with its permits, and two counts on one name would make
 * "at most N" mean nothing. Thrown by the acquire that asked; it waited for nothing and leaves nothing
 * held. The stored count lives as long as a permit of it is held (or waited for, on a queue-based
 * backend): once every permit is back, the name may be used with another count.
 */
public class PermitCountMismatchException extends LockException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    private final int stored;
    private final int requested;

    /**
     * @param name      the semaphore's name
     * @param stored    the count its holders on the server use
     * @param requested the count this client asked for
     */
    public PermitCountMismatchException(String name, int stored, int requested) {
        super("semaphore '" + name + "' has " + stored + " permits on the server; this client asked for " + requested
                + " (a semaphore's count is fixed while any of its permits is held)");
        this.stored = stored;
        this.requested = requested;
    }

    /** @return the count the semaphore's holders on the server use */
    public int stored() {
        return stored;
    }

    /** @return the count this client asked for */
    public int requested() {
        return requested;
    }
}
