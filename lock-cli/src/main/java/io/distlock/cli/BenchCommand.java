package io.distlock.cli;

import io.distlock.LockOptions;
import io.distlock.cli.bench.Bench;
import io.distlock.cli.bench.FloorPlan;
import io.distlock.cli.bench.Progress;
import io.distlock.cli.report.Report;
import io.distlock.cli.report.ReportWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code distlock bench URI}: measures a live backend through the library — one client uncontended,
 * N clients contending for one lock — and, on a single Redis-protocol server, the raw floor
 * ({@code SET NX PX} + compare-and-delete by plain Jedis) beside it, then prints a table (or, with
 * {@code --json}, the {@link Report}). Every name it uses lies under {@code distlock-bench/<8 hex>/}
 * with 2-second leases; a Ctrl-C stops it and releases everything (exit 130). Exits 0 when every
 * scenario completed, 1 when one failed (standard error says which and why), 2 for bad input, 5 when
 * the backend cannot be reached.
 */
@Command(name = "bench", description = {
        "Benchmark a backend through the library: one client uncontended (acquire + release), N clients"
                + " contending for one lock (acquire latency, wait included; grants per second; each client's"
                + " share), and on a single Redis-protocol server the raw floor (SET NX PX + compare-and-delete"
                + " on a plain connection), which the uncontended figures are shown as multiples of.",
        "--duration is the measuring time, split equally between the scenarios (uncontended and the raw floor"
                + " take turns in short slices, so that the machine's noise falls on both alike); each warms up first,"
                + " unrecorded. Names lie under distlock-bench/<random>/ with 2 s leases; Ctrl-C releases"
                + " everything. Exits 0 when every scenario completed, 1 when one failed."})
final class BenchCommand implements Callable<Integer> {

    /** How long a Ctrl-C waits for the loops to wind down before it closes the clients under them. */
    private static final Duration GRACE = Duration.ofSeconds(5);

    @Spec
    CommandSpec spec;

    @Mixin
    Target target;

    @Option(names = "--duration", paramLabel = "DURATION", converter = Durations.class, defaultValue = "10s",
            description = "The measuring time, 1s to 1h, split equally between the scenarios; warm-up comes on"
                    + " top (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "4",
            description = "How many clients contend, each with its own connections, 1 to " + Bench.MAX_CLIENTS
                    + " (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--json", description = "Print the report as JSON instead of the table (progress goes to standard error).")
    boolean json;

    @Option(names = "--report", paramLabel = "DIR", description = "Write index.html, report.md and report.json to DIR.")
    Path report;

    @Override
    public Integer call() {
        if (clients < 1 || clients > Bench.MAX_CLIENTS) {
            throw new ParameterException(spec.commandLine(),
                    "--clients must be between 1 and " + Bench.MAX_CLIENTS + ", was " + clients);
        }
        if (duration.compareTo(Duration.ofSeconds(1)) < 0 || duration.compareTo(Duration.ofHours(1)) > 0) {
            throw new ParameterException(spec.commandLine(),
                    "--duration must be between 1s and 1h, was " + Durations.format(duration));
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        LockOptions options = target.options();
        FloorPlan floor = FloorPlan.of(target.uri, options.credentials());
        Progress progress = Progress.to(json ? err : out, Console.interactive());
        Bench bench = new Bench(new Bench.Settings(target.shown(), duration, clients, floor, target.connectTimeout,
                options.operationTimeout()), target::connect, progress);
        // Ctrl-C runs the shutdown hooks while this thread still runs the loops: the hook stops them
        // and cleans up itself, and the JVM then exits 130.
        Thread hook = new Thread(() -> {
            bench.abort(GRACE);
            err.println("distlock: interrupted: bench stopped, its clients closed (closing released what they held;"
                    + " anything a server did not confirm expires within " + Bench.LEASE.toSeconds() + " s) and the"
                    + " raw floor's key under " + bench.names() + " deleted");
            err.flush();
        }, "distlock-bench-interrupted");
        Runtime.getRuntime().addShutdownHook(hook);
        Bench.Result result;
        try {
            result = bench.run();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is shutting down (Ctrl-C): the hook runs, and has the last word.
            }
            progress.close();
        }
        if (result == null || bench.aborted()) {
            return ExitCodes.INTERRUPTED;
        }
        if (json) {
            out.println(ReportWriter.json(result.report()));
        } else {
            print(out, result);
        }
        if (report != null) {
            try {
                Path index = ReportWriter.write(result.report(), report);
                (json ? err : out).println("report: " + index.toAbsolutePath());
            } catch (IOException e) {
                err.println("distlock: the report could not be written to " + report + ": " + e.getMessage());
            }
        }
        out.flush();
        for (String failure : result.failures()) {
            err.println("distlock: bench: " + failure);
        }
        err.flush();
        return result.completed() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    static final List<String> HEADER = List.of("scenario", "clients", "ops", "ops/s", "p50", "p99", "p99.9", "max",
            "p50 × floor", "p99 × floor");

    private static void print(PrintWriter out, Bench.Result result) {
        List<Report.BenchRow> rows = result.report().bench();
        List<List<String>> cells = new ArrayList<>();
        for (Report.BenchRow row : rows) {
            Optional<Report.BenchRow> floor = Bench.floorFor(rows, row);
            // The floor's commands are in the line above the table; the cell keeps to what was measured.
            String scenario = row.floor() && row.scenario().contains(" (")
                    ? row.scenario().substring(0, row.scenario().indexOf(" (")) : row.scenario();
            cells.add(List.of(scenario, Integer.toString(row.clients()), Long.toString(row.operations()),
                    String.format(Locale.ROOT, "%.0f", row.perSecond()), micros(row.p50Micros()),
                    micros(row.p99Micros()), micros(row.p999Micros()), micros(row.maxMicros()),
                    floor.map(f -> ratio(row.p50Micros(), f.p50Micros())).orElse(""),
                    floor.map(f -> ratio(row.p99Micros(), f.p99Micros())).orElse("")));
        }
        out.println();
        if (!cells.isEmpty()) {
            Console.table(out, HEADER, cells);
        }
        if (rows.stream().anyMatch(Report.BenchRow::floor)) {
            out.println("× floor: distlock's latency divided by the raw floor's at the same percentile, on the same"
                    + " server (the floor has no owner record, fencing token or notification: a floor, not a rival)");
        }
        for (Report.BenchRow row : rows) {
            if (row.shares().isEmpty()) {
                continue;
            }
            long least = row.shares().stream().mapToLong(Report.Share::operations).min().orElse(0);
            long most = row.shares().stream().mapToLong(Report.Share::operations).max().orElse(0);
            out.println(row.scenario() + ": grants per client: " + row.shares().stream()
                    .map(s -> s.client() + " " + s.operations()).collect(Collectors.joining(", "))
                    + String.format(Locale.ROOT, " (least %s, most %s)", percent(least, row.operations()),
                    percent(most, row.operations())));
            if (row.clients() > 1 && !Double.isNaN(result.backToReleaser())) {
                out.println(String.format(Locale.ROOT, "%s: %.0f%% of grants went back to the client that had just"
                                + " released (%.0f%% if the lock picked at random)", row.scenario(),
                        100 * result.backToReleaser(), 100.0 / row.clients()));
            }
        }
        if (result.gaveUp() > 0) {
            out.println("contended: " + result.gaveUp() + " attempts waited " + Bench.MAX_WAIT.toSeconds()
                    + " s without a grant and tried again");
        }
        if (result.floorSkipped() != null) {
            out.println(result.floorSkipped());
        }
        out.flush();
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.0f%%", 100.0 * part / whole);
    }

    static String micros(double us) {
        if (us < 1_000) {
            return String.format(Locale.ROOT, "%.0f µs", us);
        }
        if (us < 1_000_000) {
            return String.format(Locale.ROOT, "%.2f ms", us / 1_000);
        }
        return String.format(Locale.ROOT, "%.2f s", us / 1_000_000);
    }

    private static String ratio(double value, double floor) {
        return floor <= 0 ? "" : String.format(Locale.ROOT, "%.2f×", value / floor);
    }
}
