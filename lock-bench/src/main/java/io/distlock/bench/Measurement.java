package io.distlock.bench;

import java.util.Map;

/**
 * What one scenario measured in one run.
 *
 * @param name      the row's label
 * @param opsPerSec operations (or, contended, acquisitions) per second
 * @param p50       median latency in ns (contended: hand-off latency)
 * @param p99       99th percentile in ns
 * @param p999      99.9th percentile in ns
 * @param count     operations recorded
 * @param extras    further figures of the row (named; e.g. per-client spread, round trips per tick)
 */
record Measurement(String name, double opsPerSec, double p50, double p99, double p999, long count,
                   Map<String, Double> extras) {
}
