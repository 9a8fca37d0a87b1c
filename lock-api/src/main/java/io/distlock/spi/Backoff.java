package io.distlock.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before trying again: the one retry policy of the engine, and of drivers that
 * retry within an operation. Every retry in the engine is one of these — an acquire that found the
 * lock busy (without notifications) or got no answer ({@link io.distlock.LockOptions.Builder#retryBackoff}),
 * a removal the server did not confirm, a renewal whose outcome is unknown, the repeat of a removal
 * while a late write may still land ({@link LockDriver#LATE_WRITE_REPEAT}).
 *
 * <p>An exponential back-off doubles from its minimum after each failure up to its maximum, with
 * "equal jitter": half of the delay fixed, half at random, so that clients woken together do not
 * retry in lockstep and none retries sooner than half the delay. A fixed back-off always waits the
 * same. Instances are immutable and thread-safe.
 */
public final class Backoff {

    /** A failure count past which the doubling stops growing (2^20 times the minimum is past any maximum here). */
    private static final int MAX_DOUBLINGS = 20;

    private final long minNanos;
    private final long maxNanos;
    private final boolean jitter;

    private Backoff(long minNanos, long maxNanos, boolean jitter) {
        this.minNanos = minNanos;
        this.maxNanos = maxNanos;
        this.jitter = jitter;
    }

    /**
     * @param min the delay after the first failure (before jitter)
     * @param max the longest delay (before jitter)
     * @return a back-off that doubles from {@code min} to {@code max}, with equal jitter
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code min} is not positive or {@code max} is below it
     */
    public static Backoff exponential(Duration min, Duration max) {
        Objects.requireNonNull(min, "min");
        Objects.requireNonNull(max, "max");
        if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("a back-off needs 0 < min <= max: min=" + min + ", max=" + max);
        }
        return new Backoff(min.toNanos(), max.toNanos(), true);
    }

    /**
     * @param delay the delay, every time
     * @return a back-off that always waits {@code delay}, without jitter
     * @throws NullPointerException     if {@code delay} is null
     * @throws IllegalArgumentException if {@code delay} is not positive
     */
    public static Backoff fixed(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("a fixed back-off needs a positive delay: " + delay);
        }
        return new Backoff(delay.toNanos(), delay.toNanos(), false);
    }

    /**
     * @param failures how many tries in a row have failed so far, at least 1 (0 counts as 1)
     * @return how long to wait before the next try, in nanoseconds
     */
    public long delayNanos(int failures) {
        return delayNanos(failures, Long.MAX_VALUE);
    }

    /**
     * @param failures     how many tries in a row have failed so far, at least 1 (0 counts as 1)
     * @param ceilingNanos a lower maximum for this delay (before jitter), if the caller has one
     * @return how long to wait before the next try, in nanoseconds
     */
    public long delayNanos(int failures, long ceilingNanos) {
        long ceiling = Math.min(maxNanos, Math.max(1, ceilingNanos));
        long exponential = minNanos << Math.min(Math.max(0, failures - 1), MAX_DOUBLINGS);
        long delay = exponential <= 0 || exponential > ceiling ? ceiling : exponential;
        return jitter ? delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1) : delay;
    }

    /** @return the delay after the first failure (before jitter) */
    public Duration min() {
        return Duration.ofNanos(minNanos);
    }

    /** @return the longest delay (before jitter) */
    public Duration max() {
        return Duration.ofNanos(maxNanos);
    }

    @Override
    public String toString() {
        return jitter ? "Backoff[" + min() + " doubling to " + max() + ", jittered]" : "Backoff[" + min() + " fixed]";
    }
}
