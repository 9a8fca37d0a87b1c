package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Writes {@code <reportDir>/<scheme>-<VerificationClass>-verdict.md} after a verification class ran: the backend's
 * declaration, each rule's result, and the findings (expected weaknesses, such as an efficiency
 * lock accepting a paused holder's stale write). The report directory is the JUnit configuration
 * parameter or system property {@value #REPORT_DIR_PROPERTY}, else {@code target/distlock-tck}.
 */
final class VerdictExtension implements AfterTestExecutionCallback, TestWatcher, AfterAllCallback {

    static final String REPORT_DIR_PROPERTY = "distlock.tck.reportDir";

    /** A rule's number, as a rule's display name begins: group, dot, rule. */
    private static final Pattern RULE_ID = Pattern.compile("\\d+\\.\\d+");

    /**
     * How a rule that applies but could not run (its hook does not offer the fault it needs)
     * begins its skip message. Unlike a rule skipped because the backend lacks its feature, such a
     * rule leaves the declaration unproven: the verdict then does not report it as observed.
     */
    static final String NOT_RUN = "not run: ";
    /** Detail prefix of a rule skipped because its fault cannot happen to the backend ({@link NodeFaults#impossible()}). */
    static final String DOES_NOT_APPLY = "does not apply: ";
    /**
     * How the skip message of a rule begins whose feature the backend does not declare
     * ({@link Rig#requireFeature}): a rule the backend makes no claim to, so neither a
     * {@link RuleSelection#mustPass()} failure nor a security rule that "did not pass".
     */
    static final String LACKS_FEATURE = "skipped: backend '";
    /** How the numbers of group 7's rules (the {@code Lock} view) begin. */
    private static final String VIEW_GROUP = "7.";
    /** How the numbers of group 8's rules (inspection and revocation) begin. */
    private static final String INSPECTION_GROUP = "8.";
    /** How the numbers of group 9's rules (read-write locks and semaphores) begin. */
    private static final String SHARED_HOLD_GROUP = "9.";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(VerdictExtension.class);

    VerdictExtension() {
    }

    enum Status { PASSED, FAILED, SKIPPED }

    record RuleResult(String rule, String title, Status status, String detail) {
    }

    /** What one verification class collected; lives in the class-level store. */
    static final class Verdict {
        volatile BackendDescriptor descriptor;
        final ConcurrentLinkedQueue<RuleResult> results = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> findings = new ConcurrentLinkedQueue<>();
        /** The rule filter's reason, if it left rules out: the verdict is then of a partial run. */
        volatile String partial;
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        Verdict verdict = verdict(context);
        context.getTestInstance().filter(LockVerification.class::isInstance).map(LockVerification.class::cast)
                .ifPresent(v -> {
                    v.descriptorSeen().ifPresent(d -> verdict.descriptor = d);
                    verdict.findings.addAll(v.findings());
                });
    }

    @Override
    public void testSuccessful(ExtensionContext context) {
        String notes = context.getTestInstance().filter(LockVerification.class::isInstance)
                .map(v -> String.join("; ", ((LockVerification) v).notes())).orElse("");
        record(context, Status.PASSED, notes);
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        record(context, Status.FAILED, String.valueOf(cause.getMessage()));
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        record(context, Status.SKIPPED, String.valueOf(cause.getMessage()).replaceFirst("^Assumption failed: ", ""));
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {
        String why = reason.orElse("disabled");
        if (!why.startsWith("not selected:")) {
            record(context, Status.SKIPPED, why);
        } else {
            verdict(context).partial = why; // a rule left out by the rule filter is not part of this verdict
        }
    }

    private static void record(ExtensionContext context, Status status, String detail) {
        ruleOf(context.getDisplayName()).ifPresent(rule -> verdict(context).results.add(
                new RuleResult(rule, context.getDisplayName().substring(rule.length() + 1), status, detail)));
    }

    /**
     * The rule a test's display name starts with ({@code "4.7 a paused minority..."} is rule 4.7).
     * A verification's own tests (a backend checking its hooks, a fault of its own) are no rule of
     * the TCK: they run and fail as any test does, but the verdict — what the rules showed — leaves
     * them out, so that its counts are counts of rules.
     */
    static Optional<String> ruleOf(String displayName) {
        int space = displayName.indexOf(' ');
        String first = space > 0 ? displayName.substring(0, space) : "";
        return RULE_ID.matcher(first).matches() ? Optional.of(first) : Optional.empty();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Verdict verdict = verdict(context);
        if (verdict.results.isEmpty()) {
            return;
        }
        String scheme = verdict.descriptor != null ? verdict.descriptor.scheme()
                : "unknown-" + context.getRequiredTestClass().getSimpleName();
        // A JUnit configuration parameter, else the system property of the same name.
        String dir = context.getConfigurationParameter(REPORT_DIR_PROPERTY).orElse("target/distlock-tck");
        // Keyed by scheme and verification: two verifications of one backend (with and without a
        // fault hook, say) keep a verdict each.
        Path file = Path.of(dir).resolve(scheme + "-" + context.getRequiredTestClass().getSimpleName() + "-verdict.md");
        String text = render(verdict, scheme, context.getRequiredTestClass().getName());
        // Rule 6.4's last look: the verdict itself. A secret found there is masked in the file, and
        // fails the class, since the rules' own texts (a failure message quoting a server's reply) put it there.
        java.util.Set<String> secrets = LogCapture.secrets();
        LogCapture.stop();
        boolean leaked = secrets.stream().anyMatch(text::contains);
        if (leaked) {
            text = maskAll(text, secrets);
        }
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the TCK verdict to " + file, e);
        }
        if (leaked) {
            throw new AssertionError("[6.4] the verdict " + file + " held a secret (masked in the file written)");
        }
        RuleSelection selection = context.getRequiredTestClass().getAnnotation(RuleSelection.class);
        if (selection != null && !selection.mustPass().isBlank()) {
            List<String> notPassed = verdict.results.stream()
                    .filter(r -> RuleFilter.matches(r.rule(), selection.mustPass()) && r.status() != Status.PASSED
                            && !lacksFeature(r))
                    .sorted(Comparator.comparing(RuleResult::rule, VerdictExtension::compareRuleIds))
                    .map(r -> r.rule() + " " + r.status().name().toLowerCase(java.util.Locale.ROOT) + ": " + cell(r.detail()))
                    .collect(Collectors.toList());
            if (!notPassed.isEmpty()) {
                throw new AssertionError("@RuleSelection(mustPass = \"" + selection.mustPass() + "\"): rules that did not pass: "
                        + String.join("; ", notPassed) + " (verdict " + file + ")");
            }
        }
    }

    private static String maskAll(String text, java.util.Set<String> secrets) {
        String s = text;
        for (String secret : secrets) {
            s = s.replace(secret, "***");
        }
        return s;
    }

    static String render(Verdict verdict, String scheme, String verificationClass) {
        List<RuleResult> results = new ArrayList<>(verdict.results);
        results.sort(Comparator.comparing(RuleResult::rule, VerdictExtension::compareRuleIds));
        BackendDescriptor d = verdict.descriptor;
        long passed = results.stream().filter(r -> r.status() == Status.PASSED).count();
        long skipped = results.stream().filter(r -> r.status() == Status.SKIPPED).count();
        List<String> failed = results.stream().filter(r -> r.status() == Status.FAILED).map(RuleResult::rule).collect(Collectors.toList());
        // Group 6 (security) is outside the guarantee: its rules that did not run are reported on a line of their own.
        List<String> notRun = results.stream().filter(r -> r.status() == Status.SKIPPED && r.detail().startsWith(NOT_RUN)
                        && !isSecurityRule(r.rule())).map(RuleResult::rule).collect(Collectors.toList());
        List<RuleResult> security = results.stream().filter(r -> isSecurityRule(r.rule()) && !lacksFeature(r))
                .collect(Collectors.toList());
        long securityPassed = security.stream().filter(r -> r.status() == Status.PASSED).count();
        List<String> notApplicable = results.stream().filter(r -> r.status() == Status.SKIPPED && r.detail().startsWith(DOES_NOT_APPLY))
                .map(RuleResult::rule).collect(Collectors.toList());
        String observed;
        if (!failed.isEmpty()) {
            observed = "declaration NOT upheld: failed rules " + String.join(", ", failed);
        } else if (d == null) {
            observed = "unknown (no client was opened)";
        } else if (verdict.partial != null) {
            observed = d.guarantee() + " not shown: a partial run, only the rules listed ran (" + verdict.partial + ")";
        } else if (!verdict.findings.isEmpty()) {
            observed = "EFFICIENCY (no rule failed; see the findings)"
                    + (notRun.isEmpty() ? "" : "; rules " + String.join(", ", notRun) + " did not run (their faults are not offered)");
        } else if (!notRun.isEmpty()) {
            observed = d.guarantee() + " not shown: rules " + String.join(", ", notRun) + " did not run (the verification's"
                    + " hooks do not offer their faults); every rule that ran passed";
        } else {
            observed = d.guarantee() + " (every rule that ran passed, and every fault rule that applies ran"
                    + (notApplicable.isEmpty() ? "" : "; rules " + String.join(", ", notApplicable)
                    + " do not apply: their faults cannot happen to this backend, see their rows") + ")";
        }
        StringBuilder s = new StringBuilder();
        s.append("# distlock TCK verdict: `").append(scheme).append("`\n\n");
        s.append("- verification: `").append(verificationClass).append("`\n");
        if (d != null) {
            s.append("- declared guarantee: **").append(d.guarantee()).append("**\n");
            s.append("- declared features: ").append(d.features().isEmpty() ? "none"
                    : d.features().stream().map(Feature::name).collect(Collectors.joining(", "))).append('\n');
        }
        s.append("- result: ").append(passed).append(" passed, ").append(failed.size()).append(" failed, ")
                .append(skipped).append(" skipped\n");
        s.append("- observed: ").append(observed).append('\n');
        if (!security.isEmpty()) {
            s.append("- security (group 6): ").append(securityPassed == security.size()
                    ? "shown: every rule of group 6 ran and passed"
                    : securityPassed + " of " + security.size() + " rules passed"
                    + (securityPassed == 0 && security.stream().allMatch(r -> r.status() == Status.SKIPPED)
                    ? " (not verified: see their rows)" : "")).append('\n');
        }
        List<RuleResult> view = results.stream().filter(r -> r.rule().startsWith(VIEW_GROUP)).collect(Collectors.toList());
        if (!view.isEmpty()) {
            s.append("- the `Lock` view (group 7): ").append(groupLine("7", view)).append('\n');
        }
        List<RuleResult> inspection = results.stream().filter(r -> r.rule().startsWith(INSPECTION_GROUP))
                .collect(Collectors.toList());
        if (!inspection.isEmpty()) {
            s.append("- inspection and revocation (group 8): ").append(groupLine("8", inspection)).append('\n');
        }
        List<RuleResult> shared = results.stream().filter(r -> r.rule().startsWith(SHARED_HOLD_GROUP))
                .collect(Collectors.toList());
        if (!shared.isEmpty()) {
            s.append("- read-write locks and semaphores (group 9): ").append(groupLine("9", shared)).append('\n');
        }
        s.append('\n');
        s.append("| rule | | result | detail |\n|---|---|---|---|\n");
        for (RuleResult r : results) {
            s.append("| ").append(r.rule()).append(" | ").append(cell(r.title())).append(" | ")
                    .append(r.status().name().toLowerCase(java.util.Locale.ROOT)).append(" | ")
                    .append(cell(r.detail())).append(" |\n");
        }
        s.append("\n## Findings\n\n");
        if (verdict.findings.isEmpty()) {
            s.append("None.\n");
        } else {
            verdict.findings.forEach(f -> s.append("- ").append(f.replace("\n", " ")).append('\n'));
        }
        return s.toString();
    }

    private static String cell(String text) {
        String firstLines = text.lines().limit(3).collect(Collectors.joining(" / "));
        String shortened = firstLines.length() > 400 ? firstLines.substring(0, 400) + " …" : firstLines;
        return shortened.replace("|", "\\|");
    }

    /**
     * Groups 7 (the engine's {@code Lock} view on the backend) and 8 (inspection and revocation) are
     * part of the guarantee (a failed rule fails the declaration like any other), and each is summed
     * up on a line of its own, since a backend without their features (auto-renewal; inspection,
     * revocation) skips the whole group by name.
     */
    private static String groupLine(String group, List<RuleResult> view) {
        long passed = view.stream().filter(r -> r.status() == Status.PASSED).count();
        if (passed == view.size()) {
            return "shown: every rule of group " + group + " ran and passed";
        }
        List<String> failed = view.stream().filter(r -> r.status() == Status.FAILED).map(RuleResult::rule)
                .collect(Collectors.toList());
        if (failed.isEmpty() && passed == 0) {
            return "not verified: " + cell(view.get(0).detail());
        }
        return passed + " of " + view.size() + " rules passed" + (failed.isEmpty() ? "" : "; failed " + String.join(", ", failed));
    }

    private static boolean lacksFeature(RuleResult r) {
        return r.status() == Status.SKIPPED && r.detail().startsWith(LACKS_FEATURE);
    }

    private static boolean isSecurityRule(String rule) {
        return rule.startsWith("6.");
    }

    /** Orders "1.2" before "1.10" and "2.1". */
    static int compareRuleIds(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c;
            try {
                c = Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i]));
            } catch (NumberFormatException e) {
                c = x[i].compareTo(y[i]);
            }
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    private static Verdict verdict(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(Verdict.class, k -> new Verdict(), Verdict.class);
    }
}
