package io.distlock;

/**
 * A connection to one backend: the equivalent of one process taking part in locking. Obtained from
 * {@link Locks#connect(String)}. Thread-safe; share one per process and backend.
 *
 * <p>Closing the client releases every lease it still holds, wakes its waiters (their acquires
 * throw {@link IllegalStateException}), and frees its connections and its scheduler thread.
 */
public interface LockClient extends AutoCloseable {

    /** The longest lock name accepted, in characters. */
    int MAX_NAME_LENGTH = 256;

    /**
     * Returns the lock of the given name. Names are compared exactly (case-sensitive); a backend
     * that cannot store a name as is encodes it, so every valid name works with every backend.
     *
     * @param name not blank, at most {@link #MAX_NAME_LENGTH} characters, no control characters
     * @return a handle on the lock; cheap, holds nothing on the server
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank, too long or has a control character
     * @throws IllegalStateException    if the client is closed
     */
    DistributedLock lock(String name);

    /** @return what backend this client talks to and what it promises */
    BackendDescriptor backend();

    /**
     * Releases every lease still held and makes one last attempt at every removal still pending
     * (see {@link Lease#release()}), in one batch, waiting for it at most the operation timeout; what
     * the server did not confirm by then ends there with its lease time (or, on a session store,
     * with the session, which closing ends). Then closes the connection, which takes at most one
     * second more. So {@code close()} returns within the operation timeout + 1 s, even with the
     * server unreachable or silent. Idempotent.
     */
    @Override
    void close();
}
