package io.distlock.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs scenarios interleaved: round after round, each scenario gets one slice, in an order that
 * rotates by one every round. Noise from outside (another build on this 2-core machine, a GC)
 * thus lands on every row alike, and ratios between rows measured side by side stay stable even
 * when absolute times move. The first rounds are warm-up (JIT, connection pools, script caches)
 * and recorded nowhere.
 *
 * <p>Around every recorded slice it also reads this JVM's CPU time and the servers' (CPU, and the
 * time spent executing commands, Lua included), so each row says what one operation cost the
 * client and the server — on a 2-core machine that the two share, CPU is latency.
 *
 * <p>Why not JMH: JMH runs its benchmarks one after the other, so on a shared 2-core machine a
 * burst of outside load shifts one row and not the next, and the ratios between rows — the only
 * thing the bench claims — move with it. Measured here with {@code --sequential} (this harness
 * ordered the way JMH orders trials) against the default, 3 runs each under the same load: the
 * distlock/pair p50 ratio ranged 0.33–3.11 sequential and 1.17–1.18 interleaved (BENCHMARKS.md).
 */
final class Harness {

    private final int warmUpRounds;
    private final int rounds;
    private final long sliceNanos;
    private final boolean sequential;

    /**
     * @param sequential false (the bench's way): interleave the rows; true: run each row's rounds
     *                   back to back, one row after the other, as JMH would — kept to show the
     *                   difference ({@code --sequential})
     */
    Harness(int warmUpRounds, int rounds, long sliceNanos, boolean sequential) {
        this.warmUpRounds = warmUpRounds;
        this.rounds = rounds;
        this.sliceNanos = sliceNanos;
        this.sequential = sequential;
    }

    /**
     * @param scenarios        the rows, reset first
     * @param serverCounters   the servers' CPU seconds so far (user + system) and the microseconds
     *                         they spent executing commands ({@code INFO commandstats}), read
     *                         between slices
     * @return one measurement per scenario, in the given order
     * @throws Exception the first failure of a scenario
     */
    List<Measurement> run(List<? extends Scenario> scenarios, Supplier<double[]> serverCounters) throws Exception {
        scenarios.forEach(Scenario::reset);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<Scenario, double[]> cpu = new IdentityHashMap<>();
        int n = scenarios.size();
        int total = warmUpRounds + rounds;
        for (int step = 0; step < total * n; step++) {
            int round = sequential ? step % total : step / n;
            Scenario scenario = sequential ? scenarios.get(step / total) : scenarios.get((step % n + round) % n);
            boolean record = round >= warmUpRounds;
            double[] server = record ? serverCounters.get() : null;
            long client = os.getProcessCpuTime();
            scenario.runSlice(sliceNanos, record);
            if (record) {
                long clientAfter = os.getProcessCpuTime();
                double[] serverAfter = serverCounters.get();
                double[] sums = cpu.computeIfAbsent(scenario, s -> new double[3]);
                sums[0] += clientAfter - client;
                sums[1] += (serverAfter[0] - server[0]) * 1e9;
                sums[2] += (serverAfter[1] - server[1]) * 1e3;
            }
        }
        List<Measurement> results = new ArrayList<>(n);
        for (Scenario scenario : scenarios) {
            Measurement m = scenario.result();
            double[] sums = cpu.getOrDefault(scenario, new double[3]);
            Map<String, Double> extras = new LinkedHashMap<>(m.extras());
            extras.put("client CPU µs/op", sums[0] / 1e3 / Math.max(1, m.count()));
            if (scenario.onRedis()) {
                extras.put("server CPU µs/op", sums[1] / 1e3 / Math.max(1, m.count()));
                extras.put("server command µs/op", sums[2] / 1e3 / Math.max(1, m.count()));
            }
            results.add(new Measurement(m.name(), m.opsPerSec(), m.p50(), m.p99(), m.p999(), m.count(), extras));
        }
        return results;
    }

    @Override
    public String toString() {
        return warmUpRounds + " warm-up + " + rounds + " measured rounds of " + sliceNanos / 1_000_000 + " ms slices"
                + (sequential ? ", SEQUENTIAL (each row's rounds back to back)" : ", interleaved");
    }
}
