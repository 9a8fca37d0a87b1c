/**
 * The Redlock backend ({@code redlock://}): a lease on a quorum of N independent Redis nodes,
 * through the single-Redis backend's per-node primitive ({@code io.distlock.redis.internal},
 * exported to this module only). Exports nothing; provides the backend.
 */
module io.distlock.redlock {
    requires io.distlock;
    requires io.distlock.redis;

    provides io.distlock.spi.LockBackend with io.distlock.redlock.RedlockBackend;
}
