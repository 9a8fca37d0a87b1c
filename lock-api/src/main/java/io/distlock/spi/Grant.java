package io.distlock.spi;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A driver's record of a granted lock.
 *
 * <p><b>Bound to a session.</b> On a session-based store (a ZooKeeper ephemeral node, an etcd key
 * bound to the client's session lease), what holds the lock on the server lives exactly as long as
 * one session: the grant names it ({@code session}), and the engine keeps the lease's validity
 * within what <em>that</em> session can vouch for ({@link DriverContext#sessionConfirmed}) and ends
 * the lease when that session ends ({@link DriverContext#sessionEnded}) — including a grant the
 * driver returns after its session ended, which the engine gives back instead of returning it.
 * A store that expires each lock by itself (a key with a TTL) binds no session: {@code null}.
 *
 * @param request      the request that was granted
 * @param fencingToken the fencing token, present iff the backend declares
 *                     {@link io.distlock.Feature#FENCING_TOKENS}
 * @param handle       driver-private state (for example a znode path), or null
 * @param session      the session whose life the grant's hold on the server is bound to (compared
 *                     with {@link Object#equals}: a ZooKeeper session id, an etcd lease id), or null
 */
public record Grant(LockRequest request, OptionalLong fencingToken, Object handle, Object session) {
    /**
     * @param request      the request that was granted
     * @param fencingToken the fencing token, or empty
     * @param handle       driver-private state, or null
     * @param session      the session the grant is bound to, or null
     * @throws NullPointerException if {@code request} or {@code fencingToken} is null
     */
    public Grant {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(fencingToken, "fencingToken");
    }

    /**
     * A grant bound to no session: the server ends the lock by itself at the end of its lease time.
     *
     * @param request      the request that was granted
     * @param fencingToken the fencing token, or empty
     * @param handle       driver-private state, or null
     * @throws NullPointerException if {@code request} or {@code fencingToken} is null
     */
    public Grant(LockRequest request, OptionalLong fencingToken, Object handle) {
        this(request, fencingToken, handle, null);
    }

    /** @return the lock name */
    public String name() {
        return request.name();
    }

    /** @return the owner token that identifies this grant on the server */
    public String ownerToken() {
        return request.ownerToken();
    }
}
