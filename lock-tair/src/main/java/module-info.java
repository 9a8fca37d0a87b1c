/**
 * The Tair backend ({@code tair://}): the single-Redis lock on Alibaba Cloud Tair, or on Redis with
 * the TairString module, with no Lua on its path: {@code SET NX PX} in a {@code MULTI} to take,
 * TairString's {@code CAS} to extend and {@code CAD} to release. Reuses the Redis family's per-node
 * primitive ({@code io.distlock.redis.support}, exported to the family only). Exports nothing;
 * provides the backend, and no other: {@code redis://} is not in it.
 */
@SuppressWarnings("requires-automatic")
module io.distlock.tair {
    requires io.distlock;
    requires io.distlock.redis.support;
    requires redis.clients.jedis;
    requires alibabacloud.tairjedis.sdk;

    provides io.distlock.spi.LockBackend with io.distlock.tair.TairLockBackend;
}
