package io.distlock.redlock;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisNodes;

import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisNode;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

/**
 * A benchmark, not a timed test (its name keeps it out of the default test run): acquire + release
 * latency of Redlock over N = 5 independent {@code redis-server} processes against single Redis
 * ({@code redis://}) on one of the same servers, measured alternately in one run after a warm-up,
 * each client connected directly (no fault proxy). Prints p50, p99 and the ratio; the target is a
 * Redlock p50 at most 1.5 × the single-node p50.
 *
 * <p>Run: {@code ./mvnw -o -B -pl lock-redlock -am verify -Dtest=RedlockBench
 * -Dsurefire.failIfNoSpecifiedTests=false}, or {@link #main} with the test classpath.
 */
class RedlockBench {

    private static final int NODES = Integer.getInteger("distlock.bench.nodes", 5);
    private static final int WARMUP = 2_000;
    private static final int ROUNDS = 10;
    private static final int PER_ROUND = 500;
    private static final Duration LEASE = Duration.ofSeconds(10);

    @Test
    void redlockOfFiveAgainstSingleRedis() {
        main(new String[0]);
    }

    /**
     * @param args ignored
     */
    public static void main(String[] args) {
        try (RedisNodes nodes = RedisNodes.start(NODES);
             // A generous per-node timeout: this measures latency, not how timeouts count on a loaded machine.
             LockClient redlock = Locks.connect(nodes.directUri("redlock") + "?nodeTimeout=1000");
             LockClient single = Locks.connect(nodes.server(0).uri())) {
            run(redlock, "warm-up", new long[WARMUP], 0);
            run(single, "warm-up", new long[WARMUP], 0);
            long[] redlockNanos = new long[ROUNDS * PER_ROUND];
            long[] singleNanos = new long[ROUNDS * PER_ROUND];
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long redlockCpu = 0;
            long singleCpu = 0;
            for (int round = 0; round < ROUNDS; round++) {
                // Alternate in blocks, so that both see the same machine load.
                long cpu = threads.getCurrentThreadCpuTime();
                run(redlock, "bench", redlockNanos, round * PER_ROUND, PER_ROUND);
                long mid = threads.getCurrentThreadCpuTime();
                run(single, "bench", singleNanos, round * PER_ROUND, PER_ROUND);
                redlockCpu += mid - cpu;
                singleCpu += threads.getCurrentThreadCpuTime() - mid;
            }
            System.out.printf(Locale.ROOT, "client CPU per op: single %.1f us, redlock %.1f us%n",
                    singleCpu / 1e3 / singleNanos.length, redlockCpu / 1e3 / redlockNanos.length);
            Arrays.sort(redlockNanos);
            Arrays.sort(singleNanos);
            double redlockP50 = percentile(redlockNanos, 0.50);
            double singleP50 = percentile(singleNanos, 0.50);
            System.out.printf(Locale.ROOT, "acquire+release, %d ops each after %d warm-up ops%n", redlockNanos.length, WARMUP);
            System.out.printf(Locale.ROOT, "single redis        p50 %7.1f us  p99 %7.1f us%n", singleP50 / 1e3,
                    percentile(singleNanos, 0.99) / 1e3);
            System.out.printf(Locale.ROOT, "redlock N=%d        p50 %7.1f us  p99 %7.1f us%n", NODES, redlockP50 / 1e3,
                    percentile(redlockNanos, 0.99) / 1e3);
            System.out.printf(Locale.ROOT, "ratio p50 %.2f x, p99 %.2f x (target p50 <= 1.5 x)%n", redlockP50 / singleP50,
                    percentile(redlockNanos, 0.99) / percentile(singleNanos, 0.99));
            primitives(nodes);
        }
    }

    /**
     * Below the engine, on the same per-node primitive: one node, N nodes one after another (the
     * naive loop), and N nodes fanned out (send to all, then read all), each acquire + release.
     * Shows what the fan-out itself buys under the machine's current load.
     */
    private static void primitives(RedisNodes nodes) {
        List<RedisNode> redis = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            redis.add(RedisNode.open(RedisEndpoint.parse(URI.create(nodes.server(i).uri()), RedisEndpoint.OPTIONS),
                    Duration.ofSeconds(1), Duration.ofSeconds(1), 2));
        }
        try {
            long[][] samples = new long[3][ROUNDS * PER_ROUND];
            for (int round = -1; round < ROUNDS; round++) { // round -1 warms up
                for (int mode = 0; mode < 3; mode++) {
                    List<RedisNode> targets = mode == 0 ? redis.subList(0, 1) : redis;
                    for (int i = 0; i < PER_ROUND; i++) {
                        long start = System.nanoTime();
                        String token = "t" + i;
                        roundTrip(targets, mode == 2, new PendingReply.CommandCall("SET",
                                List.of(LockScripts.lockKey("raw"), token, "NX", "PX", "10000", "GET")));
                        roundTrip(targets, mode == 2, new PendingReply.ScriptCall(LockScripts.RELEASE,
                                List.of(LockScripts.lockKey("raw")), List.of(token, LockScripts.releaseChannel("raw"))));
                        if (round >= 0) {
                            samples[mode][round * PER_ROUND + i] = System.nanoTime() - start;
                        }
                    }
                }
            }
            String[] names = {"1 node", NODES + " nodes, one after another", NODES + " nodes, fanned out"};
            for (int mode = 0; mode < 3; mode++) {
                Arrays.sort(samples[mode]);
                System.out.printf(Locale.ROOT, "primitive, %-28s p50 %7.1f us  p99 %7.1f us  (p50 %.2f x one node)%n",
                        names[mode], percentile(samples[mode], 0.5) / 1e3, percentile(samples[mode], 0.99) / 1e3,
                        percentile(samples[mode], 0.5) / percentile(samples[0], 0.5));
            }
        } finally {
            redis.forEach(RedisNode::close);
        }
    }

    private static void roundTrip(List<RedisNode> targets, boolean fanOut, PendingReply.Call call) {
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        if (fanOut) {
            List<PendingReply> pending = new ArrayList<>();
            for (RedisNode node : targets) {
                pending.add(node.send("bench", false, List.of(call)));
            }
            pending.forEach(p -> p.await(deadline));
        } else {
            for (RedisNode node : targets) {
                node.send("bench", false, List.of(call)).await(deadline);
            }
        }
    }

    private static void run(LockClient client, String prefix, long[] samples, int from) {
        run(client, prefix, samples, from, samples.length - from);
    }

    private static void run(LockClient client, String prefix, long[] samples, int from, int count) {
        var lock = client.lock("bench-" + prefix);
        for (int i = from; i < from + count; i++) {
            long start = System.nanoTime();
            Lease lease = lock.tryAcquire(LEASE).orElseThrow(() -> new IllegalStateException("the free lock was busy"));
            lease.release();
            samples[i] = System.nanoTime() - start;
        }
    }

    private static double percentile(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }
}
