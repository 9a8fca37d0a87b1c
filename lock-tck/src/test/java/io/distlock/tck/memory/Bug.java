package io.distlock.tck.memory;

/** One deliberate defect of the in-memory backend, each a classic mistake of real lock code. */
enum Bug {
    /** The reference: no defect. */
    NONE,
    /** Release deletes whoever holds the lock (a plain {@code DEL} instead of compare-and-delete). */
    BLIND_DELETE,
    /** Granted locks never expire on the server (a {@code SET NX} without {@code PX}). */
    NO_EXPIRY,
    /** The driver ignores the request's owner token and uses a constant one for everybody. */
    CONSTANT_OWNER_TOKEN,
    /** The fencing counter lives with the lock's state and starts over whenever the lock is free. */
    NON_MONOTONIC_FENCE,
    /** {@code abandon} does nothing: an interrupted or timed-out waiter's request stays queued and is granted to a ghost. */
    LEAKED_ABANDON,
    /** The server honours only half of the lease time asked for (a unit mix-up), so {@code remaining()} over-promises. */
    EARLY_EXPIRY,
    /** The newest waiter is served first although FIFO_WAITERS is declared. */
    LIFO_WAITERS
}
