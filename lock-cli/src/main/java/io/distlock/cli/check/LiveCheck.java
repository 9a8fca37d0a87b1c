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

    @Override
    protected void recorded(String rule, History history) {
        audit().recorded(rule, history);
    }
}
