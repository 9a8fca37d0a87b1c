/**
 * The Redis + {@code WAIT} backend ({@code redis-wait://}): the single-Redis lock on a primary with
 * replicas, every grant and extension confirmed by {@code WAIT} on the connection that wrote it,
 * through the single-Redis backend's per-node primitive ({@code io.distlock.redis.internal},
 * exported to this module only). Exports nothing; provides the backend.
 */
module io.distlock.rediswait {
    requires io.distlock;
    requires io.distlock.redis;

    provides io.distlock.spi.LockBackend with io.distlock.rediswait.RedisWaitBackend;
}
