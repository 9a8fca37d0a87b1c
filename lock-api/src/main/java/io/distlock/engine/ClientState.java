package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.LockOptions;

import java.time.Duration;

/**
 * What every part of one client reads: the backend it talks to, its options, its endpoint (as
 * messages name it), its clock and executors, and two facts that change — whether the client is
 * closed, and whether its driver reports its connection suspended (no lease can be vouched for).
 * It decides nothing: the parts that act ({@link Leases}, {@link DriverCalls}, {@link Cleanup},
 * {@link LeaseKeeper}, {@link Acquisition}) read it instead of calling back into the client.
 */
final class ClientState {

    private final BackendDescriptor descriptor;
    private final LockOptions options;
    private final String endpoint;
    private final EngineRuntime runtime;
    private final Object closeLock = new Object();
    private volatile boolean closed;
    /** Set by the driver while its connection cannot vouch for the server-side state (see DriverContext). */
    private volatile boolean suspended;

    ClientState(BackendDescriptor descriptor, LockOptions options, String endpoint, EngineRuntime runtime) {
        this.descriptor = descriptor;
        this.options = options;
        this.endpoint = endpoint;
        this.runtime = runtime;
    }

    BackendDescriptor descriptor() {
        return descriptor;
    }

    LockOptions options() {
        return options;
    }

    /** @return the client's endpoint as messages name it (the URI, password masked) */
    String endpoint() {
        return endpoint;
    }

    EngineRuntime runtime() {
        return runtime;
    }

    long nanoTime() {
        return runtime.nanoTime();
    }

    boolean closed() {
        return closed;
    }

    /** @return true the first time: the caller closes the client */
    boolean markClosed() {
        synchronized (closeLock) {
            if (closed) {
                return false;
            }
            closed = true;
            return true;
        }
    }

    /** @return true while the driver reports its connection suspended */
    boolean suspended() {
        return suspended;
    }

    /** @return true if this changed the state */
    boolean suspended(boolean now) {
        if (suspended == now) {
            return false;
        }
        suspended = now;
        return true;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the distlock client for " + endpoint + " is closed");
        }
    }

    IllegalStateException closedDuring(String operation, RuntimeException cause) {
        return new IllegalStateException("the distlock client for " + endpoint + " was closed during " + operation, cause);
    }

    void require(Feature feature, String operation) {
        if (!descriptor.has(feature)) {
            throw new UnsupportedOperationException(operation + " needs feature " + feature
                    + ", which backend '" + descriptor.scheme() + "' does not declare");
        }
    }

    /** A lease time in range, and longer than this client's drift allowance (else every grant arrives already expired). */
    void checkLeaseTime(Duration leaseTime) {
        Arguments.leaseTime(leaseTime);
        Duration drift = options.clockDrift(leaseTime);
        if (drift.compareTo(leaseTime) >= 0) {
            throw new IllegalArgumentException("leaseTime " + leaseTime + " is not longer than the client's clock-drift"
                    + " allowance for it (" + drift + " = " + options.clockDriftFactor() + " × lease + "
                    + options.clockDriftMinimum() + "): no lease could ever be valid; use a longer lease or a smaller"
                    + " LockOptions.clockDrift");
        }
    }
}
