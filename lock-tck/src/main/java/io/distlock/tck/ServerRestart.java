package io.distlock.tck;

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
}
