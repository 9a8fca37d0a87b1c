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
     * Reports that an operator revoked a lease ({@link io.distlock.LockClient#revoke}), as the
     * driver learnt it (a notification, a watch): the engine ends the lease of this client whose
     * owner token it is, if any, with {@link Lease.LossReason#REVOKED}, and tells the listener.
     * A notification may overtake the answer to the acquire the revoke ended: a token this client
     * holds no lease of is remembered (the latest thousand or so), and a grant of it that the driver
     * returns later is given back, its attempt reported unavailable — never a valid lease. Tokens of
     * other clients' leases, or of leases already ended, change nothing. The driver must
     * only report what the server showed to be a revocation (a notification anyone may forge is
     * checked on the server first).
     *
     * @param ownerToken the revoked lease's owner token
     * @param reason     the operator's reason, as the server kept it
     */
    default void leaseRevoked(String ownerToken, String reason) {
    }

    /**
     * The description this client's leases carry for whoever inspects a lock
     * ({@link io.distlock.LockOptions#owner()}, or the engine's default
     * {@code user@host:pid/<client-id>}): a driver stores it with every grant. Never a secret.
     *
     * @return the owner description; this default (for a driver's own tests) is {@code "unknown"}
     */
    default String owner() {
        return "unknown";
    }

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
     * For a session-based store: reports that the server heard from {@code session} no earlier than
     * {@code sentAtNanos} (the send time, on {@link System#nanoTime()}, of a request whose answer
     * proves the session alive — a write, or a read the server synchronised with the one that ends
     * sessions; not a read a lagging replica served on its own), and keeps a session it hears nothing
     * from for {@code sessionTimeout}. From the first report on, no lease bound to that session
     * ({@link Grant#session()}) is valid past {@code sentAtNanos + sessionTimeout − drift} of its
     * latest report: a process that was paused longer than its session timeout wakes up with no
     * valid lease, even before its connection notices anything. Reports about one session never
     * vouch for another: a grant bound to a session the engine has no report of is given back. The
     * driver reports a session before it returns a grant bound to it, and regularly while it holds
     * grants (a few seconds at most a third of the session timeout apart); older reports than the
     * latest are ignored, and so are reports of a session that ended.
     *
     * @param session        the session, as grants name it
     * @param sentAtNanos    when the answered request was sent, on {@link System#nanoTime()}
     * @param sessionTimeout the session timeout the server granted
     */
    default void sessionConfirmed(Object session, long sentAtNanos, Duration sessionTimeout) {
    }

    /**
     * For a session-based store: reports that {@code session} has ended on the server (it expired,
     * was closed, or an operator revoked it) or that this client gave it up: everything bound to it
     * is gone. The engine marks every lease bound to it lost ({@link Lease.LossReason#BACKEND_LOST})
     * and, under the same lock as it records grants, makes sure that a grant bound to it that the
     * driver returns from now on — one the server decided before the session ended, whose answer the
     * client records only afterwards — is given back and its attempt reported unavailable, never
     * returned as a valid lease. Repeated calls are harmless.
     *
     * @param session the session, as grants name it
     */
    default void sessionEnded(Object session) {
    }

    /**
     * Reports that this client's release of its lock on {@code name} (an exclusive hold, not a read
     * hold or a permit) woke waiters: the release's announcement reached at least one of them (of
     * another client, or of this one). A fairness hint, never a safety one. The waiters' attempts
     * are on their way; a client that releases and at once waits for the lock again would otherwise
     * win that race more often than its share (its attempt leaves when the release's answer comes;
     * theirs, a thread's wake-up later). So an acquire of this client that waits for the lock
     * {@code name} and starts within a short courtesy pause — twice {@code roundTrip}, at least
     * 200 µs and at most 20 ms — makes its first attempt only at the pause's end. Single attempts
     * ({@code tryAcquire} without a wait) are never held back. The default ignores it.
     *
     * @param name      the lock name
     * @param roundTrip how long the release took, from sending it to its answer: about what a woken
     *                  waiter needs to get its attempt to the server
     */
    default void releaseWokeWaiters(String name, Duration roundTrip) {
    }
}
