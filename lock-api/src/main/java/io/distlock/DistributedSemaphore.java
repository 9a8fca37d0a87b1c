package io.distlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A named semaphore shared by every client of the same backend: at most {@link #permits()} leases
 * valid at once ("at most three instances call the rate-limited partner API"). Obtained from
 * {@link LockClient#semaphore(String, int)}; cheap, thread-safe, holding no server state itself.
 * Its name is its own: the semaphore "jobs" and the lock {@code lock("jobs")} are independent.
 *
 * <p><b>A permit is a lease.</b> Each acquire takes one permit as a {@link Lease} of its own — its
 * own owner token, validity, {@link Lease#extend extend}, {@link Lease#autoRenew() auto-renewal},
 * {@link Lease#lost() loss notification} — and a permit comes back when it is released, when its
 * lease runs out, or when its holder's session ends: a holder that dies never keeps a permit for
 * good. The acquire methods behave as a lock's ({@link DistributedLock}): contention is an empty
 * result, "could not tell" a {@link BackendUnavailableException}, and an acquire that ends without a
 * permit leaves nothing held.
 *
 * <p><b>The count is part of the semaphore.</b> It is stored on the server with the permits held; an
 * acquire with another count than the holders' is refused with a {@link PermitCountMismatchException}.
 * The count lives as long as a permit of it is held (or, on a queue-based backend, waited for).
 */
public interface DistributedSemaphore {

    /** @return the semaphore's name, as given to {@link LockClient#semaphore(String, int)} */
    String name();

    /** @return the number of permits, as given to {@link LockClient#semaphore(String, int)} */
    int permits();

    /**
     * Tries once to take a permit, without waiting for one to come back.
     *
     * @param leaseTime how long the permit is held unless released or extended
     * @return the permit's lease, or empty if every permit is held
     * @throws NullPointerException         if {@code leaseTime} is null
     * @throws IllegalArgumentException     if {@code leaseTime} is out of range
     * @throws PermitCountMismatchException if the semaphore's holders use another count
     * @throws IllegalStateException        if the client is closed
     * @throws BackendUnavailableException  if no definite answer came; whatever the attempt wrote is removed
     */
    Optional<Lease> tryAcquire(Duration leaseTime);

    /**
     * Takes a permit, waiting up to {@code maxWait} for one to come back (see
     * {@link DistributedLock#tryAcquire(Duration, Duration)}).
     *
     * @param leaseTime how long the permit is held unless released or extended
     * @param maxWait   the longest to wait; zero for a single attempt
     * @return the permit's lease, or empty if every permit stayed held for the whole wait
     * @throws NullPointerException         if an argument is null
     * @throws IllegalArgumentException     if {@code leaseTime} is out of range or {@code maxWait} negative
     * @throws PermitCountMismatchException if the semaphore's holders use another count
     * @throws IllegalStateException        if the client is closed, before or while waiting
     * @throws InterruptedException         if interrupted while waiting (nothing is left held)
     * @throws BackendUnavailableException  if the wait ended on an attempt with no definite answer
     */
    Optional<Lease> tryAcquire(Duration leaseTime, Duration maxWait) throws InterruptedException;

    /**
     * Takes a permit, waiting as long as it takes (see {@link DistributedLock#acquire(Duration)}).
     *
     * @param leaseTime how long the permit is held unless released or extended
     * @return the permit's lease
     * @throws NullPointerException         if {@code leaseTime} is null
     * @throws IllegalArgumentException     if {@code leaseTime} is out of range
     * @throws PermitCountMismatchException if the semaphore's holders use another count
     * @throws IllegalStateException        if the client is closed, before or while waiting
     * @throws InterruptedException         if interrupted while waiting (nothing is left held)
     * @throws BackendUnavailableException  if the backend stayed unreachable for the connect timeout
     */
    Lease acquire(Duration leaseTime) throws InterruptedException;

    /**
     * Who holds the semaphore now, as its server shows it: one {@link LockInfo} per permit held, each with its
     * {@link LockInfo#kind() kind}, {@link LockInfo#holdId() hold id}, owner description, fencing token
     * (where the backend has them), grant time and what the server still keeps of it. Like
     * {@link LockClient#inspect}, a moment's picture that is old when it arrives, for people and tools,
     * never a basis for deciding who may write. Needs an inspector's rights, as
     * {@link LockClient#inspect} does.
     *
     * <p>The handle's own permit count plays no part: each permit shows the count its server stores.
     *
     * @return the holds, ordered by grant (oldest first); empty when nobody holds the semaphore
     * @throws UnsupportedOperationException if the backend does not declare {@link Feature#INSPECTION}
     * @throws IllegalStateException         if the client is closed
     * @throws BackendUnavailableException   if no answer came
     * @throws AccessDeniedException         if this client's principal may not read the semaphore's state
     */
    List<LockInfo> holders();

    /**
     * Takes one hold back from its holder, as {@link LockClient#revoke} takes a lock: the server ends
     * that hold (the other permits stay held, and the revoked one can be taken again), the holder's {@link Lease#lost()} completes with
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
