/**
 * The Redlock backend ({@code redlock://}): a lease on a quorum of N independent Redis nodes,
 * through the Redis family's per-node primitive ({@code io.distlock.redis.support}, exported to the
 * family only). Exports nothing; provides the backend, and no other: {@code redis://} is not in it.
 */
module io.distlock.redlock {
    requires io.distlock;
    requires io.distlock.redis.support;

    provides io.distlock.spi.LockBackend with io.distlock.redlock.RedlockBackend;
}
