package io.distlock.spi;

import io.distlock.Lease;

/**
 * What the engine offers a driver: a way to report what the driver learns on its own. Every method
 * is safe to call from any thread (typically the driver's event thread) and returns at once.
 */
public interface DriverContext {

    /**
     * Reports that a lease was lost on the backend's initiative (a session expired, a watch saw the
     * lock node vanish). The engine marks the lease lost and completes {@link Lease#lost()}. Unknown
     * or already-released grants are ignored.
     *
     * @param grant  the grant that was lost
     * @param reason why
     */
    void leaseLost(Grant grant, Lease.LossReason reason);

    /**
     * Reports that the driver's connection is suspended: it cannot currently tell whether the
     * server still holds this client's leases (a session-based store whose connection dropped;
     * the session may or may not survive). Until {@link #connectionRestored()}, every lease of
     * the client reports {@link Lease#isValid()} {@code false} and {@link Lease#remaining()} zero:
     * validity is never promised on a connection that cannot vouch for it. Leases are not
     * declared lost by this; if the driver learns the session is gone, it reports each lease
     * through {@link #leaseLost}. Repeated calls are harmless.
     */
    void connectionSuspended();

    /**
     * Reports that the connection is back with the server-side state intact (the same session):
     * leases count as valid again, within their own validity, which kept running meanwhile (a
     * lease whose validity passed during the suspension is lost, {@link Lease.LossReason#EXPIRED}).
     * Call it only when nothing the client held can have been given to someone else in between.
     * Repeated calls are harmless.
     */
    void connectionRestored();
}
