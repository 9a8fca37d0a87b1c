/**
 * The single-Redis backend ({@code redis://}). Its per-node Redis primitive lives in the
 * non-exported {@code io.distlock.redis.internal}, to be shared with the other Redis-family
 * backends through qualified exports as they arrive (never copied).
 */
@SuppressWarnings("requires-automatic")
module io.distlock.redis {
    requires io.distlock;
    requires redis.clients.jedis;
    requires org.apache.commons.pool2;
    requires org.slf4j;

    provides io.distlock.spi.LockBackend with io.distlock.redis.RedisLockBackend;
}
