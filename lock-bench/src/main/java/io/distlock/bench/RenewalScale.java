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
 * periods, on a server of its own. Counted, in a {@link RenewalWindow}: renewal ticks (the
 * keeper's {@code extendAll} calls, seen through {@link CountingRedisBackend}), leases per tick,
 * pipelined round trips per tick, the scripts the server ran ({@code EVALSHA}, or {@code EVAL} on a
 * new connection; {@code INFO commandstats}), and the CPU the client's keeper thread and the server
 * spent per tick.
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
            RenewalWindow<Map<String, Double>> window = RenewalWindow.measure(CountingRedisBackend.TICKS, () -> serverFigures(redis),
                    () -> threads.getThreadCpuTime(keeper), leaseTime, name());
            List<TickLog.Tick> ticks = window.ticks();
            long keeperCpu = window.clientCpu();
            Map<String, Double> server0 = window.server0();
            Map<String, Double> server1 = window.server1();
            long start = window.start();
            long end = window.end();
            long lost = held.stream().filter(lease -> !lease.isValid()).count();
            held.forEach(Lease::release);

            Histogram tickLatency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            long renewed = 0;
            long roundTrips = 0;
            for (TickLog.Tick tick : ticks) {
                tickLatency.recordValue(tick.nanos());
                renewed += tick.leases();
                roundTrips += (tick.leases() + PIPELINE_CHUNK - 1) / PIPELINE_CHUNK;
            }
            int n = Math.max(1, ticks.size());
            double scripts = server1.get("scripts") - server0.get("scripts");
            Map<String, Double> extras = new LinkedHashMap<>();
            extras.put("leases", (double) leases);
            extras.put("ticks", (double) ticks.size());
            extras.put("leases per tick", (double) renewed / n);
            extras.put("round trips per tick", (double) roundTrips / n);
            extras.put("allowed per tick (1 per started 1000 leases)", Math.ceil(renewed / 1000.0 / n));
            extras.put("scripts per renewal", renewed == 0 ? Double.NaN : scripts / renewed);
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

    private static long keeperThread(ThreadMXBean threads) {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("distlock-bench-redis-keeper")) {
                return info.getThreadId();
            }
        }
        throw new IllegalStateException("no distlock-bench-redis-keeper thread");
    }

    /**
     * Script calls so far ({@code EVALSHA} and {@code EVAL}: the first script on a newly opened
     * connection goes as {@code EVAL}, see the Redis support's connections) and the server's CPU
     * seconds (user + system).
     */
    private static Map<String, Double> serverFigures(RedisServer redis) {
        double scripts = 0;
        for (String line : String.valueOf(redis.call("INFO", "commandstats")).split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                scripts += Double.parseDouble(calls.substring(0, calls.indexOf(',')));
            }
        }
        double[] counters = serverCounters(redis);
        return Map.of("scripts", scripts, "cpu", counters[0], "usec", counters[1]);
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
