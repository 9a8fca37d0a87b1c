package io.distlock.tck.memory;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.LockVerification;

import java.util.Optional;

/**
 * The reference shaped like a session store ({@code memory-session}: the server never expires a
 * grant; the engine ends each lease through {@code LockDriver.leaseExpired}) must pass every rule
 * the reference passes: the engine's lease end makes {@code leaseTime} mean the same on it.
 */
class MemorySessionTest extends LockVerification {

    @Override
    protected LockClient newClient() {
        return Locks.connect("memory-session://session");
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("memory-session://tck:" + SECRET + "@down-session");
    }

    private static final MemoryHooks HOOKS = new MemoryHooks("memory-session", "session", Bug.NO_EXPIRY);

    /** A session expiry: the holder's driver hears of it at once. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of(HOOKS.revocation(true));
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
