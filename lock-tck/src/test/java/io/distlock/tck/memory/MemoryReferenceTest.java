package io.distlock.tck.memory;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockVerification;

import java.util.List;
import java.util.Optional;

/** The reference backend must pass every rule (2.8 is skipped: it has no QUORUM). */
class MemoryReferenceTest extends LockVerification {

    @Override
    protected LockClient newClient() {
        return Locks.connect("memory://reference");
    }

    @Override
    protected List<String> malformedUris() {
        return List.of(
                "memory://tck:" + SECRET + "@",
                "memory://tck:" + SECRET + "@reference/some/path",
                "memory://tck:" + SECRET + "@reference?mode=fast",
                "memory://tck:" + SECRET + "@reference:6379",
                "memory:tck:" + SECRET);
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("memory://tck:" + SECRET + "@down-reference");
    }

    /** Rule 4.8: the server drops the holder's grant on its own and tells its driver (a session expiry). */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> MemoryServer.named("memory", "reference", Bug.NONE).revoke(lockName));
    }
}
