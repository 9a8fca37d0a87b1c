package io.distlock;

import java.util.List;
import java.util.Optional;

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

    /** The largest permit count {@link #semaphore} accepts. */
    int MAX_PERMITS = 10_000;

    /**
     * Returns the read-write lock of the given name: many readers or one writer, write preference,
     * one fencing order (see {@link DistributedReadWriteLock}). Its name space is its own: it does not
     * contend with {@code lock(name)} nor with {@code semaphore(name, n)}.
     *
     * <p>The default refuses: an implementation of this interface that has no read-write locks says so.
     *
     * @param name a lock name, as for {@link #lock(String)}
     * @return a handle on the read-write lock; cheap, holds nothing on the server
     * @throws NullPointerException          if {@code name} is null
     * @throws IllegalArgumentException      if {@code name} is not a valid lock name
     * @throws UnsupportedOperationException if the backend does not declare {@link Feature#READ_WRITE}
     *                                       (the message names the feature)
     * @throws IllegalStateException         if the client is closed
     */
    default DistributedReadWriteLock readWriteLock(String name) {
        throw new UnsupportedOperationException("LockClient.readWriteLock needs feature " + Feature.READ_WRITE
                + ", which backend '" + backend().scheme() + "' does not declare");
    }

    /**
     * Returns the semaphore of the given name with {@code permits} permits, each acquired as a lease
     * (see {@link DistributedSemaphore}). The count is part of the semaphore: an acquire whose count
     * differs from the one its holders on the server use is refused
     * ({@link PermitCountMismatchException}). Its name space is its own: it does not contend with
     * {@code lock(name)} nor with {@code readWriteLock(name)}.
     *
     * <p>The default refuses: an implementation of this interface that has no semaphores says so.
     *
     * @param name    a lock name, as for {@link #lock(String)}
     * @param permits how many permits may be held at once, 1 to {@value #MAX_PERMITS}
     * @return a handle on the semaphore; cheap, holds nothing on the server
     * @throws NullPointerException          if {@code name} is null
     * @throws IllegalArgumentException      if {@code name} is not a valid lock name or {@code permits} is out of range
     * @throws UnsupportedOperationException if the backend does not declare {@link Feature#SEMAPHORE}
     *                                       (the message names the feature)
     * @throws IllegalStateException         if the client is closed
     */
    default DistributedSemaphore semaphore(String name, int permits) {
        throw new UnsupportedOperationException("LockClient.semaphore needs feature " + Feature.SEMAPHORE
                + ", which backend '" + backend().scheme() + "' does not declare");
    }

    /** @return what backend this client talks to and what it promises */
    BackendDescriptor backend();

    /** The longest revocation reason accepted ({@link #revoke}), in characters. */
    int MAX_REASON_LENGTH = 256;

    /** The largest {@code limit} {@link #holders} accepts. */
    int MAX_HOLDERS_LIMIT = 10_000;

    /**
     * Shows who holds a lock, as the server sees it now, in one round trip (on Redlock, one per
     * node, in parallel). It never takes, extends or waits for the lock. What it shows may be
     * outdated by the time it returns: it is for people and tools, never for deciding who may write.
     *
     * @param name a lock name, as for {@link #lock(String)}
     * @return the holder; empty if nobody holds the lock (never granted, released, or expired on the server)
     * @throws NullPointerException          if {@code name} is null
     * @throws IllegalArgumentException      if {@code name} is not a valid lock name
     * @throws UnsupportedOperationException if the backend does not declare {@link Feature#INSPECTION}
     * @throws BackendUnavailableException   if the server did not answer within the operation timeout
     * @throws AccessDeniedException         if this client's principal may not read the lock
     * @throws IllegalStateException         if the client is closed
     */
    Optional<LockInfo> inspect(String name);

    /**
     * Lists the locks held now whose names start with {@code prefix}, at most {@code limit} of
     * them, ordered by name. What it costs is the backend's (its README says): a Redis-family backend
     * scans the keyspace ({@code SCAN MATCH … COUNT}, never {@code KEYS}), ZooKeeper lists children,
     * etcd reads a key range. Like {@link #inspect}, a moment's picture, possibly outdated.
     *
     * @param prefix the names' prefix; empty for every lock; no control characters
     * @param limit  at most this many, 1 to {@value #MAX_HOLDERS_LIMIT}
     * @return the holders found, at most {@code limit}, ordered by name
     * @throws NullPointerException          if {@code prefix} is null
     * @throws IllegalArgumentException      if {@code prefix} is too long or has a control character, or
     *                                       {@code limit} is out of range
     * @throws UnsupportedOperationException if the backend does not declare {@link Feature#INSPECTION}
     * @throws BackendUnavailableException   if the server did not answer within the operation timeout
     * @throws AccessDeniedException         if this client's principal may not list the locks
     * @throws IllegalStateException         if the client is closed
     */
    List<LockInfo> holders(String prefix, int limit);

    /**
     * Takes a lock back from whoever holds it: the server ends the holder's lease at once, and
     * every later grant of the lock carries a higher fencing token than the holder's (on a backend
     * with {@link Feature#FENCING_TOKENS}), so that a fenced resource rejects what the evicted
     * holder writes late — a holder that was paused, not dead, and wakes up. The holder's client
     * learns it by the means its backend has (a notification, a watch, at the latest its next
     * renewal): its {@link Lease#lost()} completes with {@link Lease.LossReason#REVOKED},
     * {@link Lease#isValid()} turns false, {@link Lease#extend} returns false. Both clients'
     * listeners get a {@link LockEvent.Type#REVOKED} event with the reason.
     *
     * <p>A revoke is an operator's act and usually needs rights an ordinary client does not have
     * (each backend's README gives them). A holder whose release races the revoke is either
     * revoked or released, never both, and never two holders at once.
     *
     * @param name   a lock name, as for {@link #lock(String)}
     * @param reason why, for the holder's listener and logs: not blank, at most
     *               {@value #MAX_REASON_LENGTH} characters, no control characters; visible to
     *               whoever can read the backend
     * @return the holder as it was when its lease was ended; empty if nobody held the lock (nothing changed)
     * @throws NullPointerException          if {@code name} or {@code reason} is null
     * @throws IllegalArgumentException      if {@code name} or {@code reason} is not valid
     * @throws UnsupportedOperationException if the backend does not declare {@link Feature#REVOCATION}
     * @throws BackendUnavailableException   if the server did not answer: the revoke may or may not
     *                                       have happened; {@link #inspect} tells, and a repeated
     *                                       revoke is harmless
     * @throws AccessDeniedException         if this client's principal may not revoke
     * @throws IllegalStateException         if the client is closed
     */
    Optional<LockInfo> revoke(String name, String reason);

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
