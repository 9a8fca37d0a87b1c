package io.distlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A {@link DistributedLock} seen as a {@link java.util.concurrent.locks.Lock}, for code written
 * against the JDK's interface (Spring Integration's {@code LockRegistry}, for one). Obtained from
 * {@link DistributedLock#asLock(Duration)}. Thread-safe.
 *
 * <p><b>Ownership and re-entrancy.</b> Like {@link java.util.concurrent.locks.ReentrantLock}, the
 * lock belongs to the thread that locked it, and it is re-entrant for that thread within the same
 * {@code LeaseLock} object: each further {@code lock()}/{@code tryLock()} by the holder only counts
 * a hold, and the unlock of the last hold releases the one lease behind them all. A re-entry counts
 * a hold only while that lease can be relied on: see <b>A lost lease</b>. Only the holder may
 * unlock. Two {@code LeaseLock} objects on the same name — in this process or another — contend
 * like any two clients. Threads of this process that contend on the same object queue here first:
 * only the thread at the head of that queue asks the server.
 *
 * <p><b>Lease.</b> Every lock is taken with the lease time given to {@code asLock} and kept alive
 * with {@link Lease#autoRenew()} until the last unlock, so the backend must declare
 * {@link Feature#AUTO_RENEWAL}.
 *
 * <p><b>"Unreachable" is never "busy".</b> {@link #tryLock()} and {@link #tryLock(long, TimeUnit)}
 * return {@code false} only for contention. If the attempt (or, for a waiting one, the last
 * attempt) got no definite answer from the backend, they throw {@link BackendUnavailableException}
 * (unchecked), and nothing is left held. {@link #lock()} and {@link #lockInterruptibly()} throw it
 * once the backend stayed unreachable for the client's connect timeout (see
 * {@link DistributedLock#acquire(Duration)}).
 *
 * <p><b>A lost lease.</b> If the lease is lost while held (a renewal found the lock gone, the backend
 * dropped it, or its validity passed without a confirmed renewal: its {@link Lease#lost()}
 * completed), the lock stays held locally until the holder unlocks, and the last {@link #unlock()}
 * throws {@link LeaseLostException}: the protected work may have overlapped another holder's. A
 * re-entry by the holder is refused: {@code lock()}, {@code lockInterruptibly()}, {@code tryLock()}
 * and {@code tryLock(time, unit)} throw {@link LeaseLostException} with the reason, at once and
 * without asking the server, and leave the hold count as it was ({@code false} would claim
 * contention, and a nested critical section must not run while another process may hold the lock).
 * To find out before that — before a write, say — check {@code lease().map(Lease::isValid)}, listen
 * on {@link Lease#lost()}, or pass the {@linkplain Lease#fencingToken() fencing token} to the
 * protected resource.
 *
 * <p><b>A lease the client cannot vouch for</b> is not lost. While the client cannot tell — its
 * connection to a session store is suspended, or its session was not confirmed recently enough —
 * the lease is invalid, but the server may still hold the lock for it (a blip the session outlives).
 * Then the last {@link #unlock()} throws {@link LeaseUnconfirmedException}: the lock is unlocked
 * here and its release goes to the client's guaranteed cleanup as usual, carried out once the server
 * answers, and the lease's fate is unknown — not lost. A re-entry is refused the same way, with
 * {@link LeaseUnconfirmedException} and the hold count unchanged; once the client vouches for the
 * lease again (the connection restored with its session), re-entries succeed again.
 *
 * <p>{@link #newCondition()} is not supported.
 */
public interface LeaseLock extends Lock {

    /** @return the name of the lock, as given to {@link LockClient#lock(String)} */
    String name();

    /** @return the lease time every lock is taken with (and renewed by) */
    Duration leaseTime();

    /**
     * The lease behind the current thread's holds: for its {@linkplain Lease#fencingToken() fencing
     * token}, its {@linkplain Lease#isValid() validity} and its {@linkplain Lease#lost() loss}.
     * Leave releasing it to {@link #unlock()}.
     *
     * @return the lease, or empty if the current thread does not hold this lock
     */
    Optional<Lease> lease();

    /** @return true if the current thread holds this lock (even if its lease was lost since) */
    boolean isHeldByCurrentThread();

    /** @return the number of holds the current thread has on this lock; zero if it holds none */
    int getHoldCount();

    /**
     * @return true while a thread of this process holds this object or waits to acquire it; says
     *         nothing of other {@code LeaseLock} objects or other processes (for a registry that
     *         drops idle locks from its cache)
     */
    boolean isLocked();

    /**
     * Takes the lock, waiting as long as it takes for other holders. Not interruptible: an interrupt
     * while waiting is remembered, the wait goes on, and the thread's interrupt flag is set again
     * when the lock is taken (or the call throws), as {@link java.util.concurrent.locks.ReentrantLock#lock()} does.
     *
     * @throws IllegalArgumentException      if the lease time is not accepted by the client (its
     *                                       clock-drift allowance; checked here only for a view whose
     *                                       {@code asLock} could not check it, see {@link DistributedLock#asLock})
     * @throws UnsupportedOperationException if the backend lacks {@link Feature#AUTO_RENEWAL} (likewise;
     *                                       nothing is left held)
     * @throws IllegalStateException         if the client is closed, before or while waiting
     * @throws BackendUnavailableException   if the backend stayed unreachable for the connect timeout
     *                                       (nothing is left held)
     * @throws LeaseLostException            on a re-entry by the holder whose lease was lost (the hold
     *                                       count is unchanged)
     * @throws LeaseUnconfirmedException     on a re-entry by the holder whose lease the client cannot
     *                                       vouch for right now (the hold count is unchanged)
     */
    @Override
    void lock();

    /**
     * Takes the lock, waiting as long as it takes for other holders, unless interrupted.
     *
     * @throws InterruptedException          if the thread is interrupted before or while waiting
     *                                       (nothing is left held, here or on the server)
     * @throws IllegalArgumentException      as for {@link #lock()}
     * @throws UnsupportedOperationException as for {@link #lock()}
     * @throws IllegalStateException         as for {@link #lock()}
     * @throws BackendUnavailableException   as for {@link #lock()}
     * @throws LeaseLostException            as for {@link #lock()}
     * @throws LeaseUnconfirmedException     as for {@link #lock()}
     */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /**
     * Makes one attempt, without waiting. Also false, without asking the server, while another
     * thread of this process holds or is acquiring this object.
     *
     * @return true if the lock was taken (or was already held by this thread, with a lease it can
     *         still rely on); false for contention only
     * @throws BackendUnavailableException   if the attempt got no definite answer (nothing is left held)
     * @throws IllegalArgumentException      as for {@link #lock()}
     * @throws UnsupportedOperationException as for {@link #lock()}
     * @throws IllegalStateException         if the client is closed
     * @throws LeaseLostException            as for {@link #lock()}: a re-entry on a lost lease, never {@code false}
     * @throws LeaseUnconfirmedException     as for {@link #lock()}
     */
    @Override
    boolean tryLock();

    /**
     * Takes the lock, waiting up to {@code time} (first for other threads of this process, then for
     * the server); zero or less is a single attempt.
     *
     * @return true if the lock was taken (or was already held by this thread, with a lease it can
     *         still rely on); false if it stayed busy for the whole wait — contention only
     * @throws InterruptedException          if the thread is interrupted before or while waiting
     *                                       (nothing is left held)
     * @throws BackendUnavailableException   if the wait ended on an attempt with no definite answer
     *                                       (nothing is left held)
     * @throws NullPointerException          if {@code unit} is null
     * @throws IllegalArgumentException      as for {@link #lock()}
     * @throws UnsupportedOperationException as for {@link #lock()}
     * @throws IllegalStateException         as for {@link #lock()}
     * @throws LeaseLostException            as for {@link #lock()}: a re-entry on a lost lease, at once
     * @throws LeaseUnconfirmedException     as for {@link #lock()}, at once
     */
    @Override
    boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

    /**
     * Gives up one hold; the last one releases the lease (never someone else's lock, see
     * {@link Lease#release()}).
     *
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     * @throws LeaseLostException           on the last hold, if the lease was lost while held (its
     *                                      {@link Lease#lost()} completed); the lock is unlocked all
     *                                      the same. Also (as {@code EXPIRED}) if the client was
     *                                      closed meanwhile, which released the lease
     * @throws LeaseUnconfirmedException    on the last hold, if the client cannot vouch for the lease
     *                                      right now (a suspended connection, a session not confirmed
     *                                      lately) and it is not known to be lost: its fate is unknown.
     *                                      The lock is unlocked all the same, and the release goes to
     *                                      the client's cleanup, carried out once the server answers
     */
    @Override
    void unlock();

    /**
     * Not supported: a condition would have to give the lock up on the server while waiting.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    Condition newCondition();
}
