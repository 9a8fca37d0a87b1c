package io.distlock.redis;

import io.distlock.tck.fixtures.BackendPackagingCheck;
import io.distlock.tck.fixtures.RedisFamilyPackaging;

import static io.distlock.Feature.AUTO_RENEWAL;
import static io.distlock.Feature.FENCING_TOKENS;
import static io.distlock.Feature.INSPECTION;
import static io.distlock.Feature.LEASE_EXTENSION;
import static io.distlock.Feature.LOSS_NOTIFICATION;
import static io.distlock.Feature.READ_WRITE;
import static io.distlock.Feature.REVOCATION;
import static io.distlock.Feature.SEMAPHORE;
import static io.distlock.Feature.WAIT_NOTIFICATION;
import static io.distlock.Guarantee.EFFICIENCY;

/**
 * The packaging checks every backend runs (BackendPackagingCheck), as a Redis-family member with two
 * providers: {@code redis://} and, over TLS, {@code rediss://}. Users get nothing else: what the
 * family shares is lock-redis-support's, not this backend's. Its fencing token is best effort, and
 * declared, as are its read-write locks and semaphores.
 */
class PackagingTest extends BackendPackagingCheck {

    PackagingTest() {
        super(RedisFamilyPackaging.member("io.distlock.redis", RedisLockBackend.class, RedissLockBackend.class)
                .scheme("redis", EFFICIENCY, FENCING_TOKENS, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION, WAIT_NOTIFICATION,
                        INSPECTION, REVOCATION, READ_WRITE, SEMAPHORE)
                .scheme("rediss", EFFICIENCY, FENCING_TOKENS, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION, WAIT_NOTIFICATION,
                        INSPECTION, REVOCATION, READ_WRITE, SEMAPHORE));
    }
}
