package io.distlock.redis.support;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The owner tokens of requests that had an attempt whose outcome is unknown: a write of such a
 * request may still reach a server late (held in the network, delivered on a connection the client
 * gave up) — after the request was withdrawn, and also after a later attempt of it was granted and
 * the lease released. Ending such a request leaves the {@linkplain LockScripts#ABANDON abandoned
 * marker} that makes a late write take nothing; ending any other is a plain compare-and-delete, so
 * a server that answers pays nothing for this. Thread-safe; one per driver.
 */
public final class LateWrites {

    private final Set<String> unsettled = ConcurrentHashMap.newKeySet();
    private final Set<String> refused = ConcurrentHashMap.newKeySet();
    private final long horizonMillis;

    /**
     * @param operationTimeout the client's operation timeout: how long a write may still be in flight
     *                         after its reply is given up, as the engine's cleanup counts it
     */
    public LateWrites(Duration operationTimeout) {
        this.horizonMillis = operationTimeout.toMillis();
    }

    /**
     * Records that an attempt of the request with {@code ownerToken} had no definite answer.
     *
     * @param ownerToken the request's owner token
     */
    public void outcomeUnknown(String ownerToken) {
        unsettled.add(ownerToken);
    }

    /**
     * @param ownerToken a request's owner token
     * @return true if a write of that request may still land: ending it must leave the marker
     */
    public boolean mayLand(String ownerToken) {
        return unsettled.contains(ownerToken);
    }

    /**
     * Records that the request has ended on the server (its marker is set, or nothing of it could land).
     *
     * @param ownerToken the request's owner token
     */
    public void settled(String ownerToken) {
        unsettled.remove(ownerToken);
    }

    /**
     * Records that an attempt of the request was refused with nothing written (a semaphore's permit
     * count differed from its holders'): the engine treats the exception as an outcome it could not
     * tell and abandons the request by owner token, which then has nothing to remove — no marker
     * either — unless an earlier attempt of it had an unknown outcome ({@link #mayLand}).
     *
     * @param ownerToken the request's owner token
     */
    public void refused(String ownerToken) {
        refused.add(ownerToken);
    }

    /**
     * @param ownerToken a request being abandoned
     * @return true if its last attempt was refused with nothing written ({@link #refused}); forgets it
     */
    public boolean takeRefused(String ownerToken) {
        return refused.remove(ownerToken);
    }

    /**
     * How long the marker refuses a late write: the request's lease time plus the operation timeout
     * from now, the engine cleanup's own horizon for a write in flight (it stops caring once a
     * write's lease time has passed since it was sent, plus a write still on its way). A write
     * delayed even longer holds the lock at most one lease time, as a crashed client's would.
     *
     * @param leaseMillis the request's lease time in ms
     * @return the marker's lifetime in ms
     */
    public long markerMillis(long leaseMillis) {
        return leaseMillis + horizonMillis;
    }
}
