package io.distlock.tck;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

import java.time.Duration;
import java.util.Optional;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Every lease time, wait and tolerance the TCK's rules use, scaled by one multiplier, plus helpers
 * that wait for a condition (never a fixed sleep).
 *
 * <p>The multiplier is read from the system property {@value #TIMEOUT_FACTOR_PROPERTY} (default
 * 1; the Maven build passes it). Raise it on a slow or loaded machine: every lease, timeout and
 * tolerance grows together, so the rules keep their proportions. Override
 * {@link LockVerification#environment()} to supply another environment, for example one built
 * with {@link #TestEnvironment(double)}.
 *
 * <p>Immutable and thread-safe.
 */
public class TestEnvironment {

    /** The system property holding the timeout multiplier. */
    public static final String TIMEOUT_FACTOR_PROPERTY = "distlock.tck.timeoutFactor";

    private static final Duration POLL_INTERVAL = Duration.ofMillis(5);

    private final double timeoutFactor;

    /**
     * An environment scaled by the system property {@value #TIMEOUT_FACTOR_PROPERTY}.
     *
     * @throws IllegalArgumentException if the property is set but is not a number in (0, 100]
     */
    public TestEnvironment() {
        this(timeoutFactorFromSystemProperty());
    }

    /**
     * @param timeoutFactor multiplies every duration; in (0, 100]
     * @throws IllegalArgumentException if out of range
     */
    public TestEnvironment(double timeoutFactor) {
        if (!(timeoutFactor > 0 && timeoutFactor <= 100)) {
            throw new IllegalArgumentException(TIMEOUT_FACTOR_PROPERTY + " must be in (0, 100], was " + timeoutFactor);
        }
        this.timeoutFactor = timeoutFactor;
    }

    private static double timeoutFactorFromSystemProperty() {
        String value = System.getProperty(TIMEOUT_FACTOR_PROPERTY);
        if (value == null || value.isBlank()) {
            return 1;
        }
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(TIMEOUT_FACTOR_PROPERTY + " is not a number: '" + value + "'", e);
        }
    }

    /** @return the multiplier applied to every duration */
    public double timeoutFactor() {
        return timeoutFactor;
    }

    /**
     * @param base a duration meant for a fast, idle machine
     * @return {@code base} multiplied by {@link #timeoutFactor()}
     */
    public Duration scaled(Duration base) {
        return Duration.ofNanos(Math.round(base.toNanos() * timeoutFactor));
    }

    /** @return the lease time of leases a rule waits out: 300 ms, scaled */
    public Duration shortLease() {
        return scaled(Duration.ofMillis(300));
    }

    /** @return the lease time of leases that must not expire during a rule (the rule releases them): 10 s, scaled */
    public Duration longLease() {
        return scaled(Duration.ofSeconds(10));
    }

    /** @return the lease time used by contention runs (rules 1.1, 1.4, 1.7): 100 ms, scaled */
    public Duration contentionLease() {
        return scaled(Duration.ofMillis(100));
    }

    /** @return the {@code maxWait} of the waiting rounds of a contention run: 20 ms, scaled */
    public Duration contentionWait() {
        return scaled(Duration.ofMillis(20));
    }

    /** @return how many independent clients contend in a contention run: 8 */
    public int contentionClients() {
        return 8;
    }

    /**
     * @return how many auto-renewed leases rule 3.6 holds on one client: 500, not scaled. A renewal tick
     *         that costs one round trip per lease outlasts what is left of the rule's 900 ms lease after
     *         the engine's renewal point (a third in) once a round trip passes 1.2 ms
     */
    public int renewedLeases() {
        return 500;
    }

    /** @return how many acquire attempts each contending client makes: 200 */
    public int contentionRounds() {
        return 200;
    }

    /**
     * How long a contention run lasts, when it is bounded by time rather than by rounds: each contender
     * stops at its end, or after {@link #contentionRounds()}, whichever comes first. A live audit
     * ({@code distlock check --duration}) sets it; {@link #contentionTimeout()} must then leave room for it.
     *
     * @return empty by default: a run is bounded by its rounds
     */
    public Optional<Duration> contentionDuration() {
        return Optional.empty();
    }

    /** @return the longest a whole contention run may take: 30 s, scaled */
    public Duration contentionTimeout() {
        return scaled(Duration.ofSeconds(30));
    }

    /** @return a {@code maxWait} a rule expects to run out: 300 ms, scaled */
    public Duration shortWait() {
        return scaled(Duration.ofMillis(300));
    }

    /** @return the longest wait for something that should happen: 5 s, scaled */
    public Duration defaultTimeout() {
        return scaled(Duration.ofSeconds(5));
    }

    /**
     * @return slack for timing assertions (scheduling, retry back-off, a notification's way
     *         through the backend): 250 ms, scaled
     */
    public Duration tolerance() {
        return scaled(Duration.ofMillis(250));
    }

    /** @return the longest a waiter may take to get a lock after its holder released it: 1 s, scaled */
    public Duration handOffTimeout() {
        return scaled(Duration.ofSeconds(1));
    }

    /**
     * @return the longest a waiter woken by the backend's notification may take to get a released
     *         lock (rule 2.9): 300 ms, scaled — well under the engine's fallback poll of once a second
     */
    public Duration notifiedHandOff() {
        return scaled(Duration.ofMillis(300));
    }

    /** @return the connect and operation timeout given to clients of an unreachable server (rule 5.5): 1 s, scaled */
    public Duration connectTimeout() {
        return scaled(Duration.ofSeconds(1));
    }

    /** @return how often the waiting helpers check their condition: 5 ms, not scaled */
    public Duration pollInterval() {
        return POLL_INTERVAL;
    }

    /**
     * @param startNanos a {@link System#nanoTime()} reading
     * @return the time passed since then
     */
    public static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /**
     * Waits until {@code condition} is true, checking every {@link #pollInterval()}.
     *
     * @param what      what is awaited, for the failure message
     * @param atMost    the longest to wait
     * @param condition checked on the calling thread; an exception or error it throws ends the wait
     * @throws AssertionError if the condition did not become true in time
     */
    public void awaitUntil(String what, Duration atMost, BooleanSupplier condition) {
        Objects.requireNonNull(condition, "condition");
        try {
            conditionFactory(what, atMost).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what + " — timed out after " + millis(atMost), e);
        }
    }

    /**
     * Waits until {@code condition} is true or {@code atMost} has passed, whichever comes first,
     * checking every {@link #pollInterval()}: for something that may or may not happen, such as a
     * request a client may still send from a thread of its own.
     *
     * @param atMost    the longest to wait
     * @param condition checked on the calling thread; an exception or error it throws ends the wait
     * @return whether the condition became true
     */
    public boolean awaitPossibly(Duration atMost, BooleanSupplier condition) {
        Objects.requireNonNull(condition, "condition");
        try {
            conditionFactory("something that may happen", atMost).until(condition::getAsBoolean);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    /**
     * Waits up to {@link #defaultTimeout()} until {@code condition} is true.
     *
     * @param what      what is awaited, for the failure message
     * @param condition checked on the calling thread
     * @throws AssertionError if the condition did not become true in time
     */
    public void awaitUntil(String what, BooleanSupplier condition) {
        awaitUntil(what, defaultTimeout(), condition);
    }

    /**
     * Checks {@code invariant} every {@link #pollInterval()} until {@code System.nanoTime()} reaches
     * {@code untilNanos}, failing at the first check that finds it false <em>and</em> ended before
     * {@code untilNanos}. A check that straddles the end proves nothing either way (a probe that
     * acquires just after a lease ended is legitimate) and ends the checking.
     *
     * @param what       the invariant, for the failure message
     * @param untilNanos a {@link System#nanoTime()} reading at which checking stops
     * @param invariant  checked on the calling thread
     * @throws AssertionError if the invariant was false at some check
     */
    public void assertHoldsUntil(String what, long untilNanos, BooleanSupplier invariant) {
        Objects.requireNonNull(invariant, "invariant");
        long startNanos = System.nanoTime();
        Duration span = Duration.ofNanos(Math.max(0, untilNanos - startNanos));
        // Slack for one slow check (a round trip to a loaded server) past the end.
        Duration atMost = span.plus(defaultTimeout());
        try {
            conditionFactory(what, atMost).until(() -> {
                if (System.nanoTime() - untilNanos >= 0) {
                    return true;
                }
                boolean holds = invariant.getAsBoolean();
                long checked = System.nanoTime();
                if (!holds && checked - untilNanos < 0) {
                    throw new AssertionError(what + " — violated after " + millis(since(startNanos)));
                }
                return !holds || checked - untilNanos >= 0;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what + " — checking took longer than " + millis(atMost), e);
        }
    }

    /**
     * Checks {@code invariant} for {@code span}, failing at the first check that finds it false.
     *
     * @param what      the invariant, for the failure message
     * @param span      how long to keep checking
     * @param invariant checked on the calling thread, at least once
     * @throws AssertionError if the invariant was false at some check
     */
    public void assertHoldsFor(String what, Duration span, BooleanSupplier invariant) {
        assertHoldsUntil(what, System.nanoTime() + span.toNanos(), invariant);
    }

    private ConditionFactory conditionFactory(String what, Duration atMost) {
        return Awaitility.await(what)
                .pollInSameThread()
                .pollDelay(Duration.ZERO)
                .pollInterval(pollInterval())
                .atMost(atMost);
    }

    /**
     * @param d a duration
     * @return it in milliseconds, for messages ({@code "312.5 ms"})
     */
    public static String millis(Duration d) {
        return String.format(Locale.ROOT, "%.1f ms", d.toNanos() / 1e6);
    }

    @Override
    public String toString() {
        return "TestEnvironment[timeoutFactor=" + timeoutFactor + ", shortLease=" + millis(shortLease())
                + ", defaultTimeout=" + millis(defaultTimeout()) + ", tolerance=" + millis(tolerance()) + "]";
    }
}
