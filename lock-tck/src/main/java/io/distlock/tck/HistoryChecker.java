package io.distlock.tck;

import io.distlock.tck.History.Event;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Judges a {@link History}: finds overlapping valid leases, fencing tokens that do not increase in
 * grant order, and writes of valid holders that a fenced resource rejected.
 *
 * <p>Every check is conservative (see {@link History} for how valid intervals are derived): a
 * violation it reports is one that a correct backend cannot produce, whatever the scheduling.
 * Leases whose valid interval is empty (they had expired by the time the acquire returned) take
 * part in no ordering check, because their grant order cannot be told from the history.
 */
public final class HistoryChecker {

    /**
     * One violation.
     *
     * @param kind    which property was violated
     * @param message what happened, naming the offending events
     * @param events  the offending events
     */
    public record Violation(Kind kind, String message, List<Event> events) {
        /** The properties a history is checked for. */
        public enum Kind {
            /** Two leases of one lock were valid at the same instant. */
            OVERLAPPING_LEASES,
            /** A later grant carried a fencing token not greater than an earlier one. */
            FENCING_ORDER,
            /** A fenced resource rejected a write made while the writer's lease was valid. */
            REJECTED_VALID_WRITE
        }

        /**
         * @param kind    which property was violated
         * @param message what happened
         * @param events  the offending events (copied)
         * @throws NullPointerException if a component is null
         */
        public Violation {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(message, "message");
            events = List.copyOf(events);
        }

        @Override
        public String toString() {
            return kind + ": " + message;
        }
    }

    private HistoryChecker() {
    }

    /**
     * @param history a history
     * @return every violation of every property, overlaps first
     */
    public static List<Violation> check(History history) {
        List<Violation> all = new ArrayList<>(overlappingLeases(history));
        all.addAll(fencingOrder(history));
        all.addAll(rejectedValidWrites(history));
        return all;
    }

    /**
     * Finds pairs of leases on one lock whose valid intervals overlap.
     *
     * @param history a history
     * @return one violation per overlapping pair found by a sweep in order of start
     */
    public static List<Violation> overlappingLeases(History history) {
        List<Violation> violations = new ArrayList<>();
        long origin = history.originNanos();
        for (List<Interval> lock : intervalsByLock(history).values()) {
            Interval reaching = null;
            for (Interval next : lock) {
                if (next.isEmpty()) {
                    continue;
                }
                if (reaching != null && next.start - reaching.end < 0) {
                    violations.add(new Violation(Violation.Kind.OVERLAPPING_LEASES,
                            "two valid leases at once on '" + next.acquired.lockName() + "' for "
                                    + millis(reaching.end - next.start) + ": " + reaching.describe(origin)
                                    + "  AND  " + next.describe(origin),
                            List.of(reaching.acquired, next.acquired)));
                }
                if (reaching == null || next.end - reaching.end > 0) {
                    reaching = next;
                }
            }
        }
        return violations;
    }

    /**
     * Checks that fencing tokens strictly increase in grant order (the order of the valid
     * intervals' starts), and that no two leases of one lock share a token.
     *
     * @param history a history
     * @return the violations; none for leases without tokens
     */
    public static List<Violation> fencingOrder(History history) {
        List<Violation> violations = new ArrayList<>();
        long origin = history.originNanos();
        for (List<Interval> lock : intervalsByLock(history).values()) {
            Map<Long, Interval> byToken = new HashMap<>();
            Interval previous = null;
            for (Interval next : lock) {
                if (next.acquired.fencingToken().isEmpty()) {
                    continue;
                }
                long token = next.acquired.fencingToken().getAsLong();
                Interval same = byToken.putIfAbsent(token, next);
                if (same != null) {
                    violations.add(new Violation(Violation.Kind.FENCING_ORDER,
                            "two grants carry the same fencing token " + token + ": " + same.describe(origin)
                                    + "  AND  " + next.describe(origin),
                            List.of(same.acquired, next.acquired)));
                    continue;
                }
                if (next.isEmpty()) {
                    continue;
                }
                if (previous != null && token <= previous.acquired.fencingToken().getAsLong()) {
                    violations.add(new Violation(Violation.Kind.FENCING_ORDER,
                            "fencing token did not increase: " + previous.describe(origin)
                                    + "  THEN  " + next.describe(origin),
                            List.of(previous.acquired, next.acquired)));
                }
                previous = next;
            }
        }
        return violations;
    }

    /**
     * Finds writes that the resource rejected although they were judged while the writer's lease
     * was valid (their recorded time, taken after the write returned, lies inside the valid interval).
     *
     * @param history a history
     * @return the violations
     */
    public static List<Violation> rejectedValidWrites(History history) {
        List<Violation> violations = new ArrayList<>();
        long origin = history.originNanos();
        Map<Long, Interval> byLease = new HashMap<>();
        intervalsByLock(history).values().forEach(l -> l.forEach(i -> byLease.put(i.acquired.lease(), i)));
        for (Event event : history.events()) {
            if (event.kind() != History.Kind.WRITE || event.accepted()) {
                continue;
            }
            Interval interval = byLease.get(event.lease());
            if (interval != null && interval.contains(event.nanoTime())) {
                violations.add(new Violation(Violation.Kind.REJECTED_VALID_WRITE,
                        "the resource rejected a write of a valid holder: " + event.describe(origin)
                                + " during " + interval.describe(origin),
                        List.of(interval.acquired, event)));
            }
        }
        return violations;
    }

    /**
     * @param violations what a check returned
     * @param limit      how many to show at most
     * @return the first {@code limit} violations, one a line, and how many more there were
     */
    public static String describe(List<Violation> violations, int limit) {
        String shown = violations.stream().limit(limit).map(v -> "  - " + v).collect(Collectors.joining("\n"));
        return violations.size() > limit ? shown + "\n  ... and " + (violations.size() - limit) + " more" : shown;
    }

    private static Map<String, List<Interval>> intervalsByLock(History history) {
        Map<Long, Interval> byLease = new LinkedHashMap<>();
        for (Event event : history.events()) {
            if (event.kind() == History.Kind.ACQUIRED) {
                byLease.put(event.lease(), new Interval(event));
            } else if (event.kind() == History.Kind.RELEASING) {
                Interval interval = byLease.get(event.lease());
                if (interval != null && event.nanoTime() - interval.end < 0) {
                    interval.end = Math.max(interval.start, event.nanoTime());
                    interval.releasedAt = event;
                }
            }
        }
        Map<String, List<Interval>> byLock = new LinkedHashMap<>();
        for (Interval interval : byLease.values()) {
            byLock.computeIfAbsent(interval.acquired.lockName(), k -> new ArrayList<>()).add(interval);
        }
        Comparator<Interval> byStart = Comparator.comparingLong((Interval i) -> i.start - history.originNanos())
                .thenComparingLong(i -> i.acquired.lease());
        byLock.values().forEach(l -> l.sort(byStart));
        return byLock;
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    /** A lease's valid interval [start, end). */
    private static final class Interval {
        final Event acquired;
        final long start;
        long end;
        Event releasedAt;

        Interval(Event acquired) {
            this.acquired = acquired;
            this.start = acquired.nanoTime();
            this.end = acquired.validUntilNanos() - start > 0 ? acquired.validUntilNanos() : start;
        }

        boolean isEmpty() {
            return end - start <= 0;
        }

        boolean contains(long nanos) {
            return nanos - start >= 0 && nanos - end < 0;
        }

        String describe(long origin) {
            String s = acquired.describe(origin);
            return releasedAt == null ? s : s + ", released at " + String.format(Locale.ROOT, "+%.3f ms",
                    (releasedAt.nanoTime() - origin) / 1e6);
        }
    }
}
