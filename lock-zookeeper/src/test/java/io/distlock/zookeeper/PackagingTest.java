package io.distlock.zookeeper;

import io.distlock.tck.fixtures.BackendPackaging;
import io.distlock.tck.fixtures.BackendPackagingCheck;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The packaging checks every backend runs (BackendPackagingCheck). The module path is a module-path
 * user's: lock-api, this module, Curator and ZooKeeper, and Netty for {@code tls=true} (named
 * modules, resolved only because this module requires them on ZooKeeper's behalf, as it requires
 * SLF4J, which Curator and ZooKeeper log through); without the jute jar, which is patched in with
 * {@code --patch-module} at run time. Its own: why the jute jar cannot sit beside ZooKeeper.
 */
class PackagingTest extends BackendPackagingCheck {

    PackagingTest() {
        super(BackendPackaging.backend("io.distlock.zookeeper", ZooKeeperLockBackend.class)
                .scheme("zookeeper", CORRECTNESS, FENCING_TOKENS, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION,
                        WAIT_NOTIFICATION, FIFO_WAITERS, QUORUM, INSPECTION, REVOCATION, READ_WRITE, SEMAPHORE)
                .requires("curator.framework", "curator.client", "zookeeper", "io.netty.handler",
                        "io.netty.transport.classes.epoll", "org.slf4j")
                .driverJars("curator-framework", "curator-client", "zookeeper", "slf4j-api", "guava", "failureaccess",
                        "audience-annotations", "commons-io")
                // Netty, for tls=true: the TLS handler and what it needs, and the epoll classes ZooKeeper loads.
                .driverJars("netty-handler", "netty-common", "netty-buffer", "netty-transport", "netty-resolver",
                        "netty-codec-base", "netty-transport-native-unix-common", "netty-transport-classes-epoll")
                .mayDependOn("its own driver", "javax.net.ssl", "org.apache.curator..", "org.apache.zookeeper",
                        "org.apache.zookeeper.data", "org.apache.zookeeper.client", "org.apache.zookeeper.server.auth"));
    }

    @Test
    void theJuteJarBesideZooKeeperSplitsAPackage() {
        List<Path> modulePath = new ArrayList<>(modulePath());
        modulePath.addAll(classPathJars("zookeeper-jute"));
        assertThatThrownBy(() -> resolve(modulePath))
                .as("why the README says --patch-module zookeeper=zookeeper-jute.jar")
                .hasMessageContaining("org.apache.zookeeper");
    }
}
