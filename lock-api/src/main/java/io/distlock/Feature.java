package io.distlock;

/**
 * Capabilities a backend declares in its {@link BackendDescriptor}. The TCK runs a rule only
 * when the backend declares the features the rule needs, and otherwise reports the rule as
 * skipped, naming the feature.
 */
public enum Feature {
    /** {@link Lease#fencingToken()} is present and strictly increases with every grant of a name. */
    FENCING_TOKENS,
    /** {@link Lease#extend(java.time.Duration)} is supported. */
    LEASE_EXTENSION,
    /** {@link Lease#autoRenew()} is supported (the engine renews through lease extension). */
    AUTO_RENEWAL,
    /**
     * {@link Lease#lost()} completes when the lease is lost without a release: at the end of its
     * validity, when a renewal finds the lock gone, and when the backend reports a loss of its own
     * (a session expiry).
     */
    LOSS_NOTIFICATION,
    /** Waiters are woken by the backend when the lock changes, instead of polling on a back-off. */
    WAIT_NOTIFICATION,
    /** Waiters are granted the lock in the order in which they started waiting. */
    FIFO_WAITERS,
    /** The backend keeps granting locks while a minority of its nodes is down. */
    QUORUM,
    /**
     * {@link LockClient#inspect} and {@link LockClient#holders} show who holds a lock: the owner
     * description, the fencing token (with {@link #FENCING_TOKENS}), since when, and what the
     * server has left of the lease.
     */
    INSPECTION,
    /**
     * {@link LockClient#revoke} takes a lock back from its holder: the server ends the lease, the
     * holder's {@link Lease#lost()} completes with {@link Lease.LossReason#REVOKED}, and (with
     * {@link #FENCING_TOKENS}) every later grant's token is above the evicted holder's.
     */
    REVOCATION,
    /**
     * {@link LockClient#readWriteLock} gives a read-write lock: many readers or one writer, a
     * waiting writer served before readers that arrive after it, and (with {@link #FENCING_TOKENS})
     * one fencing order for both sides, so that a writer's token is above every token granted before it.
     */
    READ_WRITE,
    /**
     * {@link LockClient#semaphore} gives a semaphore of N permits, each a lease: never more than N
     * valid at once, a dead holder's permit back at the end of its lease or session, and the count
     * stored on the server so that a client asking for another count is refused.
     */
    SEMAPHORE
}
