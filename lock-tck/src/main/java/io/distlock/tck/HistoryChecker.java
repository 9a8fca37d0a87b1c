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
            REJECTED_VALID_WRITE,
            /** More leases of one semaphore were valid at one instant than it has permits. */
            TOO_MANY_HOLDERS,
            /** A write lease was valid at the same instant as another lease of its read-write lock, read or write. */
            WRITER_NOT_ALONE
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
     * Finds the instants at which more than {@code permits} leases of one lock (a semaphore's permits,
     * recorded under its name) were valid at once: a sweep over the valid intervals' ends and starts (an
     * interval that ends where another starts does not overlap it).
     *
     * @param history a history
     * @param permits how many leases of each lock may be valid at once
     * @return one violation per excess: each time the count of valid leases rises above {@code permits},
     *         naming the leases valid at that instant
     */
    public static List<Violation> moreHoldersThan(History history, int permits) {
        List<Violation> violations = new ArrayList<>();
        long origin = history.originNanos();
        for (List<Interval> lock : intervalsByLock(history).values()) {
            List<Interval> valid = new ArrayList<>();
            for (Interval next : lock) {
                if (next.isEmpty()) {
                    continue;
                }
                valid.removeIf(held -> held.end - next.start <= 0);
                valid.add(next);
                if (valid.size() > permits) {
                    violations.add(new Violation(Violation.Kind.TOO_MANY_HOLDERS, valid.size() + " leases of '"
                            + next.acquired.lockName() + "' valid at once (at most " + permits + "): " + valid.stream()
                            .map(i -> i.describe(origin)).collect(Collectors.joining("  AND  ")),
                            valid.stream().map(i -> i.acquired).toList()));
                }
            }
        }
        return violations;
    }

    /**
     * @param history  a history
     * @param lockName the name leases are recorded under
     * @return the most of them that were valid at one instant (0 if none was recorded)
     */
    public static int mostValidAtOnce(History history, String lockName) {
        int most = 0;
        List<Interval> valid = new ArrayList<>();
        for (Interval next : intervalsByLock(history).getOrDefault(lockName, List.of())) {
            if (next.isEmpty()) {
                continue;
            }
            valid.removeIf(held -> held.end - next.start <= 0);
            valid.add(next);
            most = Math.max(most, valid.size());
        }
        return most;
    }

    /**
     * Finds write leases that were valid at the same instant as another lease of their read-write lock:
     * a reader (its leases recorded under {@code readLock}) or another writer ({@code writeLock}).
     *
     * @param history   a history
     * @param readLock  the name the read leases are recorded under
     * @param writeLock the name the write leases are recorded under
     * @return one violation per overlapping pair
     */
    public static List<Violation> writerNotAlone(History history, String readLock, String writeLock) {
        List<Violation> violations = new ArrayList<>();
        long origin = history.originNanos();
        List<Interval> all = readWrite(history, readLock, writeLock);
        for (int i = 0; i < all.size(); i++) {
            Interval a = all.get(i);
            for (int j = i + 1; j < all.size() && all.get(j).start - a.end < 0; j++) {
                Interval b = all.get(j);
                boolean aWrites = a.acquired.lockName().equals(writeLock);
                boolean bWrites = b.acquired.lockName().equals(writeLock);
                if ((aWrites || bWrites) && !a.isEmpty() && !b.isEmpty()) {
                    violations.add(new Violation(Violation.Kind.WRITER_NOT_ALONE,
                            (aWrites && bWrites ? "two writers" : "a reader and a writer") + " valid at once for "
                                    + millis(Math.min(a.end, b.end) - b.start) + ": " + a.describe(origin) + "  AND  "
                                    + b.describe(origin),
                            List.of(a.acquired, b.acquired)));
                }
            }
        }
        return violations;
    }

    /**
     * Checks one fencing order for a read-write lock's two sides: in grant order (the valid intervals'
     * starts), a writer's token is above every token granted before it, and every token granted after a
     * writer is above the writer's. Readers among themselves may be in any order (they hold at once).
     *
     * @param history   a history
     * @param readLock  the name the read leases are recorded under
     * @param writeLock the name the write leases are recorded under
     * @return the violations; none for leases without tokens
     */
    public static List<Violation> readWriteFencingOrder(History history, String readLock, String writeLock) {
        List<Violation> violations = new ArrayList<>();
        long origin = history.originNanos();
        Interval highest = null;
        Interval lastWriter = null;
        for (Interval next : readWrite(history, readLock, writeLock)) {
            if (next.acquired.fencingToken().isEmpty() || next.isEmpty()) {
                continue;
            }
            long token = next.acquired.fencingToken().getAsLong();
            boolean writes = next.acquired.lockName().equals(writeLock);
            Interval above = writes ? highest : lastWriter;
            if (above != null && token <= above.acquired.fencingToken().getAsLong()) {
                violations.add(new Violation(Violation.Kind.FENCING_ORDER, "fencing token did not increase past "
                        + (writes ? "every earlier grant's" : "the last writer's") + ": " + above.describe(origin)
                        + "  THEN  " + next.describe(origin), List.of(above.acquired, next.acquired)));
            }
            if (highest == null || token > highest.acquired.fencingToken().getAsLong()) {
                highest = next;
            }
            if (writes) {
                lastWriter = next;
            }
        }
        return violations;
    }

    /** The intervals of both sides of a read-write lock, in order of start. */
    private static List<Interval> readWrite(History history, String readLock, String writeLock) {
        Map<String, List<Interval>> byLock = intervalsByLock(history);
        List<Interval> all = new ArrayList<>(byLock.getOrDefault(readLock, List.of()));
        all.addAll(byLock.getOrDefault(writeLock, List.of()));
        all.sort(Comparator.comparingLong((Interval i) -> i.start - history.originNanos()).thenComparingLong(i -> i.acquired.lease()));
        return all;
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
