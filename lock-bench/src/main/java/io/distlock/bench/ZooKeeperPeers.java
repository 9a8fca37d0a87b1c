package io.distlock.bench;

import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.ZooKeeperProcess;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * One ZooKeeper server on a free loopback port shared by distlock's ZooKeeper rows and their
 * peers, Curator's {@code InterProcessMutex}, {@code InterProcessSemaphoreV2} and
 * {@code InterProcessReadWriteLock} (acquire + release, uncontended, each row a client of its own as
 * Curator users start it): either in the bench's own JVM (curator-test; these rows' client CPU then
 * includes the server's) or in a JVM of its own ({@link ZooKeeperProcess}), as users run it.
 */
final class ZooKeeperPeers implements AutoCloseable {

    static final String DISTLOCK = "distlock ZooKeeper tryAcquire+release, fence read";
    static final String CURATOR = "Curator 5 InterProcessMutex acquire+release";
    static final String FLOOR = "floor: raw ZooKeeper client, create + listing pipelined, then delete";
    static final String REQUESTS = "diagnostic: distlock's ZooKeeper requests on ZooKeeper's own client (no engine, no driver)";
    static final String DISTLOCK_SEMAPHORE = "distlock ZooKeeper semaphore (" + DistlockHoldUncontended.PERMITS
            + " permits) tryAcquire+release";
    static final String CURATOR_SEMAPHORE = "Curator 5 InterProcessSemaphoreV2 (" + DistlockHoldUncontended.PERMITS
            + " leases) acquire+returnLease";
    static final String DISTLOCK_READ = "distlock ZooKeeper read lock tryAcquire+release";
    static final String CURATOR_READ = "Curator 5 InterProcessReadWriteLock read lock acquire+release";
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
        // The data directory under a directory of the bench's: the server writes its configuration
        // file beside it, which would otherwise stay in the system's temporary directory.
        Path root = Files.createTempDirectory("distlock-bench-zk-");
        InstanceSpec spec = new InstanceSpec(Files.createDirectories(root.resolve("data")).toFile(), FreePorts.find(),
                FreePorts.find(), FreePorts.find(), true, 1, -1, -1, Map.of(), FreePorts.LOOPBACK);
        TestingServer server = new TestingServer(spec, true);
        AutoCloseable closing = () -> {
            server.close();
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        };
        return new ZooKeeperPeers(closing, FreePorts.LOOPBACK + ":" + server.getPort(), "");
    }

    /** A server in a JVM of its own. */
    static ZooKeeperPeers ownProcess() throws Exception {
        ZooKeeperProcess server = ZooKeeperProcess.start(System.getProperty("java.class.path"));
        return new ZooKeeperPeers(server, server.connectString(), OWN_PROCESS);
    }

    /** @return {@code row}'s label on this server: as it is in the bench's JVM, with {@link #OWN_PROCESS} in its own */
    String row(String row) {
        return row + suffix;
    }

    String uri() {
        return "zookeeper://" + connectString;
    }

    /**
     * The floor of a ZooKeeper lock: what the fewest requests any lock recipe needs cost on this
     * server, on ZooKeeper's own client with nothing around it. Acquire: an asynchronous
     * {@code create} of an empty ephemeral-sequential node and, at once, a {@code getChildren} of the
     * lock's directory (one session's requests are processed in order, so the listing has the new
     * node: one round trip decides); release: one synchronous {@code delete}. No owner token in the
     * name, no data, no watch, no retry: less than any lock users can run, and the same requests
     * distlock's acquire and release send.
     */
    TwoStepScenario floor() throws Exception {
        return rawLock(row(FLOOR), "/floor-bench", "n-", new byte[0], false);
    }

    /**
     * The floor's requests as distlock sends them: the node named for a 22-character owner token
     * ({@code lock-<token>-}, so that a create whose reply was lost is found again), the owner
     * description as its data (what an inspection reads), and {@code create2}, whose {@code Stat}
     * carries the fencing token. Beside the floor and distlock's row, it splits distlock's gap into what
     * its requests cost the server and what its client adds.
     */
    TwoStepScenario distlockRequests() throws Exception {
        byte[] owner = ("distlock-zk-1\nowner=bench@127.0.0.1:" + ProcessHandle.current().pid() + "/a1b2c3")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return rawLock(row(REQUESTS), "/floor-bench-distlock-requests", "lock-AbCdEfGhIjKlMnOpQrStUv-", owner, true);
    }

    private TwoStepScenario rawLock(String label, String dir, String prefix, byte[] data, boolean create2) throws Exception {
        ZooKeeper zk = rawClient();
        try {
            zk.create(dir, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            // left by an earlier run on this server: the same directory serves
        }
        return new TwoStepScenario(label, "acquire", "release") {
            @Override
            Object first() throws Exception {
                CompletableFuture<String> created = new CompletableFuture<>();
                CompletableFuture<List<String>> listed = new CompletableFuture<>();
                if (create2) {
                    zk.create(dir + "/" + prefix, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
                            (rc, path, ctx, name, stat) -> complete(created, rc, name), null);
                } else {
                    zk.create(dir + "/" + prefix, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
                            (rc, path, ctx, name) -> complete(created, rc, name), null);
                }
                zk.getChildren(dir, false, (rc, path, ctx, children) -> complete(listed, rc, children), null);
                String node = created.get(10, TimeUnit.SECONDS);
                List<String> children = listed.get(10, TimeUnit.SECONDS);
                if (children.size() != 1 || !node.endsWith("/" + children.get(0))) {
                    throw new IllegalStateException(label + ": the lock was not free: " + children);
                }
                return node;
            }

            @Override
            void second(Object node) throws Exception {
                zk.delete((String) node, -1);
            }

            @Override
            public void close() {
                try {
                    zk.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    private static <T> void complete(CompletableFuture<T> future, int rc, T value) {
        if (rc == KeeperException.Code.OK.intValue()) {
            future.complete(value);
        } else {
            future.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc)));
        }
    }

    /** @return ZooKeeper's own client on this server, connected (session timeout 30 s) */
    private ZooKeeper rawClient() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 30_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            zk.close();
            throw new IllegalStateException("ZooKeeper's client did not connect to " + connectString + " in 30 s");
        }
        return zk;
    }

    /** Curator's {@code InterProcessMutex}: {@code acquire(10 s)} and {@code release()}, each step timed. */
    TwoStepScenario curatorMutex() throws InterruptedException {
        CuratorFramework curator = curator();
        InterProcessMutex mutex = new InterProcessMutex(curator, "/curator-bench/uncontended");
        return new TwoStepScenario(row(CURATOR), "acquire", "release") {
            @Override
            Object first() throws Exception {
                if (!mutex.acquire(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Curator mutex was busy");
                }
                return mutex;
            }

            @Override
            void second(Object held) throws Exception {
                mutex.release();
            }

            @Override
            public void close() {
                curator.close();
            }
        };
    }

    /**
     * Curator's {@code InterProcessSemaphoreV2} with {@link DistlockHoldUncontended#PERMITS} leases:
     * {@code acquire(10 s)} (at most that long a wait; a Curator lease has no lease time, it lasts
     * as long as the session) and {@code returnLease}.
     */
    TwoStepScenario curatorSemaphore() throws InterruptedException {
        CuratorFramework curator = curator();
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(curator, "/curator-bench/semaphore-uncontended",
                DistlockHoldUncontended.PERMITS);
        return new TwoStepScenario(row(CURATOR_SEMAPHORE), "acquire", "returnLease") {
            @Override
            Object first() throws Exception {
                Lease lease = semaphore.acquire(10, TimeUnit.SECONDS);
                if (lease == null) {
                    throw new IllegalStateException("Curator semaphore had no lease free");
                }
                return lease;
            }

            @Override
            void second(Object lease) {
                semaphore.returnLease((Lease) lease);
            }

            @Override
            public void close() {
                curator.close();
            }
        };
    }

    /** Curator's {@code InterProcessReadWriteLock.readLock()}: {@code acquire(10 s)} (at most that long a wait) and {@code release}. */
    TwoStepScenario curatorReadLock() throws InterruptedException {
        CuratorFramework curator = curator();
        InterProcessMutex read = new InterProcessReadWriteLock(curator, "/curator-bench/rw-uncontended").readLock();
        return new TwoStepScenario(row(CURATOR_READ), "acquire", "release") {
            @Override
            Object first() throws Exception {
                if (!read.acquire(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Curator read lock was busy");
                }
                return read;
            }

            @Override
            void second(Object held) throws Exception {
                read.release();
            }

            @Override
            public void close() {
                curator.close();
            }
        };
    }

    /** @return a Curator client of its own on this server, connected, as Curator users start it */
    private CuratorFramework curator() throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(100));
        curator.start();
        if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
            curator.close();
            throw new IllegalStateException("Curator did not connect to " + connectString + " in 30 s");
        }
        return curator;
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
