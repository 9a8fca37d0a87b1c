package io.distlock.tck;

import io.distlock.LockClient;

import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * A whitebox hook that ends a client's <em>session</em> on the server (rule 4.19), as an expiry, an
 * operator or another connection closing it does: a ZooKeeper session closed with its id and
 * password from another connection, an etcd session lease revoked. Everything bound to the session
 * goes with it — the lock it holds, and the one it is being granted right now. Supply it through
 * {@link LockVerification#sessionEnd()}; a backend whose clients hold no session (every lock a key
 * with a TTL of its own) supplies {@link #impossible(String)}.
 */
public interface SessionEnd {

    /**
     * Ends, on the server, the session of {@code client} — the one that holds {@code lockName} or whose
     * request for it the server has just granted (its answer may still be on its way) — and returns
     * once the server has let go of everything bound to that session. The client is not told by this
     * hook: it must find out the way the backend lets it (its connection closed, a keep-alive
     * refused).
     *
     * <p>Rule 4.19 calls it once a reply to the client is held back on its link, and that reply can be
     * another call's (a keep-alive, a heartbeat) while the request has not reached the server yet: a
     * hook waits for the grant to be on the server (within the environment's default timeout) before it
     * ends the session, and fails only if none comes.
     *
     * @param client   the client whose session ends
     * @param lockName the lock its session holds or was just granted
     */
    void endSession(LockClient client, String lockName);

    /**
     * @return why no session of this backend can end under a grant, if none can (see
     *         {@link #impossible(String)}); empty by default
     */
    default Optional<String> impossibleBecause() {
        return Optional.empty();
    }

    /**
     * The hook from what ends a session.
     *
     * @param end ends the session of the client that holds or was just granted the named lock
     * @return the hook
     * @throws NullPointerException if {@code end} is null
     */
    static SessionEnd of(BiConsumer<LockClient, String> end) {
        Objects.requireNonNull(end, "end");
        return end::accept;
    }

    /**
     * The hook of a backend whose clients hold no session on the server (a Redis lock is a key with
     * a TTL of its own: a lease is bound to nothing that can end under it, and a deleted key is rule
     * 4.8's revocation): rule 4.19 does not apply, and its row and the verdict say why.
     *
     * @param reason why, in the terms of the backend
     * @return a hook that ends nothing
     */
    static SessionEnd impossible(String reason) {
        Objects.requireNonNull(reason, "reason");
        return new SessionEnd() {
            @Override
            public void endSession(LockClient client, String lockName) {
                throw new UnsupportedOperationException(reason);
            }

            @Override
            public Optional<String> impossibleBecause() {
                return Optional.of(reason);
            }
        };
    }
}
