package io.distlock.engine;

import io.distlock.Feature;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.spi.Revoked;

import java.util.List;
import java.util.Optional;

/**
 * An operator's calls on a client: who holds a lock ({@link LockClient#inspect},
 * {@link LockClient#holders}) and taking one back ({@link LockClient#revoke}). Each checks its
 * arguments and the backend's declared feature before the driver is called, so a backend says only
 * how to read and how to revoke; a revoke of a lease this very client holds ends that lease at once,
 * without waiting for the notification every other holder needs.
 */
final class Inspection {

    private final ClientState state;
    private final DriverCalls calls;
    private final Leases leases;
    private final Events events;

    Inspection(ClientState state, DriverCalls calls, Leases leases, Events events) {
        this.state = state;
        this.calls = calls;
        this.leases = leases;
        this.events = events;
    }

    Optional<LockInfo> inspect(String name) {
        Arguments.name(name);
        state.checkOpen();
        calls.driver().checkName(name);
        state.require(Feature.INSPECTION, "inspect");
        return calls.call("inspect '" + name + "'", () -> calls.driver().inspect(name));
    }

    List<LockInfo> holders(String prefix, int limit) {
        java.util.Objects.requireNonNull(prefix, "prefix must not be null");
        if (prefix.length() > LockClient.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("prefix is " + prefix.length() + " characters long; a lock name has at most "
                    + LockClient.MAX_NAME_LENGTH);
        }
        Arguments.noControlCharacters(prefix, "prefix");
        if (limit < 1 || limit > LockClient.MAX_HOLDERS_LIMIT) {
            throw new IllegalArgumentException("limit must be 1 to " + LockClient.MAX_HOLDERS_LIMIT + ", was " + limit);
        }
        state.checkOpen();
        state.require(Feature.INSPECTION, "holders");
        List<LockInfo> found = calls.call("list the locks held under '" + prefix + "'", () -> calls.driver().holders(prefix, limit));
        return found.size() <= limit ? List.copyOf(found) : List.copyOf(found.subList(0, limit));
    }

    Optional<LockInfo> revoke(String name, String reason) {
        Arguments.name(name);
        Arguments.text(reason, "revocation reason", LockClient.MAX_REASON_LENGTH);
        state.checkOpen();
        calls.driver().checkName(name);
        state.require(Feature.REVOCATION, "revoke");
        long start = state.nanoTime();
        Optional<Revoked> revoked = calls.call("revoke '" + name + "'", () -> calls.driver().revoke(name, reason));
        revoked.ifPresent(r -> {
            leases.revoked(r.ownerToken(), reason); // this client's own lease, if it was the holder
            events.revoked(name, state.nanoTime() - start, null, reason);
            EngineClient.LOG.log(System.Logger.Level.INFO, "revoked ''{0}'' on {1}: {2}; reason: {3}", name, state.endpoint(),
                    r.holder(), reason);
        });
        return revoked.map(Revoked::holder);
    }

    /** The holds of a read-write lock or a semaphore ({@link io.distlock.DistributedReadWriteLock#holders}). */
    List<LockInfo> holds(String name, Feature primitive) {
        state.checkOpen();
        state.require(Feature.INSPECTION, "holders");
        List<LockInfo> found = calls.call("list the holds of " + what(name, primitive), () -> calls.driver().holds(name, primitive));
        return List.copyOf(found);
    }

    /** Takes one hold of a read-write lock or a semaphore back ({@link io.distlock.DistributedSemaphore#revoke}). */
    Optional<LockInfo> revokeHold(String name, Feature primitive, String holdId, String reason) {
        Arguments.text(holdId, "hold id", LockClient.MAX_NAME_LENGTH);
        Arguments.text(reason, "revocation reason", LockClient.MAX_REASON_LENGTH);
        state.checkOpen();
        state.require(Feature.REVOCATION, "revoke");
        long start = state.nanoTime();
        String what = "hold " + holdId + " of " + what(name, primitive);
        Optional<Revoked> revoked = calls.call("revoke " + what, () -> calls.driver().revokeHold(name, primitive, holdId, reason));
        revoked.ifPresent(r -> {
            leases.revoked(r.ownerToken(), reason); // this client's own hold, if it was the one revoked
            events.revoked(name, state.nanoTime() - start, null, reason);
            EngineClient.LOG.log(System.Logger.Level.INFO, "revoked {0} on {1}: {2}; reason: {3}", what, state.endpoint(), r.holder(),
                    reason);
        });
        return revoked.map(Revoked::holder);
    }

    private static String what(String name, Feature primitive) {
        return (primitive == Feature.SEMAPHORE ? "semaphore '" : "read-write lock '") + name + "'";
    }
}
