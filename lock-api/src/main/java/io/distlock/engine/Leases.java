package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockEvent;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Validity;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The leases one client holds, from the grant that makes one to whatever must be removed from the
 * server when it ends: admission (validity counted from the request's start, bound to the session
 * that granted it), loss, release, and the withdrawal of requests that produced no lease. What must
 * be removed goes to the client's one {@link Cleanup}; what must be watched (renewal, expiry) to its
 * {@link LeaseKeeper}; what session vouches for a lease is kept in {@link Sessions}.
 */
final class Leases {

    private final ClientState state;
    private final Events events;
    private final DriverCalls calls;
    private final LeaseKeeper keeper;
    private final Cleanup cleanup;
    /** On a session store: the sessions that vouch for this client's leases, each for its own. */
    private final Sessions sessions = new Sessions();
    private final ConcurrentHashMap<String, EngineLease> held = new ConcurrentHashMap<>();
    /**
     * Revocations the driver reported for an owner token this client holds no lease of — yet: the
     * notification can overtake the answer to the acquire that the revoke ended (the server granted,
     * the operator revoked, the client records the grant only afterwards). A grant of such a token is
     * given back when it arrives, never returned as a valid lease. Bounded: the oldest is dropped past
     * {@value #EARLY_REVOCATIONS} (a token of another client's lease, which a driver may report too,
     * is never asked for). Guarded by itself.
     */
    private final Map<String, String> earlyRevocations = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > EARLY_REVOCATIONS;
        }
    };
    private static final int EARLY_REVOCATIONS = 1024;
    /** False for a session-based store: the engine then ends leases on the server at the end of their validity. */
    private volatile boolean serverExpiresLeases = true;
    /** For a driver whose server does not expire leases: how long after the lease time it still ends a hold (-1: never). */
    private volatile long backstopNanos = -1;
    private volatile boolean lateWritesPossible;

    Leases(ClientState state, Events events, DriverCalls calls) {
        this.state = state;
        this.events = events;
        this.calls = calls;
        this.keeper = new LeaseKeeper(state, events, calls);
        this.cleanup = new Cleanup(state, calls);
    }

    /** The driver is connected: how its server ends leases, and whether a late write can still land, is known. */
    void connected(LockDriver driver) {
        this.serverExpiresLeases = driver.serverExpiresLeases();
        this.backstopNanos = serverExpiresLeases ? 0 : driver.serverExpiryBackstop().map(Duration::toNanos).orElse(-1L);
        this.lateWritesPossible = driver.lateWritesPossible();
    }

    /**
     * Turns a grant into a lease whose validity is counted from {@code requestStart}: the time the
     * acquire took is already spent, and the drift allowance is taken off. A grant that cannot be
     * used — its session ended or was never confirmed, or no validity is left — is released and null
     * returned.
     *
     * @param outcomeUnknown an earlier attempt of the grant's request had an unknown outcome: a copy of
     *                       it may still land after the lease ends (see {@link #release})
     */
    EngineLease admit(Grant grant, long requestStart, boolean outcomeUnknown) {
        Duration leaseTime = grant.request().leaseTime();
        long validUntil = Validity.deadline(state.options(), requestStart, leaseTime);
        EngineLease lease = new EngineLease(this, state, events, calls, grant, requestStart, validUntil,
                outcomeUnknown && lateWritesPossible);
        held.put(grant.ownerToken(), lease);
        if (revokedReason(grant) != null) {
            // Checked after the lease is in the table: a report from now on finds the lease and ends it.
            held.remove(grant.ownerToken(), lease);
            cleanup.now(new Cleanup.Release(grant, mootAt(requestStart, leaseTime)));
            return null;
        }
        if (grant.session() != null) {
            // Recorded under the same lock as the sweep of an ended session: a grant whose session
            // ended before this point is refused here, one whose session ends after it is swept.
            if (!sessions.bind(lease, grant.session())) {
                held.remove(grant.ownerToken(), lease);
                cleanup.now(new Cleanup.Release(grant, mootAt(requestStart, leaseTime)));
                return null;
            }
        }
        if (lease.validityLeft() <= 0) {
            forget(lease);
            cleanup.now(new Cleanup.Release(grant, mootAt(requestStart, leaseTime)));
            return null;
        }
        if (state.closed()) {
            if (lease.releaseLocally()) {
                cleanup.now(new Cleanup.Release(grant, mootAt(requestStart, leaseTime)));
            }
            throw new IllegalStateException("the distlock client for " + state.endpoint() + " was closed during the acquire");
        }
        if (!serverExpiresLeases) {
            // Nothing on the server ends this lease (a session-based store): the keeper does, at
            // the end of its validity, so that leaseTime bounds the hold on every backend.
            lease.watchExpiry();
            keeper.schedule(lease);
        }
        return lease;
    }

    /**
     * How much of a lease's own validity the client can still vouch for: none while the connection
     * is suspended, and never past what the session that granted it can vouch for.
     *
     * @param session the lease's session, or null for a lease bound to none
     */
    long validityLeft(long leaseValidUntil, Sessions.Session session) {
        if (state.suspended()) {
            return 0;
        }
        long now = state.nanoTime();
        long left = leaseValidUntil - now;
        return session == null ? left : Math.min(left, session.vouchesFor(now));
    }

    /**
     * Why a grant that came back could not be used (it was given back): this client cannot vouch for
     * it — its connection is suspended, or the session that granted it ended, is unknown, or was not
     * confirmed recently enough — or an operator revoked it before it arrived, or else it arrived with
     * no validity left.
     *
     * @param roundTripNanos how long the attempt took
     * @return the exception to report: the outcome counts as unknown, never as contention
     */
    BackendUnavailableException unusable(Grant grant, long roundTripNanos) {
        String endpoint = state.endpoint();
        if (state.suspended()) {
            return new BackendUnavailableException(endpoint, "the connection to " + endpoint + " is suspended: the"
                    + " server granted the lock, but this client cannot vouch for a lease until it is restored (the"
                    + " grant was given back)", null);
        }
        if (grant.session() != null) {
            String refusal = sessions.refusal(grant.session(), state.nanoTime());
            if (refusal != null) {
                return new BackendUnavailableException(endpoint, endpoint + " granted '" + grant.name() + "', but "
                        + refusal + " (the grant was given back)", null);
            }
        }
        Duration leaseTime = grant.request().leaseTime();
        String revoked = revokedReason(grant);
        if (revoked != null) {
            return new BackendUnavailableException(endpoint, endpoint + " granted '" + grant.name() + "', but an operator"
                    + " revoked the grant before it reached this client (" + revoked + "); it was given back", null);
        }
        return new BackendUnavailableException(endpoint, "the grant of '" + grant.name() + "' from " + endpoint + " arrived after "
                + TimeUnit.NANOSECONDS.toMillis(roundTripNanos) + " ms, with no validity left of its lease of "
                + leaseTime.toMillis() + " ms (less the clock-drift allowance of "
                + state.options().clockDrift(leaseTime).toMillis() + " ms): the lock was free, but the lease could not be used"
                + " and was given back; a slow server or network, or a lease too short for it", null);
    }

    /**
     * Ends a request that produced no lease. If its last attempt got no answer, the removal goes to
     * the cleanup queue at once (the backend is likely away, and the caller must not wait out
     * another timeout for it); otherwise it is tried on the caller's thread first, so that an
     * acquire that ends (a timeout, an interrupt) has withdrawn its request when it returns.
     *
     * @param outcomeUnknown  some attempt of the request had an unknown outcome: remove by owner token
     * @param lastAttemptAway the last attempt got no answer
     */
    void abandon(LockRequest request, boolean outcomeUnknown, long lastSent, boolean lastAttemptAway) {
        Cleanup.Task task = new Cleanup.Abandon(request, outcomeUnknown, mootAt(lastSent, request.leaseTime()),
                lateWritesPossible, lateWritesEnd(lastSent, request.leaseTime()));
        if (lastAttemptAway || state.closed()) {
            cleanup.soon(task);
        } else {
            cleanup.now(task);
        }
    }

    /**
     * The lease was given back by its holder: remove it from the server now, or as soon as the server
     * is back. If an attempt of its request had an unknown outcome on a backend where late writes can
     * land, a copy of that attempt may still arrive after the release and take the lock for nobody:
     * the removal by owner token is repeated after it, as for an abandoned request, until moot.
     */
    void release(EngineLease lease) {
        cleanup.now(new Cleanup.Release(lease.grant(), mootAt(lease)));
        sweepLateCopies(lease);
    }

    private void sweepLateCopies(EngineLease lease) {
        if (lease.lateCopiesPossible()) {
            cleanup.soon(new Cleanup.Abandon(lease.grant().request(), true, mootAt(lease), true,
                    lateWritesEnd(lease.writesLiveUntil() - lease.grant().request().leaseTime().toNanos(),
                            lease.grant().request().leaseTime())));
        }
    }

    /**
     * A lease ended without a release (expired, revoked, lost with its session): whatever may still
     * hold the lock on the server for it goes, off the caller's and the keeper's thread.
     */
    void leaseEnded(EngineLease lease) {
        cleanup.soon(serverExpiresLeases ? new Cleanup.Release(lease.grant(), mootAt(lease)) : new Cleanup.LeaseEnd(lease.grant()));
        sweepLateCopies(lease);
    }

    /** The lease is no longer held (released, lost): it leaves the table, its session and the keeper. */
    void forget(EngineLease lease) {
        held.remove(lease.grant().ownerToken(), lease);
        Sessions.Session session = lease.session();
        if (session != null) {
            sessions.unbind(lease, session);
        }
        keeper.forget(lease);
    }

    /** Hands the lease to the keeper, for renewal and for loss detection. */
    void watch(EngineLease lease) {
        keeper.schedule(lease);
    }

    /** The driver learnt that a lease was lost (a watch saw its lock go). */
    void lost(Grant grant, Lease.LossReason reason) {
        Objects.requireNonNull(reason, "reason");
        EngineLease lease = held.get(grant.ownerToken());
        if (lease != null && lease.grant() == grant) {
            lease.markLost(reason);
        }
    }

    /**
     * An operator revoked the lease of this owner token: a lease of this client's ends, REVOKED; a
     * token it holds no lease of is remembered, in case its grant is still on its way.
     */
    void revoked(String ownerToken, String reason) {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(ownerToken, "ownerToken");
        EngineLease lease = held.get(ownerToken);
        if (lease == null) {
            synchronized (earlyRevocations) {
                earlyRevocations.put(ownerToken, reason);
            }
            lease = held.get(ownerToken); // admitted meanwhile: admit may have looked before the put
        }
        if (lease != null) {
            lease.markRevoked(reason);
        }
    }

    /** @return the reason of a revocation reported before this grant was admitted (it is given back), or null */
    private String revokedReason(Grant grant) {
        synchronized (earlyRevocations) {
            return earlyRevocations.get(grant.ownerToken());
        }
    }

    void sessionConfirmed(Object session, long sentAtNanos, Duration sessionTimeout) {
        Objects.requireNonNull(session, "session");
        sessions.confirmed(session, Validity.deadline(state.options(), sentAtNanos, sessionTimeout));
    }

    /** Every lease the session granted is lost, and a grant of it recorded later is refused. */
    void sessionEnded(Object session) {
        Objects.requireNonNull(session, "session");
        for (EngineLease lease : sessions.ended(session)) {
            lease.markLost(Lease.LossReason.BACKEND_LOST);
        }
    }

    /** The connection is back: every pending removal is tried at once. */
    void retryCleanupNow() {
        cleanup.retryNow();
    }

    /** @return how many removals wait for the server (for tests and diagnostics) */
    int pendingCleanups() {
        return cleanup.pending();
    }

    /**
     * The client closes: every lease still held is released locally (its listener told) and, with
     * every removal still pending, sent in one batch per node, bounded by one operation timeout.
     */
    void releaseAllOnClose() {
        List<Grant> grants = new ArrayList<>();
        for (EngineLease lease : new ArrayList<>(held.values())) {
            if (lease.releaseLocally()) {
                grants.add(lease.grant());
                events.emit(LockEvent.Type.RELEASED, lease.lockName(), lease.heldNanos(), null, null);
            }
        }
        cleanup.closeBatch(grants, state.options().operationTimeout().toNanos());
    }

    /**
     * When a removal stops mattering: once the latest write's lease time (and a write in flight) has
     * passed, on a server that ends holds by itself (plus its backstop's margin, if it ends them only
     * that much later); never on one that keeps a hold while its session lives.
     */
    private long mootAt(long lastSent, Duration leaseTime) {
        return backstopNanos < 0 ? Cleanup.never()
                : lastSent + leaseTime.toNanos() + backstopNanos + state.options().operationTimeout().toNanos();
    }

    /**
     * Until when a late write of a request may still land and take the lock, as the removals of late
     * writes count it: its lease time after the last write was sent (plus the backstop's margin of a
     * server that ends holds that much later), and a write in flight — on every backend, a session
     * store's included (a late write lands about as late there; only its hold, once landed, lasts longer).
     */
    private long lateWritesEnd(long lastSent, Duration leaseTime) {
        return lastSent + leaseTime.toNanos() + Math.max(0, backstopNanos) + state.options().operationTimeout().toNanos();
    }

    private long mootAt(EngineLease lease) {
        return backstopNanos < 0 ? Cleanup.never()
                : lease.writesLiveUntil() + backstopNanos + state.options().operationTimeout().toNanos();
    }
}
