package io.distlock.bench;

import io.distlock.tck.fixtures.FreePorts;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * One in-process ZooKeeper server on free loopback ports (curator-test), shared by distlock's
 * ZooKeeper row and its peer, Curator's {@code InterProcessMutex} (acquire + release, uncontended,
 * one client as Curator users start it). The server runs in the bench's JVM, so these rows'
 * client CPU includes the server's.
 */
final class ZooKeeperPeers implements AutoCloseable {

    static final String DISTLOCK = "distlock ZooKeeper tryAcquire+release, fence read";
    static final String CURATOR = "Curator 5 InterProcessMutex acquire+release";

    static {
        System.setProperty("zookeeper.admin.enableServer", "false");
        System.setProperty("zookeeper.jmx.log4j.disable", "true");
    }

    private final TestingServer server;

    private ZooKeeperPeers(TestingServer server) {
        this.server = server;
    }

    static ZooKeeperPeers start() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, FreePorts.find(), FreePorts.find(), FreePorts.find(), true, 1,
                -1, -1, Map.of(), FreePorts.LOOPBACK);
        return new ZooKeeperPeers(new TestingServer(spec, true));
    }

    String uri() {
        return "zookeeper://" + FreePorts.LOOPBACK + ":" + server.getPort();
    }

    LoopScenario curatorMutex() throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.newClient(FreePorts.LOOPBACK + ":" + server.getPort(),
                new RetryOneTime(100));
        curator.start();
        if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
            curator.close();
            throw new IllegalStateException("Curator did not connect to " + server.getConnectString() + " in 30 s");
        }
        InterProcessMutex mutex = new InterProcessMutex(curator, "/curator-bench/uncontended");
        return new LoopScenario(CURATOR, false) {
            @Override
            void op() throws Exception {
                if (!mutex.acquire(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Curator mutex was busy");
                }
                mutex.release();
            }

            @Override
            public void close() {
                curator.close();
            }
        };
    }

    @Override
    public void close() throws java.io.IOException {
        server.close();
    }

    @Override
    public String toString() {
        return "ZooKeeper at " + server.getConnectString();
    }
}
