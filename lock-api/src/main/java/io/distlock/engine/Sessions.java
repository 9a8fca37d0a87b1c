package io.distlock.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sessions of one client on a session-based store, and the leases bound to each
 * ({@link io.distlock.spi.Grant#session()}). A grant is valid only as long as the session that
 * granted it: its validity is bounded by what <em>that</em> session's confirmations vouch for, never
 * by a newer session's, and it is lost when that session ends.
 *
 * <p>Why one lock for binding and ending: a driver may decide a grant on session S and hand it to
 * the engine only after S has ended — the thread was descheduled between the server's answer and
 * the record while S expired, was closed elsewhere or was revoked. If the loss sweep and the record
 * could interleave, such a grant would be recorded after the sweep and never marked lost. Here both
 * happen under this object's monitor: either the lease was bound first (and the sweep finds it), or
 * the session is already marked ended (and the grant is refused, so that the engine gives it back).
 */
final class Sessions {

    /**
     * How many ended sessions are remembered. A grant bound to a session that is neither live nor
     * remembered is refused too (as unconfirmed), so forgetting an old one never lets its grant in.
     */
    private static final int ENDED_REMEMBERED = 64;

    /** One session: how long its confirmations vouch for it, whether it ended, and its leases. */
    static final class Session {
        private final Object id;
        /** No lease bound to it is valid past this (monotonic clock); meaningful once {@link #confirmed}. */
        private volatile long validUntil;
        private volatile boolean confirmed;
        private volatile boolean ended;
        /** Guarded by the owning {@link Sessions}. */
        private final Set<EngineLease> leases = Collections.newSetFromMap(new IdentityHashMap<>());

        private Session(Object id) {
            this.id = id;
        }

        /**
         * @param now the monotonic clock's reading
         * @return how much longer this session vouches for its leases (zero or less once it ended)
         */
        long vouchesFor(long now) {
            return ended ? 0 : validUntil - now;
        }

        @Override
        public String toString() {
            return "session " + id;
        }
    }

    private final Map<Object, Session> sessions = new HashMap<>();
    private final Deque<Object> endedOrder = new ArrayDeque<>();

    /** The session answered a request sent when {@code until} was computed from: it vouches until then, unless it ended. */
    synchronized void confirmed(Object id, long until) {
        Session session = sessions.computeIfAbsent(id, Session::new);
        if (session.ended) {
            return;
        }
        if (!session.confirmed || until - session.validUntil > 0) {
            session.validUntil = until;
            session.confirmed = true;
        }
    }

    /**
     * The session ended: from now on no grant is bound to it, and every lease bound to it is
     * returned, for the caller to mark lost (outside this lock: listeners run there).
     *
     * @return the leases that were bound to it; empty if it had ended already
     */
    List<EngineLease> ended(Object id) {
        synchronized (this) {
            Session session = sessions.computeIfAbsent(id, Session::new);
            if (session.ended) {
                return List.of();
            }
            session.ended = true;
            List<EngineLease> bound = new ArrayList<>(session.leases);
            session.leases.clear();
            endedOrder.addLast(id);
            while (endedOrder.size() > ENDED_REMEMBERED) {
                sessions.remove(endedOrder.removeFirst());
            }
            return bound;
        }
    }

    /**
     * Binds {@code lease} to session {@code id}, unless that session cannot vouch for it.
     *
     * @return false if the session ended or was never confirmed: the grant must be given back
     */
    synchronized boolean bind(EngineLease lease, Object id) {
        Session session = sessions.get(id);
        if (session == null || session.ended || !session.confirmed) {
            return false;
        }
        session.leases.add(lease);
        lease.boundTo(session);
        return true;
    }

    /** The lease is no longer held: its session no longer needs to know it. */
    synchronized void unbind(EngineLease lease, Session session) {
        session.leases.remove(lease);
    }

    /**
     * Why session {@code id} cannot vouch for a lease now, if it cannot.
     *
     * @param now the monotonic clock's reading
     * @return a reason for a message, or null if it vouches for a lease now
     */
    synchronized String refusal(Object id, long now) {
        Session session = sessions.get(id);
        if (session != null && session.ended) {
            return "the session that granted it (" + id + ") ended before the grant was recorded";
        }
        if (session == null || !session.confirmed) {
            return "the grant is bound to a session (" + id + ") this client has no live record of: never confirmed, or ended long ago";
        }
        if (session.validUntil - now <= 0) {
            return "the session that granted it (" + id + ") was not confirmed recently enough to vouch for a lease";
        }
        return null;
    }
}
