package io.distlock.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * A loop scenario whose operation has two steps, each one request to the server (acquire, then
 * release): besides the whole operation's latency, each step's is kept, so a row says which step
 * its time goes to ({@code "<step> p50 µs"} in the notes). Timing a step costs two
 * {@link System#nanoTime()} reads, tens of nanoseconds.
 */
abstract class TwoStepScenario extends LoopScenario {

    private final String firstStep;
    private final String secondStep;
    private final Histogram first = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private final Histogram second = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);

    /**
     * @param firstStep  the first step's name in the notes, e.g. {@code "acquire"}
     * @param secondStep the second step's
     */
    TwoStepScenario(String name, String firstStep, String secondStep) {
        this(name, false, firstStep, secondStep);
    }

    /**
     * @param onRedis    whether the row's server is one of the bench's Redis servers (its CPU and
     *                   command time are then counted, {@link Scenario#onRedis()})
     * @param firstStep  the first step's name in the notes
     * @param secondStep the second step's
     */
    TwoStepScenario(String name, boolean onRedis, String firstStep, String secondStep) {
        super(name, onRedis);
        this.firstStep = firstStep;
        this.secondStep = secondStep;
    }

    /**
     * @return what {@link #second} needs (the key, the lease)
     * @throws Exception if it failed, or did not do what it should (a busy lock)
     */
    abstract Object first() throws Exception;

    /** @param held what {@link #first} returned */
    abstract void second(Object held) throws Exception;

    @Override
    final void op() throws Exception {
        long start = System.nanoTime();
        Object held = first();
        long between = System.nanoTime();
        second(held);
        long end = System.nanoTime();
        if (recording()) {
            first.recordValue(between - start);
            second.recordValue(end - between);
        }
    }

    @Override
    public Measurement result() {
        Measurement m = super.result();
        Map<String, Double> extras = new LinkedHashMap<>(m.extras());
        extras.put(firstStep + " p50 µs", first.getValueAtPercentile(50) / 1e3);
        extras.put(secondStep + " p50 µs", second.getValueAtPercentile(50) / 1e3);
        return new Measurement(m.name(), m.opsPerSec(), m.p50(), m.p99(), m.p999(), m.count(), extras);
    }

    @Override
    public void reset() {
        super.reset();
        first.reset();
        second.reset();
    }
}
