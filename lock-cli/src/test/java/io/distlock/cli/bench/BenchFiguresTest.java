package io.distlock.cli.bench;

import io.distlock.cli.report.Report;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** A histogram's row: at most 40 log-spaced buckets holding every operation, and ordered percentiles. */
class BenchFiguresTest {

    @Test
    void aWideSpreadFitsInFortyBucketsThatHoldEveryOperation() {
        Histogram h = Figures.histogram();
        // 20 µs to 30 s: more than six decades, the widest a bench row can see.
        Figures.record(h, 20_000);
        Figures.record(h, 30_000_000_000L);
        for (int i = 0; i < 10_000; i++) {
            Figures.record(h, (long) (20_000 * Math.exp(ThreadLocalRandom.current().nextDouble() * 14)));
        }

        List<Report.Bucket> buckets = Figures.buckets(h);

        assertThat(buckets).hasSizeBetween(30, Figures.MAX_BUCKETS);
        assertThat(buckets.stream().mapToLong(Report.Bucket::count).sum()).isEqualTo(h.getTotalCount());
        assertThat(buckets).extracting(Report.Bucket::upToMicros).isSorted().doesNotHaveDuplicates();
        assertThat(buckets.get(0).count()).as("the fastest operation is in the first bucket").isPositive();
        // Log-spaced: each bucket is the same factor wider than the one before (within the rounding).
        double first = buckets.get(2).upToMicros() / buckets.get(1).upToMicros();
        double last = buckets.get(buckets.size() - 1).upToMicros() / buckets.get(buckets.size() - 2).upToMicros();
        assertThat(last).isCloseTo(first, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void oneValueIsOneBucketAndEveryPercentileIsIt() {
        Histogram h = Figures.histogram();
        Figures.record(h, 123_000);

        Report.BenchRow row = Figures.row("one", false, 1, h, 1.0, List.of());

        assertThat(row.histogram()).hasSize(1);
        assertThat(row.histogram().get(0).count()).isOne();
        assertThat(row.percentiles()).hasSize(Figures.PERCENTILES.length)
                .allSatisfy(p -> assertThat(p.micros()).isEqualTo(row.maxMicros()));
        assertThat(row.p50Micros()).isCloseTo(123.0, org.assertj.core.data.Offset.offset(0.2));
    }

    @Test
    void anEmptyHistogramHasNoBucketsAndNoPoints() {
        Report.BenchRow row = Figures.row("none", false, 1, Figures.histogram(), 0, List.of());

        assertThat(row.histogram()).isEmpty();
        assertThat(row.percentiles()).isEmpty();
        assertThat(row.operations()).isZero();
    }

    @Test
    void aLatencyBeyondTheRangeIsClampedNotFatal() {
        Histogram h = Figures.histogram();
        Figures.record(h, Long.MAX_VALUE);

        assertThat(h.getMaxValue()).isGreaterThanOrEqualTo(Figures.HIGHEST_NANOS);
        assertThat(h.getTotalCount()).isOne();
    }
}
