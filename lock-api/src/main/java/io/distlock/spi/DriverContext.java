package io.distlock.spi;

import io.distlock.Lease;

import java.time.Duration;

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
     * The engine also retries every pending cleanup at once. Call it only when nothing the client
     * held can have been given to someone else in between. Repeated calls are harmless.
     */
    void connectionRestored();

    /**
     * For a session-based store: reports that the server heard from this client's session no
     * earlier than {@code sentAtNanos} (the send time, on {@link System#nanoTime()}, of a request
     * the server answered), and keeps a session it hears nothing from for {@code sessionTimeout}.
     * From the first report on, no lease of the client is valid past
     * {@code sentAtNanos + sessionTimeout − drift} of the latest report: a process that was paused
     * longer than its session timeout wakes up with no valid lease, even before its connection
     * notices anything. The driver reports regularly while it holds grants (every few seconds at
     * most a third of the session timeout apart); older reports than the latest are ignored.
     *
     * @param sentAtNanos    when the answered request was sent, on {@link System#nanoTime()}
     * @param sessionTimeout the session timeout the server granted
     */
    default void sessionConfirmed(long sentAtNanos, Duration sessionTimeout) {
    }
}
