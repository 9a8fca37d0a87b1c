package io.distlock.rediswait.internal;

import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.spi.Watch;

/**
 * Where the primary is now: a fixed server ({@link FixedPrimary}), or the one the Sentinels report,
 * followed across failovers ({@link SentinelPrimary}). Thread-safe.
 */
interface Primary extends AutoCloseable {

    /**
     * One primary server, as this client talks to it.
     *
     * @param node  its connection pool and scripts
     * @param locks the single-Redis driver on it, for what needs no {@code WAIT}: release and
     *              withdrawal (sharing the client's record of writes that may still land)
     * @param check what it answered when it was chosen (its role and connected replicas)
     */
    record Target(RedisNode node, RedisLockDriver locks, PrimaryCheck check) {
        @Override
        public String toString() {
            return node.endpoint().toString();
        }
    }

    /**
     * @return the primary to send to now
     * @throws IllegalStateException if closed
     */
    Target current();

    /**
     * Reports that a call to {@code target} got no definite answer (a timeout, a refused or lost
     * connection, a node that answered {@code READONLY}): it may have failed or been demoted. A
     * primary found through Sentinel asks them again in the background; a fixed one does nothing.
     *
     * @param target the primary the call went to
     */
    void suspect(Target target);

    /**
     * @param target a primary returned by {@link #current()}
     * @return true if this client no longer uses it (it followed a failover away from it): a call
     *         that found it closed was cut short by the move, not by the client closing
     */
    default boolean retired(Target target) {
        try {
            return current() != target;
        } catch (IllegalStateException closed) {
            return false;
        }
    }

    /**
     * Release notifications published on {@code channel} on the primary (a lock's, a read-write
     * lock's or a semaphore's), moved to the new primary after a failover (and called once then, as
     * a release during the move may have been missed).
     *
     * @param channel  the channel
     * @param onChange cheap, non-blocking listener
     * @return the handle that stops them
     */
    Watch watch(String channel, Runnable onChange);

    /** Closes every connection: the primary's, and any to Sentinels. Idempotent. */
    @Override
    void close();
}
