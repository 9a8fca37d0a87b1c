package io.distlock.tck;

import java.util.Objects;
import java.util.Optional;

/**
 * A whitebox hook that crashes the backend's server and starts it again with none of its data (a
 * restart without persistence): the one server of a single-node backend, one node of a quorum
 * backend. Rule 4.15 checks that fencing tokens still increase afterwards. Supply it through
 * {@link LockVerification#serverRestart()}.
 */
@FunctionalInterface
public interface ServerRestart {

    /**
     * Kills the server (or one node) and starts it again empty, on the same address; returns once
     * it serves again.
     */
    void restartWithoutPersistence();

    /**
     * @return why a restart without persistence cannot happen to this backend, if it cannot (see
     *         {@link #impossible(String)}); empty by default
     */
    default Optional<String> impossibleBecause() {
        return Optional.empty();
    }

    /**
     * The hook of a backend whose servers cannot be restarted without their data at all: rule 4.15
     * then does not apply, and its row and the verdict say why. Only for a restart the server
     * itself refuses because it would void the backend's own safety (a Raft member that forgot its
     * log and vote), never for one that is merely hard to stage.
     *
     * @param reason why, in the terms of the backend's fault model
     * @return a hook that restarts nothing
     */
    static ServerRestart impossible(String reason) {
        Objects.requireNonNull(reason, "reason");
        return new ServerRestart() {
            @Override
            public void restartWithoutPersistence() {
                throw new UnsupportedOperationException(reason);
            }

            @Override
            public Optional<String> impossibleBecause() {
                return Optional.of(reason);
            }
        };
    }
}
