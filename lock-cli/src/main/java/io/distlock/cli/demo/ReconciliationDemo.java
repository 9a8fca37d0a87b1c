package io.distlock.cli.demo;

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
 * reconciliation at spread times and exactly one runs it, as the README teaches a run-once job (one
 * attempt each, the lock not released when the job is done, so that a late riser skips too); then
 * instance A stalls past its lease, B takes over and writes with a higher fencing token, and A's
 * late write is rejected by the fenced store. Exits 0 only if exactly one instance ran, an
 * instance that woke after the job was done skipped it, and the stale write was rejected.
 */
public final class ReconciliationDemo {

    private ReconciliationDemo() {
    }

    private static final String JOB = "nightly-reconciliation";
    private static final long START = System.nanoTime();

    /**
     * Runs the demo, printing the story as it happens.
     *
     * @return 0 if exactly one instance ran, the late risers skipped and the stale write was rejected; else 1
     * @throws Exception if the embedded server cannot start or the demo is interrupted
     */
    public static int run() throws Exception {
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
            Night night = nightlyRun(uri, ledger);
            boolean staleRejected = pauseScenario(uri, ledger);
            say("");
            say("the ledger's log:");
            ledger.log().forEach(line -> say("  " + line));
            ok = night.ran() == 1 && night.lateRisersWhoSkipped().size() == LATE_WAKE_UPS.length && staleRejected;
            say("");
            say((ok ? "OK" : "FAILED") + ": " + night.ran() + " of 5 instances ran the reconciliation, "
                    + night.lateRisersWhoSkipped().size() + " of " + LATE_WAKE_UPS.length + " late risers skipped it;"
                    + " A's stale write was " + (staleRejected ? "rejected" : "NOT rejected"));
        } finally {
            factory.shutdown();
            server.shutdown();
            deleteRecursively(dataDir);
        }
        return ok ? 0 : 1;
    }

    /** How long after 02:00 the first three instances wake: their clocks and starts differ a little. */
    private static final long[] EARLY_WAKE_UPS = {0, 150, 400};
    /** How long after the job is done the last two wake: a clock that runs behind, a slow start. */
    private static final long[] LATE_WAKE_UPS = {300, 900};
    /** How long the job takes. */
    private static final Duration JOB_TIME = Duration.ofMillis(600);
    /** The lease must cover the job and the spread of the wake-ups (README, "A job that runs once"). */
    private static final Duration JOB_LEASE = Duration.ofSeconds(30);

    /** What the instances did on the night. */
    private record Night(int ran, List<String> lateRisersWhoSkipped) {
    }

    /**
     * Part 1, as the README teaches a run-once job: every instance makes one attempt when it wakes
     * and skips the job if the lock is taken; the one that runs it does not release the lock, so an
     * instance that wakes after the job is done skips too.
     */
    private static Night nightlyRun(String uri, FencedStore ledger) throws Exception {
        say("");
        say("== 02:00: five instances wake for the nightly reconciliation, not all at once ==");
        say("each makes ONE attempt (tryAcquire, lease " + JOB_LEASE.toSeconds() + " s) and skips the job if the lock is taken;");
        say("the one that runs it does NOT release the lock when done: it stays taken until the lease ends,");
        say("so an instance that wakes late (clock skew, a slow start) finds it taken and skips too");
        long night = System.nanoTime();
        CountDownLatch jobDone = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        List<LockClient> clients = new ArrayList<>();     // one per instance, kept while its service runs
        ExecutorService pool = Executors.newFixedThreadPool(EARLY_WAKE_UPS.length + LATE_WAKE_UPS.length);
        List<Future<Boolean>> lateRisers = new ArrayList<>();
        try {
            for (int i = 0; i < EARLY_WAKE_UPS.length + LATE_WAKE_UPS.length; i++) {
                String me = "instance-" + (i + 1);
                LockClient client = Locks.connect(uri);
                clients.add(client);
                boolean late = i >= EARLY_WAKE_UPS.length;
                long wakeUp = late ? LATE_WAKE_UPS[i - EARLY_WAKE_UPS.length] : EARLY_WAKE_UPS[i];
                Future<Boolean> instance = pool.submit(() -> {
                    if (late) {
                        jobDone.await(60, TimeUnit.SECONDS);
                        Thread.sleep(wakeUp);                                  // the late wake-up is the scenario
                    } else {
                        Thread.sleep(wakeUp);
                    }
                    long wokeAt = millisSince(night);
                    Optional<Lease> granted = client.lock(JOB).tryAcquire(JOB_LEASE);   // one attempt, never a wait
                    if (granted.isEmpty()) {
                        say(me + ": wakes at +" + wokeAt + " ms; the lock is taken: another instance runs or ran the job, skipping");
                        return jobDone.getCount() == 0;
                    }
                    long token = granted.get().fencingToken().orElseThrow();
                    say(me + ": wakes at +" + wokeAt + " ms, gets the lock (fencing token " + token + "), reconciling...");
                    Thread.sleep(JOB_TIME.toMillis());                          // the job takes a while
                    ran.incrementAndGet();
                    ledger.write(me, token, "reconciliation report for tonight");
                    say(me + ": done at +" + millisSince(night) + " ms; NOT releasing the lock (it ends with the lease, in "
                            + JOB_LEASE.toSeconds() + " s)");
                    jobDone.countDown();
                    return false;
                });
                if (late) {
                    lateRisers.add(instance);
                }
            }
            pool.shutdown();
            if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the instances did not finish within 60 s");
            }
            List<String> skipped = new ArrayList<>();
            for (int i = 0; i < lateRisers.size(); i++) {
                if (lateRisers.get(i).get()) {
                    skipped.add("instance-" + (EARLY_WAKE_UPS.length + i + 1));
                }
            }
            say("-> " + ran.get() + " of " + clients.size() + " instances ran the reconciliation");
            if (!skipped.isEmpty()) {
                say("-> " + String.join(" and ", skipped) + " woke after the job was done and skipped it: the lock was"
                        + " still taken. Had it been released when done, they would have run the job again.");
            }
            return new Night(ran.get(), skipped);
        } finally {
            pool.shutdownNow();
            for (LockClient client : clients) {
                client.close();                            // the services stop: each client releases what it holds
            }
        }
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
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
                say("ZooKeeper is serving (" + probe.backend().scheme() + " backend connected)");
                return;
            } catch (BackendUnavailableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(100); // the embedded server is still starting: try again shortly
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
