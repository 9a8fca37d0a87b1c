package io.distlock.cli.report;

import java.util.List;
import java.util.Objects;

/**
 * What one {@code distlock check} or {@code distlock bench} run saw, as its report shows it: the target,
 * the backend's declaration, the verdict of every rule that was considered, a timeline for every
 * contention rule, and the benchmark's rows. Plain data (nullable fields rather than {@code Optional}),
 * so that the JSON form is the model itself.
 *
 * @param command    {@code check} or {@code bench}
 * @param target     the URI audited, its user info and query removed (they may carry secrets)
 * @param backend    what the backend declares
 * @param startedAt  when the run started, ISO-8601 UTC
 * @param tookMillis how long it took
 * @param rules      every rule considered, in rule order (empty for bench)
 * @param timelines  one per contention history recorded (empty for bench)
 * @param bench      the benchmark's rows (empty for check)
 * @param passed     whether every rule that ran passed (check); whether every row completed (bench)
 * @param interrupted whether the run was cut short (Ctrl-C): its verdicts cover what ran
 */
public record Report(String command, String target, Backend backend, String startedAt, long tookMillis,
                     List<RuleResult> rules, List<Timeline> timelines, List<BenchRow> bench, boolean passed,
                     boolean interrupted) {

    /** Copies the lists; checks the references. */
    public Report {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(startedAt, "startedAt");
        rules = List.copyOf(rules);
        timelines = List.copyOf(timelines);
        bench = List.copyOf(bench);
    }

    /**
     * A backend's declaration.
     *
     * @param scheme    its URI scheme
     * @param guarantee {@code EFFICIENCY} or {@code CORRECTNESS}
     * @param features  the features it declares, by name
     */
    public record Backend(String scheme, String guarantee, List<String> features) {
        /** Copies the list. */
        public Backend {
            features = List.copyOf(features);
        }
    }

    /** A rule's outcome. */
    public enum Outcome {
        /** It ran and passed. */
        PASSED,
        /** It ran and failed: {@link RuleResult#detail()} says how. */
        FAILED,
        /** It did not apply (a feature the backend does not declare) or was not run; the detail says why. */
        SKIPPED
    }

    /**
     * One rule's verdict.
     *
     * @param id         its number in the TCK's SPEC.md, {@code 1.1}
     * @param title      what it checks
     * @param outcome    passed, failed or skipped
     * @param tookMillis how long it ran
     * @param detail     the failure's message, the skip's reason or what it measured; may be empty
     */
    public record RuleResult(String id, String title, Outcome outcome, long tookMillis, String detail) {
        /** Checks the references. */
        public RuleResult {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(title, "title");
            Objects.requireNonNull(outcome, "outcome");
            detail = detail == null ? "" : detail;
        }
    }

    /**
     * A contention run drawn as lanes, one per client. Times are nanoseconds since the run's origin.
     *
     * @param rule     the rule whose run it is, {@code 1.1}
     * @param lockName the lock they contended for
     * @param spanNanos the run's length (the last event)
     * @param clients  the lanes, in order
     * @param grants   every grant, a bar from grant to release (or to its validity's end if it was left to expire)
     * @param waits    every attempt that waited, drawn faintly
     * @param overlaps every instant two valid holders overlapped, drawn in red and listed
     * @param grantsRecorded how many grants the run recorded: a long run is drawn up to its first few hundred
     *                 grants only ({@code grants} is then shorter, and {@code spanNanos} ends where they do)
     * @param overlapsFound  how many overlaps the whole run had ({@code overlaps} lists those drawn)
     */
    public record Timeline(String rule, String lockName, long spanNanos, List<String> clients, List<Grant> grants,
                           List<Wait> waits, List<Overlap> overlaps, int grantsRecorded, int overlapsFound) {
        /** Copies the lists. */
        public Timeline {
            clients = List.copyOf(clients);
            grants = List.copyOf(grants);
            waits = List.copyOf(waits);
            overlaps = List.copyOf(overlaps);
        }
    }

    /**
     * One grant in a timeline.
     *
     * @param lease           its id in the history
     * @param client          its lane
     * @param fromNanos       when the acquire returned
     * @param toNanos         when its holder released it, or its validity's end if it was left to expire
     * @param validUntilNanos when the validity it promised at the grant ends
     * @param token           its fencing token, or null if the backend has none
     * @param expired         whether it was left to expire rather than released
     * @param writes          its holder's writes to the protected resource while it held the lock
     */
    public record Grant(long lease, String client, long fromNanos, long toNanos, long validUntilNanos, Long token,
                        boolean expired, List<Write> writes) {
        /** Copies the list. */
        public Grant {
            writes = List.copyOf(writes);
        }
    }

    /**
     * A write to the protected resource.
     *
     * @param atNanos  when the resource answered
     * @param accepted whether it accepted the write (a fenced resource refuses a stale token)
     */
    public record Write(long atNanos, boolean accepted) {
    }

    /**
     * An attempt that waited.
     *
     * @param client    its lane
     * @param fromNanos when it started
     * @param toNanos   when it returned
     * @param granted   whether it returned a lease
     */
    public record Wait(String client, long fromNanos, long toNanos, boolean granted) {
    }

    /**
     * Two valid holders at once: the safety violation the timeline exists to show.
     *
     * @param leaseA    one lease's id
     * @param leaseB    the other's
     * @param fromNanos when the overlap starts
     * @param toNanos   when it ends
     * @param message   the TCK's description of it
     */
    public record Overlap(long leaseA, long leaseB, long fromNanos, long toNanos, String message) {
    }

    /**
     * One benchmark scenario's figures.
     *
     * @param scenario     what was measured ("uncontended acquire + release", "contended, 4 clients", "raw floor: ...")
     * @param floor        whether this row is the raw protocol floor rather than distlock
     * @param clients      how many clients ran it at once
     * @param operations   how many operations completed
     * @param perSecond    operations per second over the measuring window
     * @param p50Micros    median latency of one operation, µs
     * @param p99Micros    99th percentile, µs
     * @param p999Micros   99.9th percentile, µs
     * @param maxMicros    the slowest, µs
     * @param histogram    latency buckets (upper bound in µs, count), for the histogram
     * @param percentiles  (percentile, µs) points, for the percentile plot
     * @param shares       operations per client (contended rows), to show fairness
     */
    public record BenchRow(String scenario, boolean floor, int clients, long operations, double perSecond,
                           double p50Micros, double p99Micros, double p999Micros, double maxMicros,
                           List<Bucket> histogram, List<Point> percentiles, List<Share> shares) {
        /** Copies the lists. */
        public BenchRow {
            histogram = List.copyOf(histogram);
            percentiles = List.copyOf(percentiles);
            shares = List.copyOf(shares);
        }
    }

    /**
     * @param upToMicros the bucket's upper bound, µs
     * @param count      how many operations fell in it
     */
    public record Bucket(double upToMicros, long count) {
    }

    /**
     * @param percentile the percentile, 0–100
     * @param micros     the latency at it, µs
     */
    public record Point(double percentile, double micros) {
    }

    /**
     * @param client     a client's label
     * @param operations how many it completed
     */
    public record Share(String client, long operations) {
    }
}
