package io.distlock;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

/**
 * A granted lock, for a bounded time. Obtained from {@link DistributedLock}; released with
 * {@link #release()} or {@link #close()} (the same thing), ideally in a try-with-resources block.
 *
 * <p>A lease belongs to this object, not to a thread: any thread may extend or release it.
 * All methods are thread-safe.
 *
 * <p><b>Validity.</b> The lease is granted for a lease time, but the holder may rely on it only for
 * its <em>validity</em>: the lease time counted from the moment the acquire request was sent
 * (so the time the acquire took is already spent), minus an allowance for clock drift between
 * this process and the servers ({@link LockOptions#clockDriftFactor()}). Validity is measured on
 * the monotonic clock ({@link System#nanoTime()}), never on the wall clock. After the validity
 * has passed, the lock may be granted to someone else.
 *
 * <p><b>What a lease cannot promise.</b> A process pause (a long GC, a stopped VM) can outlast the
 * validity between the moment the holder checks {@link #isValid()} and the moment it writes. Only
 * a {@linkplain #fencingToken() fencing token} checked by the protected resource closes that gap.
 */
public interface Lease extends AutoCloseable {

    /** Why a lease was lost. */
    enum LossReason {
        /** The validity passed without a release or a successful renewal. */
        EXPIRED,
        /**
         * The backend answered that the lock is no longer held by this lease: it expired there (and
         * may have been granted to someone else), or something other than distlock removed it.
         */
        NOT_HELD,
        /**
         * An operator took the lock back ({@link LockClient#revoke}): the server ended the lease.
         * The client's listener gets a {@link LockEvent.Type#REVOKED} event with the reason.
         */
        REVOKED,
        /** The backend dropped what backed the lease (a session expired, a connection was lost for good). */
        BACKEND_LOST,
    }

    /** @return the name of the lock this lease is on */
    String lockName();

    /**
     * The backend that granted this lease: its scheme, its {@link Guarantee} and its
     * {@link Feature}s — for code handed a lease that must know what it promises (a fenced write
     * that needs {@link Feature#FENCING_TOKENS}, say).
     *
     * @return the granting backend's descriptor (the same as {@link LockClient#backend()})
     */
    BackendDescriptor backend();

    /**
     * A number that strictly increases with every grant of this lock name, for the protected
     * resource to check: it must reject a write carrying a token lower than one it has already
     * seen. Present if and only if the backend declares {@link Feature#FENCING_TOKENS}.
     *
     * @return the fencing token, or empty if the backend has none
     */
    OptionalLong fencingToken();

    /**
     * How much longer this lease may be relied on, conservatively: never more than the server will
     * honour it (the acquire's duration and clock drift are already subtracted).
     *
     * @return the remaining validity; {@link Duration#ZERO} once expired, lost or released
     */
    Duration remaining();

    /**
     * @return true while the lease is held and its validity has not passed
     */
    boolean isValid();

    /**
     * Extends the lease so that it lasts at least {@code leaseTime} from now, if it is still held by
     * this lease on the server (an atomic compare-and-extend: it never touches a lock someone else
     * holds). On success the validity is recomputed from the moment the request was sent — and
     * only ever raised: an extension never shortens a lease, neither here nor on the server, so a
     * validity promised earlier (to another thread, say) always still holds. At most one extension
     * of a lease is in flight at a time: a call made while the auto-renewal's is on its way waits
     * for it (at most about twice the operation timeout).
     *
     * @param leaseTime the new lease time, counted from now
     * @return true if the server confirmed the lease is still held by it (and extended where that
     *         lasts longer); false if the lease had already expired or the server answered that it
     *         is no longer held by it (it is then reported through {@link #lost()})
     * @throws IllegalStateException         if the lease was released or its client closed
     * @throws IllegalArgumentException      if {@code leaseTime} is out of range (see {@link DistributedLock})
     * @throws UnsupportedOperationException if the backend lacks {@link Feature#LEASE_EXTENSION}
     * @throws BackendUnavailableException   if no definite answer came: the extension may or may not
     *                                       have taken effect; the lease keeps its current validity
     */
    boolean extend(Duration leaseTime);

    /**
     * Keeps this lease alive until it is released: the client's single scheduler extends it by its
     * lease time whenever a third of it has passed (renewals of many leases are batched). If a
     * renewal finds the lock gone, the lease is lost ({@link LossReason#REVOKED}); a renewal that
     * gets no answer is retried until the validity passes, and only then is the lease lost
     * ({@link LossReason#EXPIRED}). Either way {@link #lost()} completes.
     *
     * @return this lease, for chaining after {@code acquire}
     * @throws IllegalStateException         if the lease was released or its client closed
     * @throws UnsupportedOperationException if the backend lacks {@link Feature#AUTO_RENEWAL}
     */
    Lease autoRenew();

    /**
     * Releases the lock if this lease still holds it (an atomic compare-and-delete on the server:
     * never someone else's lock). Idempotent: later calls do nothing. Callable from any thread.
     *
     * <p>The lease is invalid at once. The removal on the server is guaranteed: if the server does
     * not confirm it (unreachable, no answer within the operation timeout), it is retried in the
     * background — with back-off, and at once when a session store's connection comes back — until
     * the server confirms it, until the lock's lease time has passed there (a server that expires
     * locks), or until the client is closed. So {@code release()} never throws for an unreachable
     * backend, and while the client knows its backend to be away it returns at once.
     */
    void release();

    /** The same as {@link #release()}, for try-with-resources. */
    @Override
    void close();

    /**
     * Completes, with the reason, when the lease is lost without having been released: its validity
     * passed, a renewal found it gone, or the backend dropped it. Never completes for a lease that
     * was released first. Callbacks run on a shared pool, not on the caller's thread: keep them short.
     *
     * @return a stage that completes at most once; it cannot be completed by the caller
     */
    CompletionStage<LossReason> lost();
}
