package io.distlock.rediswait;

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
 * Redis call, WAIT, ROLE and SENTINEL included, goes through the family's RedisNode, never Jedis
 * directly; this artifact alone brings {@code redis-wait://} and no other scheme.
 */
class PackagingTest extends BackendPackagingCheck {

    PackagingTest() {
        super(RedisFamilyPackaging.member("io.distlock.rediswait", RedisWaitBackend.class)
                .scheme("redis-wait", EFFICIENCY, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION, WAIT_NOTIFICATION, INSPECTION,
                        REVOCATION, READ_WRITE, SEMAPHORE)
                .loads("io.distlock.rediswait.internal.RedisWaitDrivers", "connect"));
    }
}
