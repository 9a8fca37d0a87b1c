package io.distlock.shedlock;

import io.distlock.tck.fixtures.EtcdCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider suite on a single etcd member ({@code etcd://}). */
class EtcdShedLockTest extends ShedLockSuite {

    private static EtcdCluster cluster;
    private static Connections connections;

    @BeforeAll
    static void start() {
        cluster = EtcdCluster.single();
        connections = Connections.to(cluster.uri(""));
    }

    @AfterAll
    static void stop() {
        Servers.closeAll(connections, cluster);
    }

    @Override
    protected Connections connections() {
        return connections;
    }
}
