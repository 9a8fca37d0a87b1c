package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/** What the verdict says it observed: a guarantee is "observed" only when every fault rule that applies ran. */
class VerdictExtensionTest {

    private static VerdictExtension.Verdict verdict(Guarantee guarantee) {
        VerdictExtension.Verdict verdict = new VerdictExtension.Verdict();
        verdict.descriptor = new BackendDescriptor("demo", guarantee, EnumSet.of(Feature.FENCING_TOKENS, Feature.QUORUM));
        verdict.results.add(new VerdictExtension.RuleResult("1.1", "at most one", VerdictExtension.Status.PASSED, ""));
        verdict.results.add(new VerdictExtension.RuleResult("2.7", "fifo", VerdictExtension.Status.SKIPPED,
                "skipped: backend 'demo' lacks feature FIFO_WAITERS"));
        return verdict;
    }

    @Test
    void aGuaranteeIsObservedWhenEveryApplicableRuleRan() {
        String text = VerdictExtension.render(verdict(Guarantee.CORRECTNESS), "demo", "DemoTest");
        assertThat(text).contains("observed: CORRECTNESS (every rule that ran passed, and every fault rule that applies ran)");
    }

    @Test
    void aFaultRuleThatCouldNotRunLeavesTheGuaranteeNotShownAndIsNamed() {
        VerdictExtension.Verdict verdict = verdict(Guarantee.CORRECTNESS);
        verdict.results.add(new VerdictExtension.RuleResult("4.7", "paused minority", VerdictExtension.Status.SKIPPED,
                VerdictExtension.NOT_RUN + "the nodeFaults() hook of backend 'demo' does not offer PAUSE_MINORITY"));
        verdict.results.add(new VerdictExtension.RuleResult("4.6", "slow minority", VerdictExtension.Status.SKIPPED,
                VerdictExtension.NOT_RUN + "the nodeFaults() hook of backend 'demo' does not offer SLOW_MINORITY"));
        String text = VerdictExtension.render(verdict, "demo", "DemoTest");
        assertThat(text).contains("observed: CORRECTNESS not shown: rules 4.6, 4.7 did not run")
                .doesNotContain("observed: CORRECTNESS (");
    }

    @Test
    void securityRulesWithoutAHookAreNamedOnTheirOwnLineAndLeaveTheGuaranteeShown() {
        VerdictExtension.Verdict verdict = verdict(Guarantee.CORRECTNESS);
        for (String rule : new String[] {"6.1", "6.2", "6.3", "6.4"}) {
            verdict.results.add(new VerdictExtension.RuleResult(rule, "security", VerdictExtension.Status.SKIPPED,
                    VerdictExtension.NOT_RUN + "the verification supplies no security() hook"));
        }
        assertThat(VerdictExtension.render(verdict, "demo", "DemoTest"))
                .contains("observed: CORRECTNESS (every rule that ran passed")
                .contains("security (group 6): 0 of 4 rules passed (not verified: see their rows)");

        VerdictExtension.Verdict secured = verdict(Guarantee.CORRECTNESS);
        secured.results.add(new VerdictExtension.RuleResult("6.1", "wrong password", VerdictExtension.Status.PASSED, ""));
        assertThat(VerdictExtension.render(secured, "demo", "DemoTest"))
                .contains("security (group 6): shown: every rule of group 6 ran and passed");
    }

    @Test
    void aSecurityRuleForAFeatureTheBackendDoesNotDeclareLeavesGroupSixShownAndGroupEightNamesTheSkip() {
        VerdictExtension.Verdict verdict = verdict(Guarantee.EFFICIENCY);
        verdict.results.add(new VerdictExtension.RuleResult("6.1", "wrong password", VerdictExtension.Status.PASSED, ""));
        verdict.results.add(new VerdictExtension.RuleResult("6.5", "no revoke without rights", VerdictExtension.Status.SKIPPED,
                VerdictExtension.LACKS_FEATURE + "demo' lacks feature REVOCATION"));
        verdict.results.add(new VerdictExtension.RuleResult("8.1", "inspect", VerdictExtension.Status.SKIPPED,
                VerdictExtension.LACKS_FEATURE + "demo' lacks feature INSPECTION"));
        assertThat(VerdictExtension.render(verdict, "demo", "DemoTest"))
                .contains("security (group 6): shown: every rule of group 6 ran and passed")
                .contains("inspection and revocation (group 8): not verified: skipped: backend 'demo' lacks feature INSPECTION");
    }

    @Test
    void theLockViewGroupIsSummedUpOnItsOwnLineAndAFailureThereFailsTheDeclaration() {
        VerdictExtension.Verdict shown = verdict(Guarantee.CORRECTNESS);
        shown.results.add(new VerdictExtension.RuleResult("7.2", "unlock in a partition", VerdictExtension.Status.PASSED, ""));
        shown.results.add(new VerdictExtension.RuleResult("7.1", "no re-entry", VerdictExtension.Status.PASSED, ""));
        String text = VerdictExtension.render(shown, "demo", "DemoTest");
        assertThat(text).contains("the `Lock` view (group 7): shown: every rule of group 7 ran and passed")
                .contains("observed: CORRECTNESS (every rule that ran passed");
        assertThat(text.indexOf("| 7.1 |")).as("group 7 follows the others, in order").isGreaterThan(text.indexOf("| 2.7 |"))
                .isLessThan(text.indexOf("| 7.2 |"));

        VerdictExtension.Verdict skipped = verdict(Guarantee.EFFICIENCY);
        skipped.results.add(new VerdictExtension.RuleResult("7.1", "no re-entry", VerdictExtension.Status.SKIPPED,
                "skipped: backend 'demo' lacks feature AUTO_RENEWAL"));
        assertThat(VerdictExtension.render(skipped, "demo", "DemoTest"))
                .contains("the `Lock` view (group 7): not verified: skipped: backend 'demo' lacks feature AUTO_RENEWAL");

        VerdictExtension.Verdict failed = verdict(Guarantee.CORRECTNESS);
        failed.results.add(new VerdictExtension.RuleResult("7.1", "no re-entry", VerdictExtension.Status.FAILED, "re-entered"));
        failed.results.add(new VerdictExtension.RuleResult("7.2", "unlock in a partition", VerdictExtension.Status.PASSED, ""));
        assertThat(VerdictExtension.render(failed, "demo", "DemoTest"))
                .contains("the `Lock` view (group 7): 1 of 2 rules passed; failed 7.1")
                .contains("declaration NOT upheld: failed rules 7.1");
    }

    @Test
    void findingsStillSayWhatDidNotRun() {
        VerdictExtension.Verdict verdict = verdict(Guarantee.EFFICIENCY);
        verdict.findings.add("4.1 client pause: a stale write was accepted");
        verdict.results.add(new VerdictExtension.RuleResult("4.3", "restart", VerdictExtension.Status.SKIPPED,
                VerdictExtension.NOT_RUN + "does not offer RESTART_WITHOUT_PERSISTENCE"));
        assertThat(VerdictExtension.render(verdict, "demo", "DemoTest"))
                .contains("observed: EFFICIENCY (no rule failed; see the findings); rules 4.3 did not run");
    }

    @Test
    void aRuleWhoseFaultCannotHappenIsNamedWithoutLeavingTheGuaranteeUnshown() {
        VerdictExtension.Verdict verdict = verdict(Guarantee.CORRECTNESS);
        verdict.results.add(new VerdictExtension.RuleResult("4.15", "restart", VerdictExtension.Status.SKIPPED,
                VerdictExtension.DOES_NOT_APPLY + "a restart without persistence cannot happen to 'demo': Raft"));
        String text = VerdictExtension.render(verdict, "demo", "DemoTest");
        assertThat(text).contains("observed: CORRECTNESS (every rule that ran passed, and every fault rule that applies ran;"
                        + " rules 4.15 do not apply: their faults cannot happen to this backend, see their rows)")
                .contains("| 4.15 | restart | skipped | does not apply: a restart without persistence cannot happen to 'demo': Raft |");
        // A fault merely not offered still leaves the guarantee unshown, whatever else does not apply.
        verdict.results.add(new VerdictExtension.RuleResult("4.7", "paused minority", VerdictExtension.Status.SKIPPED,
                VerdictExtension.NOT_RUN + "the nodeFaults() hook of backend 'demo' does not offer PAUSE_MINORITY"));
        assertThat(VerdictExtension.render(verdict, "demo", "DemoTest")).contains("observed: CORRECTNESS not shown: rules 4.7 did not run");
    }

    @Test
    void aPartialRunNeverClaimsTheGuarantee() {
        VerdictExtension.Verdict verdict = verdict(Guarantee.CORRECTNESS);
        verdict.partial = "not selected: distlock.tck.rules=2";
        assertThat(VerdictExtension.render(verdict, "demo", "DemoTest"))
                .contains("observed: CORRECTNESS not shown: a partial run, only the rules listed ran (not selected: distlock.tck.rules=2)");
    }

    @Test
    void onlyRulesAreCountedAndAVerificationsOwnTestsAreLeftOut() {
        assertThat(VerdictExtension.ruleOf("4.7 a paused minority of servers (SIGSTOP)")).contains("4.7");
        assertThat(VerdictExtension.ruleOf("1.10 one lease used from several threads")).contains("1.10");
        assertThat(VerdictExtension.ruleOf("zookeeper: the partition, probe and revocation hooks do what they tell the TCK")).isEmpty();
        assertThat(VerdictExtension.ruleOf("theProbeTellsHowLongTheServerHoldsTheLock()")).isEmpty();
        assertThat(VerdictExtension.ruleOf("4.7")).as("a number without a title is no rule's display name").isEmpty();
    }
}
