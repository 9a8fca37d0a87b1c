package io.distlock.tck.memory;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.LockVerification;

import java.util.List;
import java.util.Optional;

/** The reference backend must pass every rule that applies (those needing QUORUM are skipped: it has one node). */
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

    private static final MemoryHooks HOOKS = new MemoryHooks("memory", "reference", Bug.NONE);

    /** Rules 4.8, 4.13: the server drops the holder's grant and does not tell it (as a deleted key). */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of(HOOKS.revocation(false));
    }

    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(HOOKS.partition());
    }

    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(HOOKS.probe());
    }

    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(HOOKS.restart());
    }
}
