package io.distlock.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Collects the measurements of several runs and prints one markdown table: per cell the median
 * over the runs and, with more than one run, the range (min–max). The ratio columns divide each
 * row's p50 and p99 by the floor pair's, within the same run, before taking the median.
 */
final class Report {

    static final String PAIR = "floor: raw SET NX PX + EVALSHA compare-and-delete";

    private final Map<String, List<Measurement>> rows = new LinkedHashMap<>();
    private final List<Map<String, Measurement>> runs = new ArrayList<>();
    private String environment = "";

    /** @param environment the machine, versions and harness settings the runs were made with */
    void environment(String environment) {
        this.environment = environment;
    }

    /** @return the machine, versions and harness settings the runs were made with */
    String environment() {
        return environment;
    }

    /** Adds one run's measurements (one per row). */
    void addRun(List<Measurement> measurements) {
        Map<String, Measurement> run = new LinkedHashMap<>();
        for (Measurement m : measurements) {
            rows.computeIfAbsent(m.name(), k -> new ArrayList<>()).add(m);
            run.put(m.name(), m);
        }
        runs.add(run);
    }

    /** @return the rows, in the order they were first added */
    List<String> rowNames() {
        return List.copyOf(rows.keySet());
    }

    /** @return the single-Redis scale row's label (it carries the number of leases), or {@code "scale:"} if there is none */
    String scaleRow() {
        return scaleRow("(distlock single Redis)");
    }

    /**
     * @param backend how the row's label ends, e.g. {@code "(distlock etcd)"}
     * @return that scale row's label, or {@code "scale:"} if there is none
     */
    String scaleRow(String backend) {
        return rows.keySet().stream().filter(n -> n.startsWith("scale:") && n.endsWith(backend)).findFirst().orElse("scale:");
    }

    /** @return every measurement of {@code row}, one per run */
    List<Measurement> row(String row) {
        return rows.getOrDefault(row, List.of());
    }

    /**
     * @param row  a row
     * @param ofP99 true for the p99 ratio, false for p50
     * @return the row's latency over the pair's, per run
     */
    double[] ratios(String row, boolean ofP99) {
        return ratios(row, PAIR, ofP99);
    }

    /**
     * @param row   a row
     * @param over  the row it is divided by (a peer, a floor)
     * @param ofP99 true for the p99 ratio, false for p50
     * @return the row's latency over {@code over}'s, per run in which both were measured
     */
    double[] ratios(String row, String over, boolean ofP99) {
        List<Double> out = new ArrayList<>();
        for (Map<String, Measurement> run : runs) {
            Measurement m = run.get(row);
            Measurement pair = run.get(over);
            if (m != null && pair != null) {
                out.add(ofP99 ? m.p99() / pair.p99() : m.p50() / pair.p50());
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("| scenario | ops/s | p50 µs | p99 µs | p99.9 µs | p50 × pair | p99 × pair | notes |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (Map.Entry<String, List<Measurement>> row : rows.entrySet()) {
            List<Measurement> ms = row.getValue();
            boolean scale = row.getKey().startsWith("scale:") || row.getKey().startsWith("footprint:");
            out.append("| ").append(row.getKey())
                    .append(" | ").append(cell(ms, Measurement::opsPerSec, 1, 0))
                    .append(" | ").append(cell(ms, Measurement::p50, 1e3, 1))
                    .append(" | ").append(cell(ms, Measurement::p99, 1e3, 1))
                    .append(" | ").append(cell(ms, Measurement::p999, 1e3, 1))
                    .append(" | ").append(scale ? "—" : cell(ratios(row.getKey(), false), 2))
                    .append(" | ").append(scale ? "—" : cell(ratios(row.getKey(), true), 2))
                    .append(" | ").append(notes(ms)).append(" |\n");
        }
        return out.toString();
    }

    private static String notes(List<Measurement> ms) {
        List<String> parts = new ArrayList<>();
        for (String key : ms.get(0).extras().keySet()) {
            double[] values = ms.stream().mapToDouble(m -> m.extras().getOrDefault(key, Double.NaN)).toArray();
            parts.add(key + " " + cell(values, key.contains("µs") || key.contains("ms") || key.contains("%") ? 1
                    : key.contains("per") ? 2 : 0));
        }
        return String.join("; ", parts);
    }

    private static String cell(List<Measurement> ms, ToDoubleFunction<Measurement> f, double divisor, int decimals) {
        return cell(ms.stream().mapToDouble(m -> f.applyAsDouble(m) / divisor).toArray(), decimals);
    }

    /** The median, and with more than one value the range: {@code 111.2 (108.0–115.3)}. */
    static String cell(double[] values, int decimals) {
        if (values.length == 0) {
            return "—";
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        String median = format(median(sorted), decimals);
        if (sorted.length == 1) {
            return median;
        }
        return median + " (" + format(sorted[0], decimals) + "–" + format(sorted[sorted.length - 1], decimals) + ")";
    }

    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String format(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
