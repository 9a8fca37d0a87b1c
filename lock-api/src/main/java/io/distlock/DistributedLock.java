package io.distlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A named lock shared by every client of the same backend. Obtained from
 * {@link LockClient#lock(String)}; cheap, thread-safe, and holding no server state itself.
 *
 * <p>The lock is not re-entrant: while a lease on a name is held, a second acquire of the same
 * name through any client (this one included) is contention. (The {@link #asLock(Duration) Lock view}
 * is re-entrant for its holding thread.) Contention is reported as an empty
 * {@link Optional}, never as an exception — and only contention: a backend that could not be
 * reached, or whose answer did not arrive, is a {@link BackendUnavailableException}, never an empty
 * result. Whatever an acquire that ended without a lease may have written on the server (a request
 * whose reply was lost) is removed by owner token, in the background if the server is away.
 *
 * <p><b>Lease times</b> must be between {@link #MIN_LEASE_TIME} and {@link #MAX_LEASE_TIME}
 * (a backend may require more, and says so), and longer than the client's clock-drift allowance
 * for them ({@link LockOptions#clockDrift(Duration)}); use {@link Lease#autoRenew()} for work of unknown
 * length rather than a huge lease. <b>Interrupts:</b> an acquire that is interrupted or runs out of
 * time never leaves the lock held on the server.
 */
public interface DistributedLock {

    /** The shortest lease time accepted. */
    Duration MIN_LEASE_TIME = Duration.ofMillis(10);

    /** The longest lease time accepted. */
    Duration MAX_LEASE_TIME = Duration.ofDays(1);

    /** @return the lock's name, as given to {@link LockClient#lock(String)} */
    String name();

    /**
     * Tries once to take the lock, without waiting for a holder to let go.
     *
     * @param leaseTime how long the lock is held unless released or extended
     * @return the lease, or empty if someone else holds the lock
     * @throws NullPointerException        if {@code leaseTime} is null
     * @throws IllegalArgumentException    if {@code leaseTime} is out of range
     * @throws IllegalStateException       if the client is closed
     * @throws BackendUnavailableException if no definite answer came (unreachable, no reply, no quorum
     *                                     either way); whatever the attempt may have written is removed
     */
    Optional<Lease> tryAcquire(Duration leaseTime);

    /**
     * Takes the lock, waiting up to {@code maxWait} for it to become free. Waiters are woken by the
     * backend where it can notify ({@link Feature#WAIT_NOTIFICATION}), else they retry on a jittered
     * back-off. A {@code maxWait} of zero is one attempt. Attempts whose outcome is unknown (the
     * backend did not answer) are retried within {@code maxWait} too; if the wait ends on one, the
     * acquire throws rather than report contention.
     *
     * @param leaseTime how long the lock is held unless released or extended
     * @param maxWait   the longest to wait; zero for a single attempt
     * @return the lease, or empty if another holder kept the lock for the whole wait
     * @throws NullPointerException        if an argument is null
     * @throws IllegalArgumentException    if {@code leaseTime} is out of range or {@code maxWait} is negative
     * @throws IllegalStateException       if the client is closed, before or while waiting
     * @throws InterruptedException        if the thread is interrupted while waiting (nothing is left held)
     * @throws BackendUnavailableException if the wait ended on an attempt with no definite answer
     *                                     (nothing is left held)
     */
    Optional<Lease> tryAcquire(Duration leaseTime, Duration maxWait) throws InterruptedException;

    /**
     * Takes the lock, waiting as long as it takes for other holders. If every attempt for the
     * connect timeout ({@link LockOptions#connectTimeout()}) got no definite answer, the backend
     * counts as unreachable and the acquire throws.
     *
     * @param leaseTime how long the lock is held unless released or extended
     * @return the lease
     * @throws NullPointerException        if {@code leaseTime} is null
     * @throws IllegalArgumentException    if {@code leaseTime} is out of range
     * @throws IllegalStateException       if the client is closed, before or while waiting
     * @throws InterruptedException        if the thread is interrupted while waiting (nothing is left held)
     * @throws BackendUnavailableException if the backend stayed unreachable for the connect timeout
     *                                     (nothing is left held)
     */
    Lease acquire(Duration leaseTime) throws InterruptedException;

    /**
     * This lock as a {@link java.util.concurrent.locks.Lock}, for code written against the JDK's
     * interface: re-entrant for the holding thread within the returned object, each lock taken
     * with {@code leaseTime} and {@linkplain Lease#autoRenew() auto-renewed} until the last unlock,
     * {@code tryLock} false for contention only (an unknown outcome throws
     * {@link BackendUnavailableException}), and a lease lost while held reported by
     * {@link LeaseLock#unlock()} as a {@link LeaseLostException} (a re-entry on it is refused); a
     * lease the client cannot vouch for at unlock is a {@link LeaseUnconfirmedException}, not a loss.
     * See {@link LeaseLock}.
     *
     * <p>Each call returns a new object, and two objects on the same name contend: share one among
     * the threads of a process that should queue locally. The backend must declare
     * {@link Feature#AUTO_RENEWAL}, and {@code leaseTime} must be longer than the client's
     * clock-drift allowance for it: the locks of {@link Locks#connect} check both here. (The default
     * method, for other implementations, cannot: it checks them at the first acquire, which then
     * throws and leaves nothing held.)
     *
     * @param leaseTime the lease time of every acquire, renewed every third of it while held
     * @return a new view of this lock
     * @throws NullPointerException          if {@code leaseTime} is null
     * @throws IllegalArgumentException      if {@code leaseTime} is out of range, or not longer than
     *                                       the client's clock-drift allowance for it
     * @throws UnsupportedOperationException if the backend lacks {@link Feature#AUTO_RENEWAL}
     */
    default LeaseLock asLock(Duration leaseTime) {
        return new LeaseLockView(this, checkLeaseTime(leaseTime));
    }

    /**
     * Checks a lease time against {@link #MIN_LEASE_TIME} and {@link #MAX_LEASE_TIME}, as every
     * acquire does first — for code that takes a lease time before it reaches a lock (a
     * framework's configuration, say) and should refuse it with the same message. A client may
     * refuse more: a lease time not longer than its clock-drift allowance, or below a backend's own
     * minimum.
     *
     * @param leaseTime the lease time
     * @return {@code leaseTime}
     * @throws NullPointerException     if {@code leaseTime} is null
     * @throws IllegalArgumentException if it is out of range
     */
    static Duration checkLeaseTime(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        if (leaseTime.compareTo(MIN_LEASE_TIME) < 0 || leaseTime.compareTo(MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("leaseTime must be between " + MIN_LEASE_TIME + " and " + MAX_LEASE_TIME
                    + ", was " + leaseTime);
        }
        return leaseTime;
    }
}
