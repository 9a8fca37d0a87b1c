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

    static class BlindDelete extends LockVerification {
        @Override
        protected LockClient newClient() {
            return Locks.connect("broken-blind-delete://tck");
        }
    }

    static class NoExpiry extends LockVerification {
        @Override
        protected LockClient newClient() {
            return Locks.connect("broken-no-expiry://tck");
        }
    }

    static class ConstantOwnerToken extends LockVerification {
        @Override
        protected LockClient newClient() {
            return Locks.connect("broken-constant-owner://tck");
        }
    }

    static class NonMonotonicFence extends LockVerification {
        @Override
        protected LockClient newClient() {
            return Locks.connect("broken-non-monotonic-fence://tck");
        }
    }

    static class LeakedAbandon extends LockVerification {
        @Override
        protected LockClient newClient() {
            return Locks.connect("broken-leaked-abandon://tck");
        }
    }

    static class EarlyExpiry extends LockVerification {
        @Override
        protected LockClient newClient() {
            return Locks.connect("broken-early-expiry://tck");
        }
    }

    static class LifoWaiters extends LockVerification {
        @Override
        protected LockClient newClient() {
            return Locks.connect("broken-lifo-waiters://tck");
        }
    }

    /** Not broken: an honest efficiency lock, which passes with a finding for rule 4.1. */
    static class Efficiency extends LockVerification {
        @Override
        protected LockClient newClient() {
            return Locks.connect("memory-efficiency://tck");
        }

        @Override
        protected Optional<String> unreachableUri() {
            return Optional.of("memory-efficiency://tck:" + SECRET + "@down-tck");
        }
    }
}
