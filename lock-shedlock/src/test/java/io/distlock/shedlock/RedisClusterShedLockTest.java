package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisCluster;

/**
 * ShedLock's provider suite on a Redis Cluster of three primaries, through
 * {@code redis-cluster://}: each lock name's keys on the primary of its slot.
 */
class RedisClusterShedLockTest extends ShedLockSuite {

    @Override
    protected Started start() {
        RedisCluster cluster = RedisCluster.start(3, 0);
        return new Started("redis-cluster://" + String.join(",", cluster.seedEndpoints()), cluster);
    }
}
