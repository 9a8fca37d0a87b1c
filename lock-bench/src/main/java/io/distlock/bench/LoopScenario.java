package io.distlock.bench;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * A scenario whose operation runs back to back on one thread (uncontended acquire+release, the
 * raw floor): each operation's latency goes into an HdrHistogram; ops/s is operations over the
 * time the recorded slices took.
 */
abstract class LoopScenario implements Scenario {

    private final String name;
    private final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private final boolean onRedis;
    private long recordedNanos;
    private boolean recording;

    LoopScenario(String name) {
        this(name, true);
    }

    LoopScenario(String name, boolean onRedis) {
        this.name = name;
        this.onRedis = onRedis;
    }

    @Override
    public final boolean onRedis() {
        return onRedis;
    }

    /** One operation, e.g. acquire then release. Throws if it did not do what it should (a busy lock). */
    abstract void op() throws Exception;

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final void runSlice(long nanos, boolean record) throws Exception {
        recording = record;
        long start = System.nanoTime();
        long end = start + nanos;
        long now = start;
        while (now - end < 0) {
            op();
            long after = System.nanoTime();
            if (record) {
                histogram.recordValue(after - now);
            }
            now = after;
        }
        if (record) {
            recordedNanos += now - start;
        }
    }

    /** @return whether the slice now running is recorded (false during warm-up) */
    final boolean recording() {
        return recording;
    }

    @Override
    public Measurement result() {
        return new Measurement(name, histogram.getTotalCount() * 1e9 / Math.max(1, recordedNanos),
                histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(99),
                histogram.getValueAtPercentile(99.9), histogram.getTotalCount(), Map.of());
    }

    @Override
    public void reset() {
        histogram.reset();
        recordedNanos = 0;
    }
}
