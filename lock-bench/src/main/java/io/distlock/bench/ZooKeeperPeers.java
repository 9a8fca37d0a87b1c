package io.distlock.bench;

import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.ZooKeeperProcess;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * One ZooKeeper server on a free loopback port shared by distlock's ZooKeeper row and its peer,
 * Curator's {@code InterProcessMutex} (acquire + release, uncontended, one client as Curator users
 * start it): either in the bench's own JVM (curator-test; these rows' client CPU then includes the
 * server's) or in a JVM of its own ({@link ZooKeeperProcess}), as users run it.
 */
final class ZooKeeperPeers implements AutoCloseable {

    static final String DISTLOCK = "distlock ZooKeeper tryAcquire+release, fence read";
    static final String CURATOR = "Curator 5 InterProcessMutex acquire+release";
    static final String OWN_PROCESS = " (server in its own JVM)";

    static {
        System.setProperty("zookeeper.admin.enableServer", "false");
        System.setProperty("zookeeper.jmx.log4j.disable", "true");
    }

    private final AutoCloseable server;
    private final String connectString;
    private final String suffix;

    private ZooKeeperPeers(AutoCloseable server, String connectString, String suffix) {
        this.server = server;
        this.connectString = connectString;
        this.suffix = suffix;
    }

    /** A server in the bench's JVM. */
    static ZooKeeperPeers inProcess() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, FreePorts.find(), FreePorts.find(), FreePorts.find(), true, 1,
                -1, -1, Map.of(), FreePorts.LOOPBACK);
        TestingServer server = new TestingServer(spec, true);
        return new ZooKeeperPeers(server, FreePorts.LOOPBACK + ":" + server.getPort(), "");
    }

    /** A server in a JVM of its own. */
    static ZooKeeperPeers ownProcess() throws Exception {
        ZooKeeperProcess server = ZooKeeperProcess.start(System.getProperty("java.class.path"));
        return new ZooKeeperPeers(server, server.connectString(), OWN_PROCESS);
    }

    String distlockRow() {
        return DISTLOCK + suffix;
    }

    String curatorRow() {
        return CURATOR + suffix;
    }

    String uri() {
        return "zookeeper://" + connectString;
    }

    LoopScenario curatorMutex() throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(100));
        curator.start();
        if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
            curator.close();
            throw new IllegalStateException("Curator did not connect to " + connectString + " in 30 s");
        }
        InterProcessMutex mutex = new InterProcessMutex(curator, "/curator-bench/uncontended");
        return new LoopScenario(curatorRow(), false) {
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
        try {
            server.close();
        } catch (java.io.IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new java.io.IOException("closing " + this + " failed", e);
        }
    }

    @Override
    public String toString() {
        return "ZooKeeper at " + connectString + suffix;
    }
}
