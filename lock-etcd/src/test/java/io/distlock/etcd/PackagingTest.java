package io.distlock.etcd;

import io.distlock.tck.fixtures.BackendPackaging;
import io.distlock.tck.fixtures.BackendPackagingCheck;

import static io.distlock.Feature.AUTO_RENEWAL;
import static io.distlock.Feature.FENCING_TOKENS;
import static io.distlock.Feature.FIFO_WAITERS;
import static io.distlock.Feature.INSPECTION;
import static io.distlock.Feature.LEASE_EXTENSION;
import static io.distlock.Feature.LOSS_NOTIFICATION;
import static io.distlock.Feature.QUORUM;
import static io.distlock.Feature.READ_WRITE;
import static io.distlock.Feature.REVOCATION;
import static io.distlock.Feature.SEMAPHORE;
import static io.distlock.Feature.WAIT_NOTIFICATION;
import static io.distlock.Guarantee.CORRECTNESS;

/**
 * The packaging checks every backend runs (BackendPackagingCheck). The module path is what a
 * module-path user has: lock-api, this module and every jar of its runtime class path but the test
 * tools (jetcd, gRPC, Netty and the rest as automatic modules); it resolves only because this
 * module requires, on jetcd's behalf, the explicit modules jetcd, gRPC and Vert.x gRPC use.
 */
class PackagingTest extends BackendPackagingCheck {

    PackagingTest() {
        super(BackendPackaging.backend("io.distlock.etcd", EtcdLockBackend.class)
                .scheme("etcd", CORRECTNESS, FENCING_TOKENS, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION,
                        WAIT_NOTIFICATION, FIFO_WAITERS, QUORUM, INSPECTION, REVOCATION, READ_WRITE, SEMAPHORE)
                .requires("jetcd.core", "jetcd.api", "jetcd.common", "io.grpc", "io.grpc.stub", "io.netty.handler",
                        "com.google.common", "dev.failsafe.core", "io.vertx.core", "io.netty.codec.http2",
                        "io.netty.handler.proxy", "io.netty.transport.unix.common", "org.slf4j")
                .everyClassPathJarBut("junit", "opentest4j", "apiguardian", "assertj", "awaitility", "hamcrest",
                        "archunit", "lock-tck", "slf4j-simple", "surefire", "byte-buddy", "testcontainers", "docker",
                        "jna", "commons-compress", "duct-tape", "jackson-annotations")
                .mayDependOn("its own driver", "javax.net.ssl", "io.etcd.jetcd..", "io.grpc", "io.netty.handler.ssl"));
    }
}
