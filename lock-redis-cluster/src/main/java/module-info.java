/**
 * The Redis Cluster backend ({@code redis-cluster://}): the Redis family's lock driver on a
 * sharded cluster, each call routed to the primary of its lock's hash slot, wake-ups on sharded
 * pub/sub. Built on the family's shared library ({@code io.distlock.redis.support}, exported to
 * the family only). Exports nothing; provides the backend.
 */
module io.distlock.rediscluster {
    requires io.distlock;
    requires io.distlock.redis.support;

    provides io.distlock.spi.LockBackend with io.distlock.rediscluster.RedisClusterBackend;
}
