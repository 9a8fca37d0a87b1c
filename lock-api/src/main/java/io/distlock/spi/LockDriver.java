package io.distlock.spi;

import io.distlock.BackendUnavailableException;
import io.distlock.LockInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The mechanism of one backend for one client: how to try once, extend, release, clean up, and
 * (optionally) wait for a change. Everything else is the engine's. One driver belongs to one
 * client; the engine calls it from several threads at once, so it must be thread-safe.
 *
 * <h2>Three outcomes</h2>
 * A remote call has three outcomes: yes, no, and "could not tell". A driver reports the third
 * honestly — {@link Attempt#unknown}, {@link ExtendOutcome#unknown}, or a thrown
 * {@link BackendUnavailableException} (which the engine treats the same way) — and never turns it
 * into "busy" or "lost": an unreachable server is not contention, and a renewal nobody answered is
 * not a revocation. Only definite answers may be reported as such.
 *
 * <h2>Cleanup is the engine's to retry</h2>
 * {@link #release}, {@link #releaseAll}, {@link #abandon} and {@link #leaseExpired} remove
 * something from the server. Each returns normally once the server has confirmed the removal (or
 * that nothing was there), and throws when it could not tell. The engine keeps whatever could not
 * be confirmed in one cleanup queue and calls the method again — with back-off, at once when the
 * driver reports {@link DriverContext#connectionRestored()}, and in one batch when the client
 * closes — until it returns normally, until the server's own expiry has made it moot (for a driver
 * whose {@link #serverExpiresLeases()}), or until the client is closed. So a driver never needs a
 * retry loop or a "leftovers" list of its own, and must never forget a removal before it is
 * confirmed. All four must be idempotent: safe to call again after a call whose reply was lost.
 *
 * <h2>Blocking, interrupts, close</h2>
 * Every method may block, each remote exchange bounded by {@link io.distlock.LockOptions#operationTimeout()}
 * (a driver may retry within that bound, for example after a failover). A driver must not rely on
 * the interrupt flag: it neither clears it nor fails because of it (the engine decides what an
 * interrupt means, and treats an interrupt during {@link #tryAcquire} as an unknown outcome). Calls
 * can race {@link #close()}; a call cut short by it may throw anything — the engine reports it to
 * the user as an {@link IllegalStateException} (the client was closed), never as a pool error.
 *
 * <h2>Other failures</h2>
 * {@link io.distlock.LockException} for definite server-side refusals (a key of the wrong type, an
 * ACL or authentication refusal); {@link IllegalArgumentException} for a request the backend cannot
 * serve (a lease time below its minimum). Messages name the endpoint, never a password.
 */
public interface LockDriver extends AutoCloseable {

    /**
     * Tries once to take {@code request.name()} for {@code request.ownerToken()} for
     * {@code request.leaseTime()}. The engine may call this again with the same request while it
     * waits (a queue-based backend keeps the request's place in line between calls; a retry after
     * an unknown outcome must recognise a write of this request that did land, by its owner token);
     * it always ends a request that did not produce a lease with {@link #abandon}.
     *
     * @param request the acquisition: name, fresh owner token, lease time
     * @return {@link Attempt#granted}, {@link Attempt#busy} or {@link Attempt#unknown}
     * @throws BackendUnavailableException if no definite answer came (the same as returning
     *                                     {@link Attempt#unknown})
     */
    Attempt tryAcquire(LockRequest request);

    /**
     * Makes the lease of {@code grant} last at least {@code leaseTime} from the moment the request is
     * sent, only if the lock is still held by the grant's owner token (atomically: compare, then
     * extend).
     *
     * <p>An extension must be <b>monotone</b>: it never moves the server's expiry earlier (Redis:
     * {@code PEXPIRE … GT}; a session store whose engine ends the lease: nothing to do). The engine
     * raises a lease's validity from every confirmed extension and never lowers it, so a validity
     * promised earlier is only safe if no extension — a shorter one, or an older one whose reply was
     * lost and that lands late, after a newer one — can cut the server's hold short.
     *
     * @param grant     a grant this driver returned
     * @param leaseTime the new lease time
     * @return extended, lost (the lock is no longer the grant's), or unknown
     * @throws BackendUnavailableException if no definite answer came (the same as unknown)
     */
    ExtendOutcome extend(Grant grant, Duration leaseTime);

    /**
     * Extends many leases at once; the engine's renewal uses this so that a client holding
     * thousands of leases renews them in a few batched round trips. The default calls
     * {@link #extend} for each; drivers that can pipeline should.
     *
     * @param renewals the grants and their lease times
     * @return one outcome per renewal, in order, as {@link #extend} would report it
     * @throws BackendUnavailableException if no definite answer came for any of them
     */
    default List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        List<ExtendOutcome> results = new ArrayList<>(renewals.size());
        for (Renewal renewal : renewals) {
            ExtendOutcome outcome;
            try {
                outcome = extend(renewal.grant(), renewal.leaseTime());
            } catch (BackendUnavailableException e) {
                outcome = ExtendOutcome.unknown(e);
            }
            results.add(outcome);
        }
        return results;
    }

    /**
     * Releases the lock only if it is still held by the grant's owner token (atomically: compare,
     * then delete). Must be safe to call when the lease has expired or been re-granted, and again
     * after a call whose reply was lost.
     *
     * @param grant a grant this driver returned
     * @return true if this call released it, false if it was no longer the grant's; either way the
     *         release is done
     * @throws BackendUnavailableException if it could not tell (the engine retries it)
     */
    boolean release(Grant grant);

    /**
     * Releases many grants at once: closing a client, or a cleanup round with several releases
     * pending. The default calls {@link #release} for each; a driver should send them in one batch
     * per node.
     *
     * @param grants the grants to release
     * @return the grants whose release could not be confirmed (the engine retries them); empty
     *         when every release is done
     */
    default List<Grant> releaseAll(List<Grant> grants) {
        List<Grant> unconfirmed = new ArrayList<>();
        for (Grant grant : grants) {
            try {
                release(grant);
            } catch (RuntimeException e) {
                unconfirmed.add(grant);
            }
        }
        return unconfirmed;
    }

    /**
     * Removes whatever {@code request} may have left on the server after an acquire that did not
     * produce a lease (it gave up, timed out, was interrupted, or its outcome is unknown). Called
     * for every such acquire, and again until it returns normally.
     *
     * <p>When {@code outcomeUnknown} is true, a write of this request may have taken effect without
     * a reply — or may still be on its way and land <em>after</em> this call: the driver removes
     * anything held by the owner token (compare-and-delete), and makes sure a late write of the
     * request cannot keep the lock afterwards: by leaving a short-lived marker that the acquire
     * checks, because the backend discards requests of a connection it closed, or — declaring
     * {@link #lateWritesPossible()} — by letting the engine repeat this call until the write's
     * lease time has passed.
     *
     * @param request        the request
     * @param outcomeUnknown true if an attempt of this request had an unknown outcome
     * @throws BackendUnavailableException if it could not tell (the engine retries it)
     */
    void abandon(LockRequest request, boolean outcomeUnknown);

    /**
     * Whether a write of an abandoned request may still land <em>after</em> {@link #abandon} with
     * {@code outcomeUnknown} confirmed its removal, and take the lock (a backend whose acquire cannot
     * check a marker without costing every acquire, such as Redlock's plain {@code SET NX}). If so,
     * the engine repeats that abandon by owner token every {@link #LATE_WRITE_REPEAT} (200 ms)
     * until the request's lease time (plus the operation timeout, and any {@link #serverExpiryBackstop})
     * has passed, so that a late write holds the lock that long at most, not a whole lease — or, on a
     * session store, not until the session ends. It does the same after the release (or the end) of a
     * lease whose request had an attempt with an unknown outcome: a copy of that attempt may land
     * after the release. False by default: the driver makes a late write take nothing, or its backend
     * discards it.
     *
     * @return true if confirmed removals after an unknown outcome must be repeated
     */
    default boolean lateWritesPossible() {
        return false;
    }

    /** How often the engine repeats a confirmed abandon for a driver whose {@link #lateWritesPossible()}: every 200 ms. */
    Backoff LATE_WRITE_REPEAT = Backoff.fixed(Duration.ofMillis(200));

    /**
     * Asks to be told when {@code name} may have become free (a release, a deletion). Called only
     * for backends that declare {@link io.distlock.Feature#WAIT_NOTIFICATION}. The listener must be
     * cheap and non-blocking; spurious calls are allowed. Missed ones are tolerated (the engine
     * still retries on a bounded back-off), unless {@link #reliableNotifications()}.
     *
     * <p>Registration may be asynchronous (Redis {@code SUBSCRIBE}): then the returned watch's
     * {@link Watch#active()} completes once the server confirmed it. The engine retries once right
     * after that (a release before the watch was active would go unheard), and waits for it no
     * longer than the caller's own wait allows. This method itself must not block on the server.
     *
     * @param name     the lock name
     * @param onChange called from the driver's thread on every possible change
     * @return a handle that stops the notifications
     */
    default Watch watch(String name, Runnable onChange) {
        return Watch.NONE;
    }

    /**
     * Refuses a name this backend cannot store as it is, before anything is sent: the engine calls
     * it when a lock, read-write lock or semaphore handle is made and before an operator's inspect
     * or revoke, after the rules every backend shares (not null or blank, bounded, no control
     * character). For example, a Redis Cluster refuses a name that would put a lock's keys on
     * different hash slots. The default accepts every name.
     *
     * @param name the name
     * @throws IllegalArgumentException saying why this backend cannot use the name
     */
    default void checkName(String name) {
    }

    /**
     * Asks to be told when what {@code request} waits for may have become possible: the engine's
     * call, for every kind of {@link Hold}. A reader waits for a writer to go, a writer for the last
     * reader, a permit for any permit to come back — a driver whose watch depends on that overrides
     * this; the default watches the name ({@link #watch(String, Runnable)}), which is right for a
     * lock and for a driver that notifies every change of a name's state. Same contract as that method.
     *
     * @param request  the waiting request (its name, its owner token and its {@link LockRequest#hold()})
     * @param onChange called from the driver's thread on every possible change
     * @return a handle that stops the notifications
     */
    default Watch watch(LockRequest request, Runnable onChange) {
        return watch(request.name(), onChange);
    }

    /**
     * Whether {@link #watch} notifications are never missed while the client is connected (every
     * deletion of what a waiter waits for is delivered, and the driver wakes its waiters when its
     * connection comes back): the engine then does not poll on top of them, and a waiter sleeps
     * until notified, until the holder's remaining lease (a busy attempt's hint) has passed, or
     * until its wait ends. False by default: the engine then polls at a bounded interval as well.
     *
     * @return true if notifications can be relied on
     */
    default boolean reliableNotifications() {
        return false;
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
     * For a driver whose {@link #serverExpiresLeases()} is false but whose server still ends every
     * hold by itself, some time after its lease time: a coarse server-side lease kept as a backstop
     * (Hazelcast's map lock asks the member for the lease time plus a second, because the member ends
     * leases only to the second, up to a second early or late). How long after the request's lease
     * time that is. The engine still ends each lease itself at the end of its validity; it counts a
     * removal moot once the lease time plus this (plus the operation timeout) has passed since the
     * last write, and repeats the removals of late writes ({@link #lateWritesPossible()}) until then.
     * Empty by default: a session-based store never ends a hold by itself while its session lives.
     *
     * @return how long after the lease time the server has ended a hold at the latest, or empty
     */
    default Optional<Duration> serverExpiryBackstop() {
        return Optional.empty();
    }

    /**
     * Called by the engine for a lease that ended without a release, for a driver whose
     * {@link #serverExpiresLeases()} is false: its validity passed, a renewal found it gone, or the
     * driver itself reported it lost. The driver removes the lock from the server (compare, then
     * delete, as {@link #release}). Called on an engine thread, never the caller's, and retried
     * like every cleanup until it returns normally. The default does nothing.
     *
     * @param grant a grant this driver returned, whose lease has ended
     * @throws BackendUnavailableException if it could not tell (the engine retries it)
     */
    default void leaseExpired(Grant grant) {
    }

    /**
     * Reads who holds {@code name}, in one round trip, without taking, extending or waiting for it.
     * Called only for a backend that declares {@link io.distlock.Feature#INSPECTION}; the engine
     * has validated the name. The default refuses.
     *
     * @param name the lock name
     * @return the holder, or empty if nobody holds it on the server
     * @throws BackendUnavailableException if no answer came
     * @throws UnsupportedOperationException by default
     */
    default Optional<LockInfo> inspect(String name) {
        throw new UnsupportedOperationException("this driver does not declare " + io.distlock.Feature.INSPECTION);
    }

    /**
     * Lists the locks held whose names start with {@code prefix}, at most {@code limit}, ordered by
     * name. Called only for a backend that declares {@link io.distlock.Feature#INSPECTION}; the
     * engine has validated both. Its cost must be bounded by the backend's own listing (a scan in
     * batches, a children listing, a range read), never a command that blocks the server. The
     * default refuses.
     *
     * @param prefix the names' prefix, possibly empty
     * @param limit  at most this many, positive
     * @return the holders, ordered by name
     * @throws BackendUnavailableException if no answer came
     * @throws UnsupportedOperationException by default
     */
    default List<LockInfo> holders(String prefix, int limit) {
        throw new UnsupportedOperationException("this driver does not declare " + io.distlock.Feature.INSPECTION);
    }

    /**
     * Takes {@code name} back from its holder, atomically on the server: ends the holder's lease,
     * moves the fence (every later grant's token is above the holder's), and leaves what the
     * holder's client needs to learn that it was revoked, with {@code reason} (a notification, a
     * marker its next extension finds: it must end with {@link DriverContext#leaseRevoked} or
     * {@link ExtendOutcome#revoked}, never silently). Idempotent in effect: a second call finds
     * nothing held. Called only for a backend that declares {@link io.distlock.Feature#REVOCATION};
     * the engine has validated both arguments. The default refuses.
     *
     * @param name   the lock name
     * @param reason the operator's reason
     * @return what was revoked, or empty if nobody held the lock (nothing changed)
     * @throws BackendUnavailableException if no answer came (the revoke may or may not have happened)
     * @throws io.distlock.AccessDeniedException if the principal may not revoke
     * @throws UnsupportedOperationException by default
     */
    default Optional<Revoked> revoke(String name, String reason) {
        throw new UnsupportedOperationException("this driver does not declare " + io.distlock.Feature.REVOCATION);
    }

    /**
     * Reads every hold of a read-write lock ({@link io.distlock.Feature#READ_WRITE}: its readers
     * and its writer) or of a semaphore ({@link io.distlock.Feature#SEMAPHORE}: its permits) on
     * {@code name}, in a bounded number of round trips, without taking, extending or waiting. Each
     * {@link LockInfo} has its {@link LockInfo.Builder#hold kind and hold id} (an id of the server's
     * own that tells the holds apart and that {@link #revokeHold} finds again: never the owner token)
     * and, for a permit, the count the server stores. Called only for a backend that declares
     * {@link io.distlock.Feature#INSPECTION} and the primitive's feature; the engine has validated the
     * name. The default refuses.
     *
     * @param name      the primitive's name
     * @param primitive {@link io.distlock.Feature#READ_WRITE} or {@link io.distlock.Feature#SEMAPHORE}
     * @return the holds, oldest grant first; empty if none is held on the server
     * @throws BackendUnavailableException if no answer came
     * @throws UnsupportedOperationException by default
     */
    default List<LockInfo> holds(String name, io.distlock.Feature primitive) {
        throw new UnsupportedOperationException("this driver does not inspect a " + primitive);
    }

    /**
     * Takes one hold of a read-write lock or a semaphore back from its holder, as {@link #revoke}
     * takes a lock: atomically on the server, it ends that hold only (the primitive's other holds
     * stay), every later grant's token is above the revoked one's, and the holder's client is left
     * what it needs to learn it was revoked, with {@code reason} ({@link DriverContext#leaseRevoked}
     * or {@link ExtendOutcome#revoked}, never silently). Idempotent in effect. Called only for a
     * backend that declares {@link io.distlock.Feature#REVOCATION} and the primitive's feature; the
     * engine has validated the arguments. The default refuses.
     *
     * @param name      the primitive's name
     * @param primitive {@link io.distlock.Feature#READ_WRITE} or {@link io.distlock.Feature#SEMAPHORE}
     * @param holdId    a {@link LockInfo#holdId()} that {@link #holds} reported
     * @param reason    the operator's reason
     * @return what was revoked, or empty if no such hold is held (nothing changed)
     * @throws BackendUnavailableException if no answer came (the revoke may or may not have happened)
     * @throws io.distlock.AccessDeniedException if the principal may not revoke
     * @throws UnsupportedOperationException by default
     */
    default Optional<Revoked> revokeHold(String name, io.distlock.Feature primitive, String holdId, String reason) {
        throw new UnsupportedOperationException("this driver does not revoke a " + primitive);
    }

    /**
     * Closes connections. The engine has made one last attempt at everything still to be removed
     * before calling this, bounded by the operation timeout; {@code LockClient.close()} promises to
     * return within the operation timeout + 1 s, so this must return within one second whatever the
     * server does (a silent or unreachable server included): a last courtesy to the server — ending a
     * session, revoking a lease — waits a fraction of that second at most, and is left to the
     * server's own expiry if it gets no answer. Cuts short calls in flight.
     */
    @Override
    void close();
}
