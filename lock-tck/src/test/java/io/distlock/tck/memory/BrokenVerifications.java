package io.distlock.tck.memory;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.LockVerification;

import java.util.Optional;

/**
 * Verifications of the broken and variant in-memory backends. Their names do not end in "Test",
 * so Surefire does not run them; {@link BrokenBackendsTest} runs them through the JUnit testkit and
 * checks that the right rule fails.
 */
final class BrokenVerifications {

    private BrokenVerifications() {
    }

    /** A verification whose clients all connect to {@code <scheme>://tck}. */
    abstract static class OnScheme extends LockVerification {
        private final String scheme;

        OnScheme(String scheme) {
            this.scheme = scheme;
        }

        @Override
        protected LockClient newClient() {
            return Locks.connect(scheme + "://tck");
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
