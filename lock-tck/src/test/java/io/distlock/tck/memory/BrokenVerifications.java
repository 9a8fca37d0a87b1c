package io.distlock.tck.memory;

import io.distlock.LockClient;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.PartitionedClient;

import java.util.Optional;

/**
 * Verifications of the broken and variant in-memory backends. Their names do not end in "Test",
 * so Surefire does not run them; {@link BrokenBackendsTest} runs them through the JUnit testkit and
 * checks that the right rule fails.
 */
final class BrokenVerifications {

    private BrokenVerifications() {
    }

    /**
     * A verification whose clients all connect to {@code <scheme>://secure-tck} as {@code locker}, with every hook the
     * reference has, so that a rule fails for the backend's bug, not for a missing hook.
     */
    abstract static class OnScheme extends MemoryVerification {
        OnScheme(String scheme) {
            super(scheme, "secure-tck", false);
        }

        /** One link, the shape each rule's broken variant was written against; 4.17's variant has two. */
        @Override
        protected int routes() {
            return 1;
        }
    }

    static class BlindDelete extends OnScheme {
        BlindDelete() {
            super("broken-blind-delete");
        }
    }

    static class NoExpiry extends OnScheme {
        NoExpiry() {
            super("broken-no-expiry");
        }
    }

    static class ConstantOwnerToken extends OnScheme {
        ConstantOwnerToken() {
            super("broken-constant-owner");
        }
    }

    static class NonMonotonicFence extends OnScheme {
        NonMonotonicFence() {
            super("broken-non-monotonic-fence");
        }
    }

    static class LeakedAbandon extends OnScheme {
        LeakedAbandon() {
            super("broken-leaked-abandon");
        }
    }

    static class EarlyExpiry extends OnScheme {
        EarlyExpiry() {
            super("broken-early-expiry");
        }
    }

    static class LifoWaiters extends OnScheme {
        LifoWaiters() {
            super("broken-lifo-waiters");
        }
    }

    static class BlindExtend extends OnScheme {
        BlindExtend() {
            super("broken-blind-extend");
        }
    }

    static class SilentNotifications extends OnScheme {
        SilentNotifications() {
            super("broken-silent-notifications");
        }
    }

    static class ForgetsFailedCleanup extends OnScheme {
        ForgetsFailedCleanup() {
            super("broken-forgets-cleanup");
        }
    }

    static class UnknownAsBusy extends OnScheme {
        UnknownAsBusy() {
            super("broken-unknown-as-busy");
        }
    }

    static class ReorderedExtends extends OnScheme {
        ReorderedExtends() {
            super("broken-reordered-extends");
        }
    }

    static class OwnerByName extends OnScheme {
        OwnerByName() {
            super("broken-owner-by-name");
        }
    }

    static class LateWriteWins extends OnScheme {
        LateWriteWins() {
            super("broken-late-write-wins");
        }
    }

    static class FenceResetsOnRestart extends OnScheme {
        FenceResetsOnRestart() {
            super("broken-fence-resets");
        }
    }

    /** A verification of a broken session store, whose reference is {@link MemorySessionTest}. */
    abstract static class OnSessionScheme extends OnScheme {
        OnSessionScheme(String scheme) {
            super(scheme);
        }

        @Override
        protected boolean sessionStore() {
            return true;
        }
    }

    static class SweepForgetsInFlight extends OnSessionScheme {
        SweepForgetsInFlight() {
            super("broken-sweep-forgets-in-flight");
        }
    }

    static class NeverRestored extends OnSessionScheme {
        NeverRestored() {
            super("broken-never-restored");
        }
    }

    static class LateCopyAfterRelease extends OnScheme {
        LateCopyAfterRelease() {
            super("broken-late-copy");
        }

        @Override
        protected int routes() {
            return 2;
        }
    }

    static class WallClockExpiry extends OnScheme {
        WallClockExpiry() {
            super("broken-wall-clock");
        }
    }

    static class AsyncReplication extends OnScheme {
        AsyncReplication() {
            super("broken-async-replication");
        }
    }

    static class TimeoutPerRead extends OnScheme {
        TimeoutPerRead() {
            super("broken-timeout-per-read");
        }
    }

    static class LateGrantAsBusy extends OnScheme {
        LateGrantAsBusy() {
            super("broken-late-grant-busy");
        }
    }

    static class WrongPasswordAsUnavailable extends OnScheme {
        WrongPasswordAsUnavailable() {
            super("broken-wrong-password-unavailable");
        }
    }

    static class StateWithoutAcl extends OnScheme {
        StateWithoutAcl() {
            super("broken-state-without-acl");
        }
    }

    static class NoRightsAsBusy extends OnScheme {
        NoRightsAsBusy() {
            super("broken-no-rights-busy");
        }
    }

    static class TrustsAnyCertificate extends OnScheme {
        TrustsAnyCertificate() {
            super("broken-trusts-any-certificate");
        }
    }

    static class LogsPassword extends OnScheme {
        LogsPassword() {
            super("broken-logs-password");
        }
    }

    static class SlowClose extends OnScheme {
        SlowClose() {
            super("broken-slow-close");
        }
    }

    static class TimeoutAsLost extends OnScheme {
        TimeoutAsLost() {
            super("broken-timeout-as-lost");
        }
    }

    static class OwnWriteUnrecognised extends OnScheme {
        OwnWriteUnrecognised() {
            super("broken-own-write-unrecognised");
        }
    }

    /**
     * The reference (or its session-store shape) seen through a client whose {@code Lock} view has one
     * defect ({@link BrokenViewClient}): the view is engine code, so its defects are staged on the
     * client, for every client the rules open (partitioned ones included).
     */
    abstract static class BrokenView extends MemoryVerification {
        private final BrokenViewClient.Defect defect;

        BrokenView(String scheme, boolean revocationTellsHolder, BrokenViewClient.Defect defect) {
            super(scheme, "view-tck", revocationTellsHolder);
            this.defect = defect;
        }

        @Override
        protected LockClient newClient() {
            return new BrokenViewClient(super.newClient(), defect);
        }

        @Override
        protected Optional<ClientPartition> clientPartition() {
            ClientPartition real = super.clientPartition().orElseThrow();
            return Optional.of(ClientPartition.of(() -> {
                PartitionedClient cut = real.open();
                return new PartitionedClient(new BrokenViewClient(cut.client(), defect), cut.links(), cut::close);
            }, real.operationTimeout(), real.reconnect(), real.sessionTimeout()));
        }
    }

    /** A view whose holder re-enters a lost lease. */
    static class ViewReentersLostLease extends BrokenView {
        ViewReentersLostLease() {
            super("memory", false, BrokenViewClient.Defect.REENTERS_LOST_LEASE);
        }
    }

    /** A view that reports "could not tell" as lost, on the session-store shape (a dropped link suspends it). */
    static class ViewUnknownAsLost extends BrokenView {
        ViewUnknownAsLost() {
            super("memory-session", true, BrokenViewClient.Defect.UNCONFIRMED_AS_LOST);
        }
    }

    static class JvmLocalFence extends OnScheme {
        JvmLocalFence() {
            super("broken-jvm-local-fence");
        }
    }

    static class NoFencingToken extends OnScheme {
        NoFencingToken() {
            super("broken-missing-token");
        }
    }

    /** The reference on two rules and a group, selected by the class itself. */
    @io.distlock.tck.RuleSelection("1.8, 5")
    static class SelectedReference extends MemoryReferenceTest {
    }

    /** Group 6 required to pass, on a server without authentication (no security hook): the class must fail. */
    @io.distlock.tck.RuleSelection(value = "6", mustPass = "6")
    static class SecurityRequiredWithoutHook extends MemoryVerification {
        SecurityRequiredWithoutHook() {
            super("memory", "plain-selected", false);
        }
    }

    /** Not broken: an honest efficiency lock, which passes with a finding for rule 4.1. */
    static class Efficiency extends OnScheme {
        Efficiency() {
            super("memory-efficiency");
        }

        @Override
        protected Optional<String> unreachableUri() {
            return Optional.of("memory-efficiency://tck:" + SECRET + "@down-tck");
        }
    }
}
