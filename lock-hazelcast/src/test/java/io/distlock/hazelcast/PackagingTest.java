package io.distlock.hazelcast;

import io.distlock.tck.fixtures.BackendPackaging;
import io.distlock.tck.fixtures.BackendPackagingCheck;

import static io.distlock.Feature.AUTO_RENEWAL;
import static io.distlock.Feature.FENCING_TOKENS;
import static io.distlock.Feature.LEASE_EXTENSION;
import static io.distlock.Feature.LOSS_NOTIFICATION;
import static io.distlock.Feature.QUORUM;
import static io.distlock.Guarantee.CORRECTNESS;
import static io.distlock.Guarantee.EFFICIENCY;

/**
 * The packaging checks every backend runs (BackendPackagingCheck), with two providers: the CP lock
 * and the map lock. The module path is the Hazelcast jar alone beside lock-api: an automatic module
 * that resolves only because this module requires, on its behalf, the JDK modules it uses.
 */
class PackagingTest extends BackendPackagingCheck {

    PackagingTest() {
        super(BackendPackaging.backend("io.distlock.hazelcast", HazelcastLockBackend.class, HazelcastMapLockBackend.class)
                .scheme("hazelcast", CORRECTNESS, FENCING_TOKENS, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION, QUORUM)
                .scheme("hazelcast-map", EFFICIENCY, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION)
                .requires("com.hazelcast.core", "java.management", "java.naming", "java.net.http", "java.scripting", "java.sql",
                        "jdk.net", "jdk.unsupported")
                .driverJars("hazelcast")
                .mayDependOn("Hazelcast's client, its protocol messages and the CP types they name", "com.hazelcast.."));
    }
}
