package io.distlock.tck;

/**
 * A whitebox hook into a multi-node backend's test servers, for the rules that need nodes to fail
 * (rule 2.8). Supply one through {@link LockVerification#nodeFaults()}.
 */
public interface NodeFaults {

    /**
     * Stops a minority of the backend's nodes (for example 1 of 3, or 2 of 5) and returns at once.
     * The nodes stay down until the returned fault is closed.
     *
     * @return the fault; closing it brings the nodes back (and waits until they serve again)
     */
    Fault stopMinority();

    /** An injected fault that lasts until closed. */
    @FunctionalInterface
    interface Fault extends AutoCloseable {
        /** Ends the fault. Idempotent; never throws a checked exception. */
        @Override
        void close();
    }
}
