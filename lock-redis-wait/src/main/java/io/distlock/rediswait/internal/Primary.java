package io.distlock.rediswait.internal;

import io.distlock.redis.support.RedisKeyspace;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.redis.support.WaitConfirmedDriver;

/**
 * Where the primary is now: a fixed server ({@link FixedPrimary}), or the one the Sentinels report,
 * followed across failovers ({@link SentinelPrimary}). Thread-safe.
 */
interface Primary extends WaitConfirmedDriver.Primaries {

    /**
     * One primary server, as this client talks to it.
     *
     * @param node  its connection pool and scripts
     * @param locks the single-Redis driver on it, for what needs no {@code WAIT}: release and
     *              withdrawal (sharing the client's record of writes that may still land)
     * @param check what it answered when it was chosen (its role and connected replicas)
     */
    record Target(RedisNode node, RedisLockDriver locks, PrimaryCheck check) implements WaitConfirmedDriver.Target {
        @Override
        public RedisKeyspace keyspace() {
            return node;
        }

        @Override
        public String toString() {
            return node.endpoint().toString();
        }
    }

    /**
     * @return the primary to send to now
     * @throws IllegalStateException if closed
     */
    @Override
    Target current();
}
