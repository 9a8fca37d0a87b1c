package io.distlock.tck.memory;

import io.distlock.tck.LockVerification;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TCK is tested too: each deliberately broken backend must fail the rule that names its bug,
 * with a message that says what went wrong, while the reference passes the same rule.
 */
class BrokenBackendsTest {

    @TempDir
    Path reports;

    static Stream<Arguments> bugs() {
        return Stream.of(
                Arguments.of(BrokenVerifications.BlindDelete.class, "required_1_2_releaseTouchesOnlyOwnLease", "blind delete"),
                Arguments.of(BrokenVerifications.NoExpiry.class, "required_2_2_recoveryAfterHolderStops", "nobody could acquire"),
                Arguments.of(BrokenVerifications.ConstantOwnerToken.class, "required_1_1_atMostOneValidLease", "overlapping valid leases"),
                Arguments.of(BrokenVerifications.ConstantOwnerToken.class, "required_1_2_releaseTouchesOnlyOwnLease", "release is not owner-only"),
                Arguments.of(BrokenVerifications.ConstantOwnerToken.class, "required_1_6_notReentrant", "was granted while the first lease is held"),
                Arguments.of(BrokenVerifications.NonMonotonicFence.class, "required_1_4_fencingTokensIncrease", "fencing token did not increase"),
                Arguments.of(BrokenVerifications.LeakedAbandon.class, "required_2_4_interruptedAcquireLeavesNothing", "an interrupted acquire left a request behind"),
                Arguments.of(BrokenVerifications.LeakedAbandon.class, "required_2_5_timedOutAcquireLeavesNothing", "a timed-out acquire left a request behind"),
                Arguments.of(BrokenVerifications.EarlyExpiry.class, "required_1_5_remainingNeverOverPromises", "still promised"),
                Arguments.of(BrokenVerifications.LifoWaiters.class, "optional_2_7_fifoWaiters", "not in the order they started waiting"),
                Arguments.of(BrokenVerifications.BlindExtend.class, "required_4_13_revokedHolderCannotExtend", "A's extend returned true"),
                Arguments.of(BrokenVerifications.SilentNotifications.class, "required_2_9_notifiedWakeUp", "do its notifications fire?"),
                Arguments.of(BrokenVerifications.ForgetsFailedCleanup.class, "required_4_9_releaseDuringPartition", "A's release was forgotten"),
                Arguments.of(BrokenVerifications.ForgetsFailedCleanup.class, "required_4_10_waitEndsDuringPartition", "left in the lock's way"),
                Arguments.of(BrokenVerifications.UnknownAsBusy.class, "required_4_12_blackholeIsUnavailableNotBusy", "empty (contention)"),
                Arguments.of(BrokenVerifications.ReorderedExtends.class, "required_1_10_concurrentUseNeverOverPromises", "than remaining() had promised"),
                Arguments.of(BrokenVerifications.OwnerByName.class, "required_1_9_ownershipWithinOneClient", "keyed by client and name"),
                Arguments.of(BrokenVerifications.LateWriteWins.class, "required_4_14_interruptedInFlightLeavesNothingHeld", "left the lock held"),
                Arguments.of(BrokenVerifications.FenceResetsOnRestart.class, "required_4_15_fencesSurviveRestart", "restarted empty and handed out"),
                Arguments.of(BrokenVerifications.NeverRestored.class, "required_4_16_servesAgainAfterALongPartition", "could not acquire a free lock"),
                Arguments.of(BrokenVerifications.SweepForgetsInFlight.class, "required_4_19_grantOfAnEndedSessionIsNeverValid",
                        "two valid leases"),
                Arguments.of(BrokenVerifications.LateCopyAfterRelease.class, "required_4_17_lateCopiesOfReleasedRequestsTakeNothing", "a late copy of A's acquire took it"),
                Arguments.of(BrokenVerifications.WallClockExpiry.class, "required_4_4_clockJump", "the server let A's lock expire early"),
                Arguments.of(BrokenVerifications.AsyncReplication.class, "required_4_5_primaryFailover", "after a failover B was granted"),
                Arguments.of(BrokenVerifications.TimeoutPerRead.class, "required_4_12_blackholeIsUnavailableNotBusy",
                        "a single attempt on a blackholed server took"),
                Arguments.of(BrokenVerifications.LateGrantAsBusy.class, "required_4_18_lateGrantIsUnavailableNotBusy",
                        "a grant that arrived after its validity was reported as busy"),
                Arguments.of(BrokenVerifications.WrongPasswordAsUnavailable.class, "required_6_1_wrongPassword",
                        "was reported as unavailable, not refused"),
                Arguments.of(BrokenVerifications.StateWithoutAcl.class, "required_6_2_noRightsNoLock",
                        "another client was granted it while the holder's lease is valid"),
                Arguments.of(BrokenVerifications.NoRightsAsBusy.class, "required_6_2_noRightsNoLock",
                        "returned empty (busy) instead of throwing AccessDeniedException"),
                Arguments.of(BrokenVerifications.TrustsAnyCertificate.class, "required_6_3_untrustedServer",
                        "the client accepted a server whose certificate it does not trust"),
                Arguments.of(BrokenVerifications.LogsPassword.class, "required_6_4_noSecretAnywhere",
                        "a secret (shown here as ***) appears"),
                Arguments.of(BrokenVerifications.SlowClose.class, "required_4_20_closeUnderABlackhole",
                        "something waited out another timeout"),
                Arguments.of(BrokenVerifications.TimeoutAsLost.class, "required_4_21_renewalMeetsAShortSilence",
                        "a renewal nobody answered was reported as lost"),
                Arguments.of(BrokenVerifications.OwnWriteUnrecognised.class, "required_4_22_waitOutlivesItsLostFirstReply",
                        "the retry did not recognise A's own write"),
                Arguments.of(BrokenVerifications.ViewReentersLostLease.class, "required_7_1_noReEntryAfterRevocation",
                        "the holding thread re-entered a lost lease"),
                Arguments.of(BrokenVerifications.ViewUnknownAsLost.class, "required_7_2_unlockDuringAShortPartitionIsNoLoss",
                        "a client that could not tell reported a loss"),
                Arguments.of(BrokenVerifications.JvmLocalFence.class, "required_1_4_fencingTokensIncrease",
                        "fencing token did not increase"),
                Arguments.of(BrokenVerifications.JvmLocalFence.class, "required_1_7_fencedResourceAcceptsValidHolders",
                        "writes of valid holders were rejected"),
                Arguments.of(BrokenVerifications.JvmLocalFence.class, "required_4_15_fencesSurviveRestart",
                        "handed out fencing token"),
                Arguments.of(BrokenVerifications.NoFencingToken.class, "required_4_15_fencesSurviveRestart",
                        "declaring FENCING_TOKENS has no fencing token"));
    }

    @ParameterizedTest(name = "{0} fails {1}")
    @MethodSource("bugs")
    void brokenBackendFailsItsRule(Class<? extends LockVerification> broken, String rule, String expectedMessage) throws IOException {
        EngineExecutionResults results = run(broken, rule);

        List<Event> failed = results.testEvents().failed().list();
        assertThat(failed).as("failures of %s.%s", broken.getSimpleName(), rule).hasSize(1);
        Throwable failure = failed.get(0).getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow();
        assertThat(failure).hasMessageContaining(expectedMessage);

        String ruleId = rule.replaceAll("^[a-z]+_(\\d+)_(\\d+)_.*$", "$1.$2");
        assertThat(failure).hasMessageStartingWith("[" + ruleId + "]");
        try (Stream<Path> verdicts = Files.list(reports)) {
            Path verdict = verdicts.filter(p -> p.getFileName().toString().startsWith("broken-")).findFirst().orElseThrow();
            assertThat(Files.readString(verdict, StandardCharsets.UTF_8))
                    .contains("| " + ruleId + " |", "| failed |", "declaration NOT upheld: failed rules " + ruleId);
        }

        // A broken session store is held against the reference shaped like one.
        Class<?> referenceClass = BrokenVerifications.OnSessionScheme.class.isAssignableFrom(broken) ? MemorySessionTest.class
                : MemoryReferenceTest.class;
        EngineExecutionResults reference = run(referenceClass, rule);
        assertThat(reference.testEvents().succeeded().count())
                .as("the reference passes %s: %s", rule, describe(reference))
                .isEqualTo(1);
    }

    @Test
    void honestEfficiencyLockPassesWithAFindingAndSkipsWhatItLacks() throws IOException {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .selectors(DiscoverySelectors.selectClass(BrokenVerifications.Efficiency.class))
                .execute();

        assertThat(results.testEvents().failed().count()).as(describe(results)).isZero();
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
        assertThat(ran).containsExactlyInAnyOrder("1.8", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6");
        assertThat(results.testEvents().skipped().map(e -> e.getPayload(String.class).orElse("")).collect(Collectors.toList()))
                .allSatisfy(reason -> assertThat(reason).startsWith("not selected: distlock.tck.rules=1.8, 5"));
    }

    @Test
    void aClassCanSelectItsOwnRules() {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .selectors(DiscoverySelectors.selectClass(BrokenVerifications.SelectedReference.class))
                .execute();
        List<String> ran = results.testEvents().finished().map(e -> e.getTestDescriptor().getDisplayName().split(" ")[0])
                .collect(Collectors.toList());
        assertThat(ran).containsExactlyInAnyOrder("1.8", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6");
        assertThat(results.testEvents().failed().count()).as(describe(results)).isZero();
    }

    @Test
    void rulesThatMustPassFailTheClassWhenSkipped() throws IOException {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .selectors(DiscoverySelectors.selectClass(BrokenVerifications.SecurityRequiredWithoutHook.class))
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
                .as("the verdict is written first").contains("security (group 6): 0 of 4 rules passed");
    }

    private EngineExecutionResults run(Class<?> verification, String method) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .selectors(DiscoverySelectors.selectMethod(verification, method))
                .execute();
    }

    private static String describe(EngineExecutionResults results) {
        return results.testEvents().list().stream()
                .filter(e -> e.getPayload(TestExecutionResult.class).isPresent())
                .map(e -> e.getTestDescriptor().getDisplayName() + " -> "
                        + e.getRequiredPayload(TestExecutionResult.class))
                .collect(Collectors.joining("\n"));
    }
}
