package io.distlock.cli.bench;

import io.distlock.cli.report.Report;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Latencies recorded in nanoseconds (HdrHistogram, 3 significant digits) and turned into a report row:
 * percentiles, log-spaced buckets and the summary figures, in microseconds.
 */
public final class Figures {

    /** The percentiles every row reports; the last is the maximum. */
    public static final double[] PERCENTILES = {50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100};
    /** The most buckets a row's histogram has. */
    public static final int MAX_BUCKETS = 40;
    // Longer than any wait the bench allows (Bench.MAX_WAIT plus the timeouts); longer ones are clamped.
    static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(2);

    private Figures() {
    }

    /** @return an empty histogram of the bench's range and precision */
    static Histogram histogram() {
        return new Histogram(HIGHEST_NANOS, 3);
    }

    /** Records one latency, clamping what lies beyond the range rather than failing the row. */
    static void record(Histogram histogram, long nanos) {
        histogram.recordValue(Math.max(0, Math.min(nanos, HIGHEST_NANOS)));
    }

    /**
     * @param scenario  the row's label
     * @param floor     whether it is the raw floor
     * @param clients   how many clients ran it
     * @param latencies every operation's latency, ns
     * @param perSecond operations per second over the measuring window
     * @param shares    per-client counts (contended), else empty
     * @return the row
     */
    static Report.BenchRow row(String scenario, boolean floor, int clients, Histogram latencies, double perSecond,
                               List<Report.Share> shares) {
        return new Report.BenchRow(scenario, floor, clients, latencies.getTotalCount(), perSecond,
                micros(latencies.getValueAtPercentile(50)), micros(latencies.getValueAtPercentile(99)),
                micros(latencies.getValueAtPercentile(99.9)), micros(latencies.getMaxValue()),
                buckets(latencies), percentiles(latencies), shares);
    }

    /**
     * Log-spaced buckets from the fastest operation to the slowest: the first holds everything up to the
     * minimum, each next one is a constant factor wider, chosen so that there are at most
     * {@link #MAX_BUCKETS}. Empty buckets in between are kept (a histogram needs its gaps).
     */
    static List<Report.Bucket> buckets(Histogram latencies) {
        List<Report.Bucket> buckets = new ArrayList<>();
        if (latencies.getTotalCount() == 0) {
            return buckets;
        }
        // Just above the fastest value's equivalence range: a logarithmic step reports the values below
        // its level, so the fastest operation then lands in the first bucket, not the second.
        long lowest = latencies.highestEquivalentValue(latencies.getMinValue()) + 1;
        long highest = Math.max(lowest, latencies.getMaxValue());
        // MAX_BUCKETS - 3 steps: the first bucket, and room for the rounding of bucket edges to
        // HdrHistogram's equivalent values.
        double base = Math.max(1.01, Math.pow((double) highest / lowest, 1.0 / (MAX_BUCKETS - 3)));
        for (HistogramIterationValue v : latencies.logarithmicBucketValues(lowest, base)) {
            buckets.add(new Report.Bucket(micros(v.getValueIteratedTo()), v.getCountAddedInThisIterationStep()));
        }
        // Should the rounding still overshoot, merge neighbours rather than break the promise.
        while (buckets.size() > MAX_BUCKETS) {
            List<Report.Bucket> merged = new ArrayList<>();
            for (int i = 0; i < buckets.size(); i += 2) {
                Report.Bucket last = buckets.get(Math.min(i + 1, buckets.size() - 1));
                long count = buckets.get(i).count() + (i + 1 < buckets.size() ? last.count() : 0);
                merged.add(new Report.Bucket(last.upToMicros(), count));
            }
            buckets = merged;
        }
        return buckets;
    }

    /** @return the latency at each of {@link #PERCENTILES}, µs */
    static List<Report.Point> percentiles(Histogram latencies) {
        List<Report.Point> points = new ArrayList<>();
        if (latencies.getTotalCount() == 0) {
            return points;
        }
        for (double p : PERCENTILES) {
            long nanos = p >= 100 ? latencies.getMaxValue() : latencies.getValueAtPercentile(p);
            points.add(new Report.Point(p, micros(nanos)));
        }
        return points;
    }

    static double micros(long nanos) {
        return nanos / 1_000.0;
    }
}
