package io.distlock.bench;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisServer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * One client holds many leases on distinct keys with {@code autoRenew()} for three renewal
 * periods, on a server of its own. Counted: renewal ticks (the keeper's {@code extendAll} calls,
 * seen through {@link CountingRedisBackend}), leases per tick, pipelined round trips per tick, the
 * {@code EVALSHA} commands the server executed ({@code INFO commandstats}), and the CPU the
 * client's keeper thread and the server spent per tick.
 */
final class RenewalScale {

    /** Extensions per pipelined round trip: RedisNode's PIPELINE_CHUNK (package-private there). */
    static final int PIPELINE_CHUNK = 4096;

    private final int leases;
    private final Duration leaseTime;

    RenewalScale(int leases, Duration leaseTime) {
        this.leases = leases;
        this.leaseTime = leaseTime;
    }

    String name() {
        return "scale: " + leases + " leases, autoRenew, 3 renewal periods (distlock single Redis)";
    }

    Measurement run(RedisServer redis) throws InterruptedException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (LockClient client = Locks.connect("bench-redis://" + redis.endpoint())) {
            List<Lease> held = new ArrayList<>(leases);
            for (int i = 0; i < leases; i++) {
                held.add(client.lock("scale-" + i).tryAcquire(leaseTime)
                        .orElseThrow(() -> new IllegalStateException("a scale key was busy")).autoRenew());
            }
            long keeper = keeperThread(threads);
            Window window = null;
            // The engine may run two renewal ticks at once (two I/O threads), so a tick can still be
            // running while the server's counters are read; such a window would count its
            // renewals on one side and its EVALSHAs on the other. A window is kept only when no
            // tick overlaps either reading; otherwise it is measured again.
            for (int tries = 0; window == null; tries++) {
                if (tries == 5) {
                    throw new IllegalStateException("every window had a renewal tick running while the server was read");
                }
                window = window(redis, threads, keeper);
            }
            List<CountingRedisBackend.Tick> ticks = window.ticks();
            long keeperCpu = window.keeperCpu();
            Map<String, Double> server0 = window.server0();
            Map<String, Double> server1 = window.server1();
            long start = window.start();
            long end = window.end();
            long lost = held.stream().filter(lease -> !lease.isValid()).count();
            held.forEach(Lease::release);

            Histogram tickLatency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            long renewed = 0;
            long roundTrips = 0;
            for (CountingRedisBackend.Tick tick : ticks) {
                tickLatency.recordValue(tick.nanos());
                renewed += tick.leases();
                roundTrips += (tick.leases() + PIPELINE_CHUNK - 1) / PIPELINE_CHUNK;
            }
            int n = Math.max(1, ticks.size());
            double evalsha = server1.get("evalsha") - server0.get("evalsha");
            Map<String, Double> extras = new LinkedHashMap<>();
            extras.put("leases", (double) leases);
            extras.put("ticks", (double) ticks.size());
            extras.put("leases per tick", (double) renewed / n);
            extras.put("round trips per tick", (double) roundTrips / n);
            extras.put("allowed per tick (1 per started 1000 leases)", Math.ceil(renewed / 1000.0 / n));
            extras.put("EVALSHA per renewal", renewed == 0 ? Double.NaN : evalsha / renewed);
            extras.put("keeper CPU ms per tick", keeperCpu / 1e6 / n);
            extras.put("server CPU ms per tick", (server1.get("cpu") - server0.get("cpu")) * 1e3 / n);
            extras.put("keeper CPU µs per renewal", renewed == 0 ? Double.NaN : keeperCpu / 1e3 / renewed);
            extras.put("server command µs per renewal", renewed == 0 ? Double.NaN
                    : (server1.get("usec") - server0.get("usec")) / renewed);
            extras.put("leases lost", (double) lost);
            if (lost > 0) {
                throw new IllegalStateException(lost + " of " + leases + " auto-renewed leases were lost");
            }
            return new Measurement(name(), renewed * 1e9 / (end - start), tickLatency.getValueAtPercentile(50),
                    tickLatency.getValueAtPercentile(99), tickLatency.getValueAtPercentile(99.9), ticks.size(), extras);
        }
    }

    /** Server counters read at both ends of a window, and the renewal ticks run wholly inside it. */
    private record Window(List<CountingRedisBackend.Tick> ticks, long keeperCpu, Map<String, Double> server0,
            Map<String, Double> server1, long start, long end) {
    }

    /**
     * Measures one window of three renewal periods; opens and closes right after a tick has
     * completed, when the keeper is idle for a sixth of a lease at least.
     *
     * @return the window, or null if a renewal tick ran while the server's counters were read
     */
    private Window window(RedisServer redis, ThreadMXBean threads, long keeper) throws InterruptedException {
        awaitTickAfter(CountingRedisBackend.ticks().size(), System.nanoTime());
        long keeperCpu0 = threads.getThreadCpuTime(keeper);
        long open = System.nanoTime();
        Map<String, Double> server0 = serverFigures(redis);
        long start = System.nanoTime();
        // Three renewal periods: the keeper renews a third into each lease.
        awaitTickAfter(CountingRedisBackend.ticks().size(), start + leaseTime.toNanos());
        long keeperCpu = threads.getThreadCpuTime(keeper) - keeperCpu0;
        long close = System.nanoTime();
        Map<String, Double> server1 = serverFigures(redis);
        long end = System.nanoTime();
        // Every tick that started before the second reading ended has to be recorded to be judged.
        long deadline = end + 3 * leaseTime.toNanos();
        while (CountingRedisBackend.inFlight() > 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        List<CountingRedisBackend.Tick> inside = new ArrayList<>();
        for (CountingRedisBackend.Tick tick : CountingRedisBackend.ticks()) {
            if (tick.overlaps(open, start) || tick.overlaps(close, end)) {
                return null;
            }
            if (tick.startNanos() - start > 0 && tick.startNanos() + tick.nanos() - close < 0) {
                inside.add(tick);
            }
        }
        return new Window(inside, keeperCpu, server0, server1, start, end);
    }

    /**
     * Waits until the renewal tick list has grown past {@code seen} with a tick that started after
     * {@code notBefore}, and returns the list's size then.
     */
    private int awaitTickAfter(int seen, long notBefore) throws InterruptedException {
        long deadline = notBefore + 3 * leaseTime.toNanos();
        while (System.nanoTime() - deadline < 0) {
            List<CountingRedisBackend.Tick> ticks = CountingRedisBackend.ticks();
            if (ticks.size() > seen && ticks.get(ticks.size() - 1).startNanos() - notBefore >= 0) {
                return ticks.size();
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("no renewal tick of " + leases + " auto-renewed leases within " + leaseTime.multipliedBy(3));
    }

    private static long keeperThread(ThreadMXBean threads) {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("distlock-bench-redis-keeper")) {
                return info.getThreadId();
            }
        }
        throw new IllegalStateException("no distlock-bench-redis-keeper thread");
    }

    /** {@code EVALSHA} calls so far and the server's CPU seconds (user + system). */
    private static Map<String, Double> serverFigures(RedisServer redis) {
        double evalsha = 0;
        for (String line : String.valueOf(redis.call("INFO", "commandstats")).split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                evalsha = Double.parseDouble(calls.substring(0, calls.indexOf(',')));
            }
        }
        double[] counters = serverCounters(redis);
        return Map.of("evalsha", evalsha, "cpu", counters[0], "usec", counters[1]);
    }

    /**
     * @return the server's CPU seconds so far (user + system, {@code INFO cpu}) and the microseconds
     *         it spent executing commands (the sum of {@code usec} in {@code INFO commandstats},
     *         Lua scripts included; the {@code INFO} calls themselves excluded)
     */
    static double[] serverCounters(RedisServer redis) {
        double usec = 0;
        for (String line : String.valueOf(redis.call("INFO", "commandstats")).split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
                String rest = line.substring(line.indexOf("usec=") + 5);
                usec += Double.parseDouble(rest.substring(0, rest.indexOf(',')));
            }
        }
        return new double[] {serverCpuSeconds(redis), usec};
    }

    /** @return the server's CPU time so far, user + system, in seconds ({@code INFO cpu}) */
    static double serverCpuSeconds(RedisServer redis) {
        double cpu = 0;
        for (String line : String.valueOf(redis.call("INFO", "cpu")).split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return cpu;
    }
}
