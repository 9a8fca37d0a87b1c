package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.LockClient;

import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What every group of rules shares: the per-rule {@link Rig}, the verdict extension, what a rule
 * leaves for the verdict, and the helpers every group uses.
 *
 * <p>The rules live in one package-private class per group of {@code lock-tck/SPEC.md}, chained by
 * inheritance so that JUnit finds every rule through the author's one subclass:
 * {@code VerificationSupport} &larr; {@link SafetyRules} (1) &larr; {@link LivenessRules} (2) &larr;
 * {@link RenewalRules} (3) &larr; {@link FaultRules} (4) &larr; {@link RevocationRules} (4.8) &larr;
 * {@link PartitionRules} (4.9) &larr; {@link SessionRules} (4.19) &larr; {@link ServerFaultRules} (4.4, 4.5) &larr;
 * {@link SilenceRules} (4.20) &larr; {@link InputRules} (5) &larr; {@link SecurityRules} (6) &larr; {@link LockViewRules} (7) &larr;
 * {@link LockVerification}, the one public class. A rule is a {@code public} test method (it shows
 * as a member of {@code LockVerification}); everything a rule needs besides is package-private or
 * private, so a new rule never widens what an author sees.
 *
 * <p>Everything public or protected that is not a rule (the hooks, {@code SECRET}, the per-rule
 * set-up and tear-down) is declared on {@link LockVerification}, where an author looks for it. The
 * hooks are declared here as well, abstract, only so that the rules can call them.
 */
abstract class VerificationSupport {

    /** Writes the verdict after the class (static: it needs the class-level callbacks). */
    @RegisterExtension
    static final Extension VERDICT = new VerdictExtension();

    /** Runs only the rules {@code -Ddistlock.tck.rules} selects (all by default). */
    @RegisterExtension
    static final Extension RULES = new RuleFilter();

    /** The running rule's clients, leases, threads and lock name; set by {@link LockVerification#openRule}. */
    Rig rig;
    /** Expected weaknesses a passing rule found (4.1: an efficiency lock's stale write), for the verdict. */
    final List<String> findings = new CopyOnWriteArrayList<>();
    /** What a passing rule measured (the size of a contention history), for the verdict. */
    final List<String> notes = new CopyOnWriteArrayList<>();

    // ------------------------------------------------------------------------------------------
    // The hooks: documented, with their defaults, on LockVerification

    /**
     * See {@link LockVerification#newClient()}.
     *
     * @return what the verification supplies
     */
    protected abstract LockClient newClient();

    /**
     * See {@link LockVerification#malformedUris()}.
     *
     * @return what the verification supplies
     */
    protected abstract List<String> malformedUris();

    /**
     * See {@link LockVerification#unreachableUri()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<String> unreachableUri();

    /**
     * See {@link LockVerification#nodeFaults()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<NodeFaults> nodeFaults();

    /**
     * See {@link LockVerification#leaseRevocation()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<LeaseRevocation> leaseRevocation();

    /**
     * See {@link LockVerification#clientPartition()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<ClientPartition> clientPartition();

    /**
     * See {@link LockVerification#lockProbe()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<LockProbe> lockProbe();

    /**
     * See {@link LockVerification#serverRestart()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<ServerRestart> serverRestart();

    /**
     * See {@link LockVerification#clockJump()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<ClockJump> clockJump();

    /**
     * See {@link LockVerification#replicaFailover()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<ReplicaFailover> replicaFailover();

    /**
     * See {@link LockVerification#sessionEnd()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<SessionEnd> sessionEnd();

    /**
     * See {@link LockVerification#security()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<Security> security();

    /**
     * See {@link LockVerification#separateProcess()}.
     *
     * @return what the verification supplies
     */
    protected abstract Optional<SeparateProcess> separateProcess();

    /**
     * See {@link LockVerification#environment()}.
     *
     * @return what the verification supplies
     */
    protected abstract TestEnvironment environment();

    // ------------------------------------------------------------------------------------------
    // For the verdict, and for the rules

    Optional<BackendDescriptor> descriptorSeen() {
        return rig == null ? Optional.empty() : rig.descriptorSeen();
    }

    List<String> findings() {
        return List.copyOf(findings);
    }

    List<String> notes() {
        return List.copyOf(notes);
    }

    TestEnvironment env() {
        return rig.env;
    }

    String msg(String text) {
        return rig.msg(text);
    }

    /**
     * Starts a client in a child JVM from the {@link #separateProcess()} hook, which every verification
     * must supply; the rule's {@link Rig} ends it after the rule.
     *
     * @param label what the rule calls the client
     * @return the child, starting (it connects when first used)
     * @throws AssertionError if the hook is absent, naming it
     */
    ChildClient launchSeparateProcess(String label) {
        Optional<SeparateProcess> hook = separateProcess();
        assertTrue(hook.isPresent(), msg("the verification of backend '" + rig.backend().scheme() + "' supplies no"
                + " separateProcess(): every backend can be used from two processes, and a fencing token must increase"
                + " across them (one that increases only within a JVM passes every rule whose clients share one)"));
        return rig.launch(hook.get(), label);
    }

    void requireFeature(Feature feature) {
        BackendDescriptor backend = rig.backend();
        assumeTrue(backend.has(feature), () -> "skipped: backend '" + backend.scheme() + "' lacks feature " + feature);
    }
}
