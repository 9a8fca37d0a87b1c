package io.distlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A named read-write lock shared by every client of the same backend: many readers at once, or one
 * writer and no reader. Obtained from {@link LockClient#readWriteLock(String)}; cheap, thread-safe,
 * holding no server state itself. Its name is its own: the read-write lock "jobs" and the lock
 * {@code lock("jobs")} are independent.
 *
 * <p>Each side is a {@link DistributedLock} and each hold a {@link Lease} like a lock's — its own
 * owner token, validity, {@link Lease#extend extend}, {@link Lease#autoRenew() auto-renewal} and
 * {@link Lease#lost() loss notification} — so everything said of a lock's leases holds per reader and
 * per writer, and a holder that dies gives its hold back at the end of its lease (or session).
 *
 * <p><b>Write preference.</b> A writer that waits is not starved by readers that keep arriving:
 * once a writer waits, a reader that was not already holding waits behind it. The readers holding
 * then finish (or run out), the writer gets the lock, and the readers that queued behind it follow
 * its release. A waiting writer that dies holds readers back for a bounded time: about its lease time
 * (on Redis, at least 2 s), or until its session ends on a session store (ZooKeeper, etcd).
 *
 * <p><b>No upgrade, no downgrade.</b> A hold is not re-entrant and does not change side: a client
 * holding a read lease that asks for the write side waits for its own reader like any other (and
 * its read lease blocks it), and a writer asking for the read side waits for itself. Release one side
 * before taking the other. The {@linkplain #asReadWriteLock(Duration) JDK view} refuses both with an
 * {@link IllegalStateException} rather than wait for itself.
 *
 * <p><b>Fencing.</b> With {@link Feature#FENCING_TOKENS}, readers and writers draw their tokens from
 * one sequence: a writer's token is above every token granted before it, reader or writer, so a
 * resource that keeps the highest token it saw refuses a stale writer.
 */
public interface DistributedReadWriteLock {

    /** @return the lock's name, as given to {@link LockClient#readWriteLock(String)} */
    String name();

    /**
     * @return the read side: a lease on it is held beside other readers, never beside a writer, and is
     *         not granted while a writer waits
     */
    DistributedLock readLock();

    /** @return the write side: a lease on it is held by no one else, reader or writer */
    DistributedLock writeLock();

    /**
     * This read-write lock as a {@link ReadWriteLock}, for code written against the JDK's interface:
     * each side a {@link LeaseLock} whose leases have {@code leaseTime} and are auto-renewed while
     * held. The read side is re-entrant per thread, and threads of this process hold it at once (each
     * with a lease of its own); the write side is re-entrant for its holding thread and shared by the
     * threads of the process, which queue locally for it. A thread that holds one side and asks for
     * the other gets an {@link IllegalStateException} (upgrade and downgrade are refused), and holds
     * nothing more.
     *
     * @param leaseTime the lease time of every acquire, renewed every third of it while held
     * @return a new view; two views contend as two clients would
     * @throws NullPointerException          if {@code leaseTime} is null
     * @throws IllegalArgumentException      if {@code leaseTime} is out of range, or not longer than the
     *                                       client's clock-drift allowance for it
     * @throws UnsupportedOperationException if the backend lacks {@link Feature#AUTO_RENEWAL}
     */
    default ReadWriteLock asReadWriteLock(Duration leaseTime) {
        return new ReadWriteLockView(writeLock().asLock(leaseTime), () -> readLock().asLock(leaseTime));
    }

    /**
     * Who holds the read-write lock now, as its server shows it: one {@link LockInfo} per reader or writer, each with its
     * {@link LockInfo#kind() kind}, {@link LockInfo#holdId() hold id}, owner description, fencing token
     * (where the backend has them), grant time and what the server still keeps of it. Like
     * {@link LockClient#inspect}, a moment's picture that is old when it arrives, for people and tools,
     * never a basis for deciding who may write. Needs an inspector's rights, as
     * {@link LockClient#inspect} does.
     *
     * @return the holds, ordered by grant (oldest first); empty when nobody holds the read-write lock
     * @throws UnsupportedOperationException if the backend does not declare {@link Feature#INSPECTION}
     * @throws IllegalStateException         if the client is closed
     * @throws BackendUnavailableException   if no answer came
     * @throws AccessDeniedException         if this client's principal may not read the read-write lock's state
     */
    List<LockInfo> holders();

    /**
     * Takes one hold back from its holder, as {@link LockClient#revoke} takes a lock: the server ends
     * that hold (the other readers stay), the holder's {@link Lease#lost()} completes with
     * {@link Lease.LossReason#REVOKED} once its client learns it (a notification, or its next
     * renewal), and every later grant's fencing token is above the revoked one's, so a fenced
     * resource refuses the evicted holder's late writes. A holder whose release races the revoke is
     * either revoked or released, never both. Needs an operator's rights.
     *
     * @param holdId the hold's {@link LockInfo#holdId()}, as {@link #holders()} showed it
     * @param reason why, for the holder's loss notification and the logs; 1 to
     *               {@value LockClient#MAX_REASON_LENGTH} characters, no control characters
     * @return the hold as it was when revoked, or empty if no such hold is held (already released,
     *         expired or revoked: nothing changed)
     * @throws NullPointerException          if an argument is null
     * @throws IllegalArgumentException      if {@code holdId} or {@code reason} is blank, too long or has
     *                                       control characters
     * @throws UnsupportedOperationException if the backend does not declare {@link Feature#REVOCATION}
     * @throws IllegalStateException         if the client is closed
     * @throws BackendUnavailableException   if the server did not answer: the revoke may or may not have
     *                                       happened; {@link #holders()} tells, and a repeated revoke is harmless
     * @throws AccessDeniedException         if this client's principal may not revoke
     */
    Optional<LockInfo> revoke(String holdId, String reason);
}
