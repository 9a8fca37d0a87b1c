package io.distlock.cli.check;

import io.distlock.LockClient;
import io.distlock.tck.History;
import io.distlock.tck.LockVerification;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.TestEnvironment;

import java.util.Objects;
import java.util.Optional;

/**
 * The TCK's own rules, run against a live deployment: a verification whose clients connect to the
 * audited URI, whose names stay under the audit's prefix, and whose contention histories go to the
 * audit for its timelines. It supplies no fault hook, so {@link Audit} runs only rules that need none.
 * JUnit instantiates it once per rule; the audit it serves is set before the launch.
 */
public class LiveCheck extends LockVerification {

    private static volatile Audit current;

    /** For JUnit. */
    public LiveCheck() {
    }

    static void serve(Audit audit) {
        current = audit;
    }

    private static Audit audit() {
        return Objects.requireNonNull(current, "no audit is running");
    }

    @Override
    protected LockClient newClient() {
        return audit().connect();
    }

    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(audit().separateProcess());
    }

    @Override
    protected TestEnvironment environment() {
        return audit().environment();
    }

    @Override
    protected String lockNamePrefix() {
        return audit().prefix();
    }

    /**
     * Keeps the contention runs of locks for the report's timelines. Group 9's runs (permits, readers beside
     * readers) are left out: a timeline marks every two leases valid at once as a double grant, which they
     * are not there; their rules judge them, and their verdicts are in the report's table.
     */
    @Override
    protected void recorded(String rule, History history) {
        if (!rule.startsWith("9.")) {
            audit().recorded(rule, history);
        }
    }
}
