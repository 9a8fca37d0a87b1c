package io.distlock.cli.check;

import io.distlock.BackendDescriptor;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.cli.report.Report;
import io.distlock.tck.History;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.TestEnvironment;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A live, non-destructive audit of one deployment: the TCK's rules that need no fault hook and no
 * server access beyond the lock API, run by the JUnit Platform on {@link LiveCheck}, on names under a
 * random {@code distlock-check/<run id>/} prefix only. Every client it opens is closed when the audit
 * ends — or, on Ctrl-C, by {@link #abandon()} from the command's shutdown hook — which releases what it
 * holds; what a lost connection could not release expires with its short lease.
 */
public final class Audit {

    /**
     * The rules a live audit runs: safety under contention with a recorded history (1.1), fencing order
     * across two processes (1.4, 1.7), owner-only release and extend, honest remaining(), liveness and
     * maxWait (group 2 but 2.8, which stops nodes), renewal and loss notification by expiry (group 3), a
     * paused holder (4.1: the audit's own client sleeps), bad input (5.1–5.4 and 5.6: 5.5, 5.8 and 5.9 need
     * a URI of the backend's that names a closed or a silent port, and the audit knows only the user's),
     * inspection and revocation of the audit's own locks (8.1–8.5), and read-write
     * locks and semaphores where declared (group 9 but 9.5, which partitions a client). Left out:
     * every rule that needs a fault hook (partitions, restarts, revocation by the server, clocks, failover),
     * 1.10 (it asks the server directly), and group 6 and 8.6 (a second principal). Every entry is one rule,
     * so that a narrower selection is a plain filter of this list.
     */
    public static final String FULL = "1.1,1.2,1.3,1.4,1.5,1.6,1.7,1.8,1.9,2.1,2.2,2.3,2.4,2.5,2.6,2.7,2.9,3.1,3.2,3.3,3.4,3.5,3.6,4.1,5.1,5.2,5.3,5.4,5.6,8.1,8.2,8.3,8.4,8.5,9.1,9.2,9.3,9.4,9.6,9.7,9.8,9.9,9.10";

    /** {@code --quick}: one rule per property, a short contention run. */
    public static final String QUICK = "1.1,1.2,1.4,1.6,2.1,2.3,2.5,3.1,3.4,5.1,8.1,9.1,9.2";

    private final String uri;
    private final LockOptions options;
    private final TestEnvironment environment;
    private final String prefix = "distlock-check/" + UUID.randomUUID().toString().substring(0, 8) + "/";
    private final Set<LockClient> open = ConcurrentHashMap.newKeySet();
    private final Map<String, List<History>> histories = new ConcurrentHashMap<>();
    private final List<Report.RuleResult> results = new CopyOnWriteArrayList<>();
    private volatile boolean abandoned;
    /** Counted down when {@link #run} returns: the TCK has then written its verdict file, if it writes one. */
    private final CountDownLatch ended = new CountDownLatch(1);

    /**
     * @param uri         the deployment
     * @param options     what every client connects with (timeouts, credentials)
     * @param clients     how many clients contend in a contention run
     * @param duration    how long each contention run lasts
     * @param timeoutFactor how much longer than the TCK's defaults every wait may be
     */
    public Audit(String uri, LockOptions options, int clients, Duration duration, double timeoutFactor) {
        this.uri = uri;
        this.options = options;
        this.environment = new LiveEnvironment(timeoutFactor, clients, duration);
    }

    /** @return the prefix of every name the audit uses */
    public String prefix() {
        return prefix;
    }

    LockClient connect() {
        if (abandoned) {
            throw new IllegalStateException("the audit was interrupted");
        }
        LockClient client = Locks.connect(uri, options);
        open.add(client);
        if (abandoned) { // interrupted while connecting: close it here, the hook may have missed it
            client.close();
        }
        return client;
    }

    SeparateProcess separateProcess() {
        return SeparateProcess.of(URI.create(uri), options);
    }

    TestEnvironment environment() {
        return environment;
    }

    void recorded(String rule, History history) {
        histories.computeIfAbsent(rule, r -> new CopyOnWriteArrayList<>()).add(history);
    }

    /**
     * Connects once and reads what the backend declares: an unreachable server, wrong credentials or an
     * unknown scheme fail here, before any rule, with the library's own exception.
     *
     * @return the backend's declaration
     */
    public BackendDescriptor probe() {
        try (LockClient client = Locks.connect(uri, options)) {
            return client.backend();
        }
    }

    /**
     * Runs the rules, telling {@code progress} as each starts and ends.
     *
     * @param selection  rules and groups, comma-separated ({@link #FULL}, {@link #QUICK})
     * @param verdictDir where the TCK writes its verdict file
     * @param progress   told of every rule
     * @return every rule's result, in rule order
     */
    public List<Report.RuleResult> run(String selection, Path verdictDir, Progress progress) {
        LiveCheck.serve(this);
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(LiveCheck.class))
                .configurationParameter("distlock.tck.rules", selection)
                .configurationParameter("distlock.tck.reportDir", verdictDir.toString())
                .build();
        try {
            LauncherFactory.create().execute(request, new Listener(progress));
        } finally {
            ended.countDown();
        }
        return results();
    }

    /**
     * Waits until {@link #run} has returned, for at most {@code bound}: after {@link #abandon} the rule
     * that was running fails at its next call and the rest fail at once, but the TCK still writes the
     * verdict file as the run ends (creating its directory again if it was deleted meanwhile).
     *
     * @return true if the run ended within the bound; false on timeout or interrupt
     */
    public boolean awaitEnd(Duration bound) {
        try {
            return ended.await(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** @return the results so far, in rule order */
    public List<Report.RuleResult> results() {
        List<Report.RuleResult> sorted = new ArrayList<>(results);
        sorted.sort(Comparator.comparing(r -> ruleOrder(r.id())));
        return sorted;
    }

    /** @return every contention history recorded so far, as timelines, in rule order */
    public List<Report.Timeline> timelines() {
        return histories.entrySet().stream().sorted(Comparator.comparing(e -> ruleOrder(e.getKey())))
                .flatMap(e -> e.getValue().stream().map(h -> Timelines.of(e.getKey(), h)))
                .collect(Collectors.toList());
    }

    /**
     * Ends the audit now (Ctrl-C): closes every client it opened, which releases every lease they hold;
     * a child process's client ends with its JVM (the TCK's own shutdown hook). Never throws.
     */
    public void abandon() {
        abandoned = true;
        for (LockClient client : open) {
            try {
                client.close();
            } catch (RuntimeException e) {
                // best effort: what it held expires with its lease
            }
        }
    }

    static String ruleOrder(String rule) {
        String[] parts = rule.split("\\.");
        StringBuilder key = new StringBuilder();
        for (String p : parts) {
            key.append(String.format("%04d", p.chars().allMatch(Character::isDigit) && !p.isEmpty() ? Integer.parseInt(p) : 0));
        }
        return key.toString();
    }

    /** Told of each rule as it starts and ends. */
    public interface Progress {
        /**
         * @param rule  its number
         * @param title what it checks
         */
        void started(String rule, String title);

        /** @param result how it ended */
        void finished(Report.RuleResult result);
    }

    /** Turns JUnit's events into rule results; rules outside the selection are not reported at all. */
    private final class Listener implements TestExecutionListener {
        private final Progress progress;
        private final Map<String, Long> startedAt = new ConcurrentHashMap<>();

        Listener(Progress progress) {
            this.progress = progress;
        }

        @Override
        public void executionStarted(TestIdentifier test) {
            if (test.isTest()) {
                startedAt.put(test.getUniqueId(), System.nanoTime());
                String[] rule = split(test.getDisplayName());
                progress.started(rule[0], rule[1]);
            }
        }

        @Override
        public void executionSkipped(TestIdentifier test, String reason) {
            // Only RuleFilter skips before a start: a rule the selection leaves out, which is not part of the audit.
        }

        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            if (!test.isTest()) {
                return;
            }
            long took = (System.nanoTime() - startedAt.getOrDefault(test.getUniqueId(), System.nanoTime())) / 1_000_000;
            String[] rule = split(test.getDisplayName());
            Report.Outcome outcome = switch (result.getStatus()) {
                case SUCCESSFUL -> Report.Outcome.PASSED;
                case ABORTED -> Report.Outcome.SKIPPED;
                case FAILED -> Report.Outcome.FAILED;
            };
            String detail = result.getThrowable().map(Audit::message).orElse("");
            if (abandoned && outcome == Report.Outcome.FAILED) {
                outcome = Report.Outcome.SKIPPED;
                detail = "interrupted (Ctrl-C) while it ran";
            }
            Report.RuleResult r = new Report.RuleResult(rule[0], rule[1], outcome, took, detail);
            results.add(r);
            progress.finished(r);
        }
    }

    private static String[] split(String display) {
        int space = display.indexOf(' ');
        return space > 0 ? new String[] {display.substring(0, space), display.substring(space + 1)} : new String[] {display, ""};
    }

    private static String message(Throwable t) {
        return (t.getMessage() == null ? t.toString() : t.getMessage()).strip();
    }
}
