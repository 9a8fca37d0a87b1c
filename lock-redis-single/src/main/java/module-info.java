/**
 * The single-Redis backend ({@code redis://}, and {@code rediss://} over TLS). Its per-node Redis primitive lives in
 * {@code io.distlock.redis.internal}, shared with the other Redis-family backends through
 * qualified exports (never copied); nothing is exported to users.
 */
// "module": a qualified export names a module that is not on this module's own build path.
@SuppressWarnings({"requires-automatic", "module"})
module io.distlock.redis {
    requires io.distlock;
    requires redis.clients.jedis;
    requires org.apache.commons.pool2;
    requires org.slf4j;

    exports io.distlock.redis.internal to io.distlock.redlock, io.distlock.rediswait, io.distlock.tair;

    provides io.distlock.spi.LockBackend with io.distlock.redis.RedisLockBackend, io.distlock.redis.RedissLockBackend;
}
