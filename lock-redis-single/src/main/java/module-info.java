/**
 * The single-Redis backend ({@code redis://}, and {@code rediss://} over TLS): its two providers,
 * on the Redis family's per-node primitive and driver ({@code io.distlock.redis.support}, exported
 * to this module by {@code io.distlock.redis.support}). Nothing is exported to users.
 */
module io.distlock.redis {
    requires io.distlock;
    requires io.distlock.redis.support;

    provides io.distlock.spi.LockBackend with io.distlock.redis.RedisLockBackend, io.distlock.redis.RedissLockBackend;
}
