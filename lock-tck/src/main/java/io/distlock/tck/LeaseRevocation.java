package io.distlock.tck;

import io.distlock.LockClient;

/**
 * A whitebox hook that makes the backend's server take a lease away from its holder on the
 * server's own initiative (rules 4.8, 4.13 and 7.1): ZooKeeper expires the holder's session, a Redis verification
 * deletes the lock key. Supply one through {@link LockVerification#leaseRevocation()}.
 */
@FunctionalInterface
public interface LeaseRevocation {

    /**
     * Revokes, on the server, the lease that {@code holder} holds on {@code lockName}, and returns
     * once the server has let go of it (another client may now be granted the lock). The holder's
     * client is not told by this hook: it must find out the way the backend lets it (a session
     * event, a failed renewal).
     *
     * @param holder   the client holding the lease
     * @param lockName the lock's name
     */
    void revoke(LockClient holder, String lockName);
}
