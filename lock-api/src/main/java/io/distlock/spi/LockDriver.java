package io.distlock.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The mechanism of one backend for one client: how to try once, extend, release, and (optionally)
 * wait for a change. Everything else is the engine's. One driver belongs to one client; the engine
 * calls it from several threads at once, so it must be thread-safe.
 *
 * <p>Failures: {@link io.distlock.BackendUnavailableException} when the server cannot be reached
 * in time (naming the endpoint, never a password); {@link io.distlock.LockException} for other
 * server-side failures. Blocking calls must be bounded by {@link io.distlock.LockOptions#operationTimeout()}.
 */
public interface LockDriver extends AutoCloseable {

    /**
     * Tries once to take {@code request.name()} for {@code request.ownerToken()} for
     * {@code request.leaseTime()}. The engine may call this again with the same request while it
     * waits (a queue-based backend may keep the request's place in line between calls); it always
     * ends a request that did not produce a lease with {@link #abandon}.
     *
     * @param request the acquisition: name, fresh owner token, lease time
     * @return {@link Attempt#granted} or {@link Attempt#busy}
     */
    Attempt tryAcquire(LockRequest request);

    /**
     * Sets the lease of {@code grant} to end {@code leaseTime} from now, only if the lock is still
     * held by the grant's owner token (atomically: compare, then extend).
     *
     * @param grant     a grant this driver returned
     * @param leaseTime the new lease time
     * @return true if extended, false if the lock is no longer the grant's
     */
    boolean extend(Grant grant, Duration leaseTime);

    /**
     * Extends many leases at once; the engine's renewal uses this so that a client holding
     * thousands of leases renews them in a few batched round trips. The default calls
     * {@link #extend} for each; drivers that can pipeline should.
     *
     * @param renewals the grants and their lease times
     * @return one result per renewal, in order, as {@link #extend} would return it
     */
    default List<Boolean> extendAll(List<Renewal> renewals) {
        List<Boolean> results = new ArrayList<>(renewals.size());
        for (Renewal renewal : renewals) {
            results.add(extend(renewal.grant(), renewal.leaseTime()));
        }
        return results;
    }

    /**
     * Releases the lock only if it is still held by the grant's owner token (atomically: compare,
     * then delete). Must be safe to call when the lease has expired or been re-granted.
     *
     * @param grant a grant this driver returned
     * @return true if this call released it, false if it was no longer the grant's
     */
    boolean release(Grant grant);

    /**
     * Removes whatever {@code request} may have left on the server after an acquire that did not
     * produce a lease (it gave up, timed out, was interrupted, or failed). Called exactly once per
     * such acquire. Must not throw for a request that left nothing.
     *
     * @param request        the request
     * @param outcomeUnknown true if the last {@link #tryAcquire} failed with an exception: its write
     *                       may have taken effect although no reply arrived, so the driver must
     *                       clean up by owner token (compare-and-delete) even if it thinks it lost
     */
    void abandon(LockRequest request, boolean outcomeUnknown);

    /**
     * Asks to be told when {@code name} may have become free (a release, a deletion). Called only
     * for backends that declare {@link io.distlock.Feature#WAIT_NOTIFICATION}. The listener must be
     * cheap and non-blocking; spurious calls are allowed, and missed ones are tolerated (the engine
     * still retries on a bounded back-off), but a driver that misses them is slow.
     *
     * <p>The watch must be active when this method returns: the engine retries once right after
     * registering, and a release between that retry and a still-pending registration would go
     * unheard. A driver whose registration is asynchronous (Redis {@code SUBSCRIBE}) waits for the
     * server's confirmation here, bounded by the operation timeout.
     *
     * @param name     the lock name
     * @param onChange called from the driver's thread on every possible change
     * @return a handle that stops the notifications
     */
    default Watch watch(String name, Runnable onChange) {
        return Watch.NONE;
    }

    /**
     * Whether the server ends a lease by itself when its lease time passes (a key with a TTL), so
     * that a holder that does nothing cannot keep the lock longer. A session-based store (a
     * ZooKeeper ephemeral node lives as long as the client's session) answers false: the engine
     * then watches every lease of this driver on the client's keeper thread and calls
     * {@link #leaseExpired} at the end of its validity, so that {@code leaseTime} means the same
     * on every backend: the longest a lease may be held without {@code extend}.
     *
     * @return true (the default) if the server expires leases; false to be told by {@link #leaseExpired}
     */
    default boolean serverExpiresLeases() {
        return true;
    }

    /**
     * Called by the engine once for a lease that ended without a release, for a driver whose
     * {@link #serverExpiresLeases()} is false: its validity passed, a renewal found it gone, or the
     * driver itself reported it lost. The driver removes the lock from the server (compare, then
     * delete, as {@link #release}). Called on an engine thread, never the caller's; it must not
     * block longer than the operation timeout, and failures are only logged (the driver should keep
     * trying on its own, for example when its connection comes back). The default does nothing.
     *
     * @param grant a grant this driver returned, whose lease has ended
     */
    default void leaseExpired(Grant grant) {
    }

    /** Closes connections. The engine has released what could be released before calling this. */
    @Override
    void close();
}
