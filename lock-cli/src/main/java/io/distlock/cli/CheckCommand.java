package io.distlock.cli;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.cli.check.Audit;
import io.distlock.cli.report.Report;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code distlock check URI}: a live, non-destructive audit of a deployment with the TCK's own rules
 * (those that need no fault hook), on names under a random {@code distlock-check/…} prefix, with bounded
 * load. Exits 0 only when every rule that ran passed.
 */
@Command(name = "check", description = "Audit a live deployment with the TCK's rules that need no fault hook, on names"
        + " under a random distlock-check/ prefix. Exits 0 only when every rule that ran passed.")
final class CheckCommand implements Callable<Integer> {

    /** How long Ctrl-C waits for the interrupted audit's rules to end before it deletes their temporary verdicts. */
    private static final Duration INTERRUPTED_RUN_END = Duration.ofSeconds(10);

    @Spec
    CommandSpec spec;

    @Mixin
    Target target;

    @Option(names = "--quick", description = "One rule per property and a short contention run (about half a minute).")
    boolean quick;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "8",
            description = "How many clients contend in a contention run, 2 to 32 (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--duration", paramLabel = "DURATION", converter = Durations.class,
            description = "How long each contention run lasts (default: 5s, 2s with --quick; at most 10m).")
    Duration duration;

    @Option(names = "--timeout-factor", paramLabel = "F", defaultValue = "1",
            description = "Multiply every lease, wait and timeout of the rules by F, for a distant or slow deployment (1 to 20).")
    double timeoutFactor;

    @Option(names = "--rules", paramLabel = "LIST", description = "Run only these of the audit's rules and groups (e.g. 1.1,2).")
    String rules;

    @Option(names = "--report", paramLabel = "DIR", description = "Write index.html, report.md and report.json to DIR.")
    Path report;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (clients < 2 || clients > 32) {
            throw new ParameterException(spec.commandLine(), "--clients must be 2 to 32, not " + clients);
        }
        if (timeoutFactor < 1 || timeoutFactor > 20) {
            throw new ParameterException(spec.commandLine(), "--timeout-factor must be 1 to 20, not " + timeoutFactor);
        }
        Duration runs = duration != null ? duration : Duration.ofSeconds(quick ? 2 : 5);
        if (runs.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new ParameterException(spec.commandLine(), "--duration must be at most 10m");
        }
        String selection = selection();
        Audit audit = new Audit(target.uri, target.options(), clients, runs, timeoutFactor);
        BackendDescriptor backend = audit.probe();
        Instant started = Instant.now();
        long startNanos = System.nanoTime();
        out.println("auditing " + target.shown() + " (" + backend.scheme() + ", " + backend.guarantee() + ") on names under "
                + audit.prefix() + ": rules " + selection + ", " + clients + " clients, " + Durations.format(runs)
                + " per contention run");
        out.flush();

        Path verdicts = report != null ? Files.createDirectories(report) : Files.createTempDirectory("distlock-check");
        Thread onInterrupt = new Thread(() -> {
            audit.abandon();
            out.println();
            out.println("interrupted: released what the audit held (a lease it could not release expires on its own)");
            writeReport(out, audit, backend, started, startNanos, true);
            out.flush();
            if (report == null) {
                // The temporary verdicts go too, once the TCK stopped writing them (else it would
                // create the directory again after the delete); bounded, for a rule stuck past its clients' close.
                audit.awaitEnd(INTERRUPTED_RUN_END);
                deleteQuietly(verdicts);
            }
        }, "distlock-check-interrupted");
        Runtime.getRuntime().addShutdownHook(onInterrupt);
        List<Report.RuleResult> results;
        try (Bar bar = new Bar(out, Console.interactive(), runs)) {
            results = audit.run(selection, verdicts, bar);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(onInterrupt);
        } catch (IllegalStateException e) {
            return ExitCodes.INTERRUPTED; // Ctrl-C as the rules ended: the hook runs, and has the last word
        }
        if (report == null) {
            deleteQuietly(verdicts);
        }

        out.println();
        Console.table(out, List.of("RULE", "VERDICT", "TIME", "WHAT IT CHECKS"), results.stream()
                .map(r -> List.of(r.id(), r.outcome().name(), Durations.format(Duration.ofMillis(r.tookMillis())),
                        r.title() + (r.outcome() == Report.Outcome.SKIPPED ? " (" + skipReason(r.detail()) + ")" : "")))
                .toList());
        long failed = results.stream().filter(r -> r.outcome() == Report.Outcome.FAILED).count();
        long passed = results.stream().filter(r -> r.outcome() == Report.Outcome.PASSED).count();
        for (Report.RuleResult r : results) {
            if (r.outcome() == Report.Outcome.FAILED) {
                out.println();
                out.println("FAILED " + r.id() + " " + r.title() + ":");
                out.println(indent(firstLines(r.detail(), 12)));
            }
        }
        audit.timelines().stream().filter(t -> !t.overlaps().isEmpty()).forEach(t ->
                out.println("\nrule " + t.rule() + ": " + t.overlaps().size() + " overlap(s) of two valid holders on '" + t.lockName() + "'"));
        out.println();
        out.println(String.format(Locale.ROOT, "%d passed, %d failed, %d skipped in %s: %s", passed, failed,
                results.size() - passed - failed, Durations.format(Duration.ofNanos(System.nanoTime() - startNanos)),
                failed == 0 && passed > 0 ? "every rule that ran passed" : failed > 0 ? "FAILED" : "nothing ran"));
        writeReport(out, audit, backend, started, startNanos, false);
        out.flush();
        return failed == 0 && passed > 0 ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private String selection() {
        String all = quick ? Audit.QUICK : Audit.FULL;
        if (rules == null) {
            return all;
        }
        // The audit's rules that --rules names, by number or by group (2 names 2.1, 2.2, ...).
        List<String> wanted = List.of(rules.split(",")).stream().map(String::trim).filter(w -> !w.isEmpty()).toList();
        String chosen = List.of(all.split(",")).stream()
                .filter(rule -> wanted.stream().anyMatch(w -> rule.equals(w) || rule.startsWith(w + ".")))
                .collect(Collectors.joining(","));
        if (chosen.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--rules " + rules + " names none of the audit's rules: " + all);
        }
        return chosen;
    }

    private void writeReport(PrintWriter out, Audit audit, BackendDescriptor backend, Instant started, long startNanos,
                             boolean interrupted) {
        if (report == null) {
            return;
        }
        // The report is written by the report package (index.html, report.md, report.json).
        Report r = report(audit, backend, started, startNanos, interrupted);
        try {
            Path index = io.distlock.cli.report.ReportWriter.write(r, report);
            out.println("report: " + index.toAbsolutePath());
        } catch (IOException e) {
            out.println("distlock: the report could not be written to " + report + ": " + e.getMessage());
        }
    }

    private Report report(Audit audit, BackendDescriptor backend, Instant started, long startNanos, boolean interrupted) {
        List<Report.RuleResult> results = audit.results();
        boolean passed = !interrupted && results.stream().noneMatch(r -> r.outcome() == Report.Outcome.FAILED)
                && results.stream().anyMatch(r -> r.outcome() == Report.Outcome.PASSED);
        return new Report("check", target.shown(), new Report.Backend(backend.scheme(), backend.guarantee().name(),
                backend.features().stream().sorted().map(Feature::name).toList()), started.toString(),
                (System.nanoTime() - startNanos) / 1_000_000, results, audit.timelines(), List.of(), passed, interrupted);
    }

    /** The reason a rule was skipped, without the TCK's marker: "redis lacks feature FIFO_WAITERS". */
    private static String skipReason(String detail) {
        String d = detail.lines().findFirst().orElse("").replaceFirst("^Assumption failed: ", "");
        int lacks = d.indexOf("lacks feature");
        if (lacks >= 0) {
            return "the backend " + d.substring(lacks).replace("lacks feature", "does not declare");
        }
        return d.length() > 100 ? d.substring(0, 99) + "…" : d;
    }

    private static String firstLines(String text, int n) {
        List<String> lines = text.lines().limit(n).toList();
        return String.join("\n", lines) + (text.lines().count() > n ? "\n…" : "");
    }

    private static String indent(String text) {
        return text.lines().map(l -> "  " + l).collect(Collectors.joining("\n"));
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory of the verdict file: the system's cleanup takes it
        }
    }

    /**
     * One line per rule: on a terminal a bar that fills as the rule runs (against how long the rule
     * usually takes) and is replaced by its verdict; elsewhere a plain line when it starts and one when it ends.
     */
    static final class Bar implements Audit.Progress, AutoCloseable {
        private static final int WIDTH = 24;
        private final PrintWriter out;
        private final boolean terminal;
        private final Duration contention;
        private final ScheduledExecutorService ticker;
        private volatile ScheduledFuture<?> tick;

        Bar(PrintWriter out, boolean terminal, Duration contention) {
            this.out = out;
            this.terminal = terminal;
            this.contention = contention;
            this.ticker = terminal ? Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "distlock-check-progress");
                t.setDaemon(true);
                return t;
            }) : null;
        }

        @Override
        public synchronized void started(String rule, String title) {
            String label = String.format(Locale.ROOT, "%-5s %s", rule, shorten(title, 56));
            if (!terminal) {
                out.println("running " + label);
                out.flush();
                return;
            }
            long start = System.nanoTime();
            // Contention rules run for the chosen duration plus their set-up; the others take a few seconds.
            long expected = (rule.equals("1.1") || rule.equals("1.4") || rule.equals("1.7") ? contention.toNanos() : 0)
                    + TimeUnit.SECONDS.toNanos(3);
            tick = ticker.scheduleAtFixedRate(() -> draw(label, System.nanoTime() - start, expected), 0, 100, TimeUnit.MILLISECONDS);
        }

        private synchronized void draw(String label, long elapsed, long expected) {
            int filled = (int) Math.min(WIDTH - 1, WIDTH * elapsed / expected);
            out.print("\r" + label + " [" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] "
                    + Durations.format(Duration.ofNanos(elapsed)) + "   ");
            out.flush();
        }

        @Override
        public synchronized void finished(Report.RuleResult r) {
            if (tick != null) {
                tick.cancel(false);
            }
            String line = String.format(Locale.ROOT, "%-7s %-5s %s (%s)", r.outcome().name(), r.id(), shorten(r.title(), 56),
                    Durations.format(Duration.ofMillis(r.tookMillis())));
            out.println(terminal ? "\r" + line + " ".repeat(20) : line);
            out.flush();
        }

        @Override
        public void close() {
            if (ticker != null) {
                ticker.shutdownNow();
            }
        }

        private static String shorten(String s, int n) {
            return s.length() <= n ? s : s.substring(0, n - 1) + "…";
        }
    }
}
