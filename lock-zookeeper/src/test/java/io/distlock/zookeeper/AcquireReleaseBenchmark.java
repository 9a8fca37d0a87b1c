package io.distlock.zookeeper;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Uncontended acquire + release on one real ZooKeeper server: distlock's lean recipe against
 * Curator's {@link InterProcessMutex}, measured alternately in one run (so both see the same
 * machine load), after a warm-up. Not a test: run {@code main} (argument: operations per side).
 *
 * <p>InterProcessMutex costs create + getChildren + delete, three round trips; distlock pipelines
 * the create (with its Stat, for the czxid fence) and the getChildren, two round trips in all.
 */
public final class AcquireReleaseBenchmark {

    private AcquireReleaseBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        int warmup = Math.max(500, ops / 5);
        try (ZkServers server = ZkServers.single();
             LockClient client = Locks.connect(server.uri("/bench"));
             CuratorFramework curator = CuratorFrameworkFactory.newClient(server.connectString(), new RetryOneTime(50))) {
            curator.start();
            curator.blockUntilConnected();
            DistributedLock lock = client.lock("uncontended");
            InterProcessMutex mutex = new InterProcessMutex(curator, "/curator-bench/uncontended");
            Duration lease = Duration.ofSeconds(30);
            long[] ours = new long[ops];
            long[] theirs = new long[ops];
            for (int i = -warmup; i < ops; i++) {
                long start = System.nanoTime();
                Lease held = lock.tryAcquire(lease).orElseThrow();
                held.release();
                long mid = System.nanoTime();
                if (!mutex.acquire(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    throw new IllegalStateException("InterProcessMutex did not acquire an uncontended lock");
                }
                mutex.release();
                long end = System.nanoTime();
                if (i >= 0) {
                    ours[i] = mid - start;
                    theirs[i] = end - mid;
                }
            }
            Arrays.sort(ours);
            Arrays.sort(theirs);
            double oursP50 = micros(ours, 0.50);
            double theirsP50 = micros(theirs, 0.50);
            System.out.printf(Locale.ROOT, "uncontended acquire+release, %d ops each after %d warm-up, one server on loopback%n", ops, warmup);
            System.out.printf(Locale.ROOT, "distlock zookeeper : p50 %8.1f us   p99 %8.1f us%n", oursP50, micros(ours, 0.99));
            System.out.printf(Locale.ROOT, "InterProcessMutex  : p50 %8.1f us   p99 %8.1f us%n", theirsP50, micros(theirs, 0.99));
            System.out.printf(Locale.ROOT, "ratio p50 distlock / InterProcessMutex = %.2f (target <= 0.90)%n", oursP50 / theirsP50);
        }
    }

    private static double micros(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)] / 1_000.0;
    }
}
