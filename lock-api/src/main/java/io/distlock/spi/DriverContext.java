package io.distlock.spi;

import io.distlock.Lease;

/**
 * What the engine offers a driver: a way to report what the driver learns on its own.
 */
public interface DriverContext {

    /**
     * Reports that a lease was lost on the backend's initiative (a session expired, a watch saw the
     * lock node vanish). The engine marks the lease lost and completes {@link Lease#lost()}. Unknown
     * or already-released grants are ignored. Safe to call from any thread.
     *
     * @param grant  the grant that was lost
     * @param reason why
     */
    void leaseLost(Grant grant, Lease.LossReason reason);
}
