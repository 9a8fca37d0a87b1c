package io.distlock.tck.memory;

import io.distlock.tck.RuleSelection;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a verification class is run and judged, on the memory reference: an honest efficiency lock passes
 * with a finding, rules are selected by number or group (by configuration or by the class itself), and a
 * rule that must pass fails the class when it is skipped.
 */
class TckSelectionTest {

    @TempDir
    Path reports;

    @Test
    void honestEfficiencyLockPassesWithAFindingAndSkipsWhatItLacks() throws IOException {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .selectors(DiscoverySelectors.selectClass(Efficiency.class))
                .execute();

        assertThat(results.testEvents().failed().count()).as(BrokenVariantCheck.describe(results)).isZero();
        List<String> skipReasons = results.testEvents().skipped().map(e -> e.getPayload(String.class).orElse(""))
                .collect(Collectors.toList());
        List<String> abortReasons = results.testEvents().aborted()
                .map(e -> e.getRequiredPayload(TestExecutionResult.class).getThrowable().map(Throwable::getMessage).orElse(""))
                .collect(Collectors.toList());
        assertThat(skipReasons).isEmpty();
        for (String feature : List.of("FENCING_TOKENS", "LEASE_EXTENSION", "AUTO_RENEWAL", "LOSS_NOTIFICATION", "FIFO_WAITERS", "QUORUM")) {
            assertThat(abortReasons).anySatisfy(reason ->
                    assertThat(reason).endsWith("skipped: backend 'memory-efficiency' lacks feature " + feature));
        }

        String verdict = Files.readString(reports.resolve("memory-efficiency-Efficiency-verdict.md"), StandardCharsets.UTF_8);
        assertThat(verdict)
                .contains("declared guarantee: **EFFICIENCY**", "observed: EFFICIENCY", "4.1 client pause",
                        "| 4.1 | a paused holder's stale write is fenced off | passed |");
    }

    @Test
    void rulesCanBeSelectedByNumberOrGroup() {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .configurationParameter("distlock.tck.rules", "1.8, 5")
                .selectors(DiscoverySelectors.selectClass(MemoryReferenceTest.class))
                .execute();
        List<String> ran = results.testEvents().finished().map(e -> e.getTestDescriptor().getDisplayName().split(" ")[0])
                .collect(Collectors.toList());
        assertThat(ran).containsExactlyInAnyOrder("1.8", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.8", "5.9");
        assertThat(results.testEvents().skipped().map(e -> e.getPayload(String.class).orElse("")).collect(Collectors.toList()))
                .allSatisfy(reason -> assertThat(reason).startsWith("not selected: distlock.tck.rules=1.8, 5"));
    }

    @Test
    void aClassCanSelectItsOwnRules() {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .selectors(DiscoverySelectors.selectClass(SelectedReference.class))
                .execute();
        List<String> ran = results.testEvents().finished().map(e -> e.getTestDescriptor().getDisplayName().split(" ")[0])
                .collect(Collectors.toList());
        assertThat(ran).containsExactlyInAnyOrder("1.8", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.8", "5.9");
        assertThat(results.testEvents().failed().count()).as(BrokenVariantCheck.describe(results)).isZero();
    }

    @Test
    void rulesThatMustPassFailTheClassWhenSkipped() throws IOException {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .selectors(DiscoverySelectors.selectClass(SecurityRequiredWithoutHook.class))
                .execute();
        assertThat(results.testEvents().failed().count()).as("no rule fails: they are skipped").isZero();
        List<Throwable> classFailures = results.containerEvents().failed().stream()
                .map(e -> e.getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow())
                .collect(Collectors.toList());
        assertThat(classFailures).hasSize(1);
        assertThat(classFailures.get(0)).hasMessageContaining("rules that did not pass: 6.1 skipped: not run:")
                .hasMessageContaining("6.4 skipped");
        Path verdict;
        try (Stream<Path> files = Files.list(reports)) {
            verdict = files.filter(p -> p.getFileName().toString().endsWith("-SecurityRequiredWithoutHook-verdict.md"))
                    .findFirst().orElseThrow();
        }
        assertThat(Files.readString(verdict, StandardCharsets.UTF_8))
                .as("the verdict is written first").contains("security (group 6): 0 of 5 rules passed");
    }

    /** Not broken: an honest efficiency lock, which passes with a finding for rule 4.1. */
    static class Efficiency extends MemoryVerification {
        Efficiency() {
            super("memory-efficiency", "secure-tck", false);
        }

        @Override
        protected int routes() {
            return 1;
        }

        @Override
        protected Optional<String> unreachableUri() {
            return Optional.of("memory-efficiency://tck:" + SECRET + "@down-tck");
        }
    }

    /** The reference on two rules and a group, selected by the class itself. */
    @RuleSelection("1.8, 5")
    static class SelectedReference extends MemoryReferenceTest {
    }

    /** Group 6 required to pass, on a server without authentication (no security hook): the class must fail. */
    @RuleSelection(value = "6", mustPass = "6")
    static class SecurityRequiredWithoutHook extends MemoryVerification {
        SecurityRequiredWithoutHook() {
            super("memory", "plain-selected", false);
        }
    }
}
