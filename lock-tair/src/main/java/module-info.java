/**
 * The Tair backend ({@code tair://}): the single-Redis lock on Alibaba Cloud Tair, or on Redis with
 * the TairString module, with no Lua on its path: {@code SET NX PX} in a {@code MULTI} to take,
 * TairString's {@code CAS} to extend and {@code CAD} to release. Reuses the single-Redis backend's
 * per-node primitive ({@code io.distlock.redis.internal}, exported to this module only). Exports
 * nothing; provides the backend.
 */
@SuppressWarnings("requires-automatic")
module io.distlock.tair {
    requires io.distlock;
    requires io.distlock.redis;
    requires redis.clients.jedis;
    requires alibabacloud.tairjedis.sdk;

    provides io.distlock.spi.LockBackend with io.distlock.tair.TairLockBackend;
}
