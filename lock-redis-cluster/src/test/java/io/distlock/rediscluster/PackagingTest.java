package io.distlock.rediscluster;

import io.distlock.tck.fixtures.BackendPackagingCheck;
import io.distlock.tck.fixtures.RedisFamilyPackaging;

import static io.distlock.Feature.AUTO_RENEWAL;
import static io.distlock.Feature.INSPECTION;
import static io.distlock.Feature.LEASE_EXTENSION;
import static io.distlock.Feature.LOSS_NOTIFICATION;
import static io.distlock.Feature.READ_WRITE;
import static io.distlock.Feature.REVOCATION;
import static io.distlock.Feature.SEMAPHORE;
import static io.distlock.Feature.WAIT_NOTIFICATION;
import static io.distlock.Guarantee.EFFICIENCY;

/**
 * The packaging checks every backend runs (BackendPackagingCheck), as a Redis-family member: every
 * Redis call — {@code CLUSTER SHARDS}, {@code INFO}, the scripts, {@code SSUBSCRIBE} — goes through
 * the family's RedisNode, never Jedis directly; this artifact alone brings {@code redis-cluster://}
 * and no other scheme.
 */
class PackagingTest extends BackendPackagingCheck {

    PackagingTest() {
        super(RedisFamilyPackaging.member("io.distlock.rediscluster", RedisClusterBackend.class)
                .scheme("redis-cluster", EFFICIENCY, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION, WAIT_NOTIFICATION,
                        INSPECTION, REVOCATION, READ_WRITE, SEMAPHORE)
                .loads("io.distlock.rediscluster.internal.ClusterKeyspace", "eval", "runAll"));
    }
}
