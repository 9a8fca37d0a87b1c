/**
 * The Redis + {@code WAIT} backend ({@code redis-wait://}): the single-Redis lock on a primary with
 * replicas, every grant and extension confirmed by {@code WAIT} on the connection that wrote it,
 * through the Redis family's per-node primitive and single-Redis driver
 * ({@code io.distlock.redis.support}, exported to the family only). Exports nothing; provides the
 * backend, and no other: {@code redis://} is not in it.
 */
module io.distlock.rediswait {
    requires io.distlock;
    requires io.distlock.redis.support;

    provides io.distlock.spi.LockBackend with io.distlock.rediswait.RedisWaitBackend;
}
