package demo;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The story distlock exists for, on an embedded ZooKeeper: five instances wake for the nightly
 * reconciliation and exactly one runs it; then instance A stalls past its lease, B takes over and
 * writes with a higher fencing token, and A's late write is rejected by the fenced store.
 * Exits 0 only if exactly one instance ran and the stale write was rejected.
 */
public final class ReconciliationDemo {

    private static final String JOB = "nightly-reconciliation";
    private static final long START = System.nanoTime();

    public static void main(String[] args) throws Exception {
        Path dataDir = Files.createTempDirectory("distlock-demo-zk");
        int port = freePort();
        say("starting an embedded ZooKeeper on 127.0.0.1:" + port + " (in this JVM, nothing to install)");
        boolean ok;
        ZooKeeperServer server = new ZooKeeperServer(dataDir.toFile(), dataDir.toFile(), 500);
        ServerCnxnFactory factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", port), 100);
        try {
            factory.startup(server);
            String uri = "zookeeper://127.0.0.1:" + port + "/demo";
            awaitServing(uri);
            FencedStore ledger = new FencedStore();
            int ran = nightlyRun(uri, ledger);
            boolean staleRejected = pauseScenario(uri, ledger);
            say("");
            say("the ledger's log:");
            ledger.log().forEach(line -> say("  " + line));
            ok = ran == 1 && staleRejected;
            say("");
            say((ok ? "OK" : "FAILED") + ": " + ran + " of 5 instances ran the reconciliation; A's stale write was "
                    + (staleRejected ? "rejected" : "NOT rejected"));
        } finally {
            factory.shutdown();
            server.shutdown();
            deleteRecursively(dataDir);
        }
        System.exit(ok ? 0 : 1);
    }

    /** Part 1: five instances wake at once; the lock lets exactly one of them run the job. */
    private static int nightlyRun(String uri, FencedStore ledger) throws Exception {
        say("");
        say("== 02:00, five instances wake for the nightly reconciliation ==");
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch everyoneTried = new CountDownLatch(5);
        ExecutorService pool = Executors.newFixedThreadPool(5);
        List<Future<?>> instances = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            String me = "instance-" + i;
            instances.add(pool.submit(() -> {
                try (LockClient client = Locks.connect(uri)) {
                    go.await();
                    Optional<Lease> granted = client.lock(JOB).tryAcquire(Duration.ofSeconds(30));
                    everyoneTried.countDown();
                    if (granted.isEmpty()) {
                        say(me + ": the lock is taken, another instance runs it; going back to sleep");
                        return null;
                    }
                    try (Lease lease = granted.get()) {
                        long token = lease.fencingToken().orElseThrow();
                        say(me + ": got the lock (fencing token " + token + "), reconciling...");
                        everyoneTried.await(10, TimeUnit.SECONDS); // the job takes a while: the others come and go meanwhile
                        ran.incrementAndGet();
                        ledger.write(me, token, "reconciliation report for tonight");
                        say(me + ": done, releasing the lock");
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> instance : instances) {
            instance.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        say("-> " + ran.get() + " of 5 instances ran the reconciliation");
        return ran.get();
    }

    /** Part 2: A stalls past its lease, B takes over, A's late write is fenced off. */
    private static boolean pauseScenario(String uri, FencedStore ledger) throws Exception {
        say("");
        say("== the pause: instance A stalls past its lease ==");
        Duration lease = Duration.ofSeconds(2);
        try (LockClient a = Locks.connect(uri); LockClient b = Locks.connect(uri)) {
            Lease leaseA = a.lock(JOB).acquire(lease);
            long tokenA = leaseA.fencingToken().orElseThrow();
            say("A: got the lock for " + lease.toMillis() + " ms (fencing token " + tokenA + "), reads the ledger, prepares its write");
            Thread bThread = new Thread(() -> {
                try {
                    say("B: waits for the lock");
                    try (Lease leaseB = b.lock(JOB).acquire(Duration.ofSeconds(30))) {
                        long tokenB = leaseB.fencingToken().orElseThrow();
                        say("B: got the lock after A's lease ran out (fencing token " + tokenB + ")");
                        boolean accepted = ledger.write("B", tokenB, "B's reconciliation report");
                        say("B: writes its report -> " + (accepted ? "accepted" : "REJECTED"));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "B");
            bThread.start();
            say("A: ...stalls (a long GC pause) for " + (lease.toMillis() + 1500) + " ms, past its lease");
            Thread.sleep(lease.toMillis() + 1500); // the pause is the point of the scenario
            bThread.join(30_000);
            say("A: wakes up; its lease says isValid() = " + leaseA.isValid() + ", but A writes anyway with token " + tokenA);
            boolean accepted = ledger.write("A", tokenA, "A's stale report");
            say("A: writes its stale report -> " + (accepted ? "ACCEPTED (this would corrupt the ledger)" : "rejected by the fencing token"));
            leaseA.release();
            return !accepted;
        }
    }

    private static void awaitServing(String uri) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (LockClient probe = Locks.connect(uri)) {
                say("ZooKeeper is serving");
                return;
            } catch (BackendUnavailableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void say(String line) {
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - START);
        System.out.printf("[%6.3f s] %s%n", millis / 1000.0, line);
    }
}
