package io.distlock.cli.bench;

import io.distlock.cli.report.Report;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One client taking a lock and giving it back, back to back on one thread: each pair's latency, and
 * the acquire's alone, go into histograms. Runs in slices, so that two loops on the same server
 * (distlock's and the raw floor's) can take turns and share whatever else the machine does.
 */
final class PairLoop {

    /** One acquire and release. */
    @FunctionalInterface
    interface Pair {
        /**
         * @return {@link System#nanoTime()} when the acquire had its answer
         * @throws Exception if the pair did not do what it should (the lock was busy, the server failed)
         */
        long run() throws Exception;
    }

    private final String name;
    private final Pair pair;
    private final Histogram both = Figures.histogram();
    private final Histogram acquire = Figures.histogram();
    private long recordedNanos;
    private Exception failure;

    PairLoop(String name, Pair pair) {
        this.name = name;
        this.pair = pair;
    }

    String name() {
        return name;
    }

    /** @return what stopped it, or null while it runs */
    Exception failure() {
        return failure;
    }

    /**
     * Runs pairs for about {@code nanos}; a failure stops this loop for good (its row is then missing,
     * never half measured).
     *
     * @param record  false during warm-up
     * @param stopped checked before every pair (Ctrl-C)
     */
    void runSlice(long nanos, boolean record, BooleanSupplier stopped) {
        if (failure != null) {
            return;
        }
        long start = System.nanoTime();
        long end = start + nanos;
        long now = start;
        try {
            while (now - end < 0 && !stopped.getAsBoolean()) {
                long granted = pair.run();
                long after = System.nanoTime();
                if (record) {
                    Figures.record(both, after - now);
                    Figures.record(acquire, granted - now);
                }
                now = after;
            }
        } catch (Exception e) {
            failure = e;
        }
        if (record) {
            recordedNanos += now - start;
        }
    }

    /** @return the acquire + release row, then the acquire-alone row */
    List<Report.BenchRow> rows(String pairLabel, String acquireLabel, boolean floor) {
        double perSecond = both.getTotalCount() * 1e9 / Math.max(1, recordedNanos);
        return List.of(Figures.row(pairLabel, floor, 1, both, perSecond, List.of()),
                Figures.row(acquireLabel, floor, 1, acquire, perSecond, List.of()));
    }
}
