package io.distlock;

import java.time.Duration;
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
}
