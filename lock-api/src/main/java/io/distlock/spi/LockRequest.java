package io.distlock.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition as the engine asks a driver for it.
 *
 * @param name         the lock name, already validated (see {@link io.distlock.LockClient#lock(String)})
 * @param ownerToken   a fresh unpredictable value (128 bits, URL-safe Base64: AES of a per-client counter
 *                     under a key drawn once from {@link java.security.SecureRandom}) that identifies this
 *                     acquisition on the server; never reused
 * @param leaseTime    the lease time, already validated
 * @param waitDeadline when the caller stops waiting for this acquisition, on {@link System#nanoTime()}: the end
 *                     of its {@code maxWait}, or, for a single attempt, one operation timeout after it began.
 *                     An attempt that finds its connection gone waits for it to come back no later than
 *                     this (nor longer than its operation timeout): time spent waiting for a reconnect is
 *                     the caller's wait, not a request in flight. An answer to a request already sent is
 *                     still waited for within the operation timeout.
 * @param hold         what is asked for: the lock, a read or write hold of a read-write lock, or a
 *                     semaphore's permit (a driver without {@link io.distlock.Feature#READ_WRITE} or
 *                     {@link io.distlock.Feature#SEMAPHORE} is only ever asked for {@link Hold#EXCLUSIVE})
 */
public record LockRequest(String name, String ownerToken, Duration leaseTime, long waitDeadline, Hold hold) {
    /**
     * @param name         the lock name
     * @param ownerToken   the owner token
     * @param leaseTime    the lease time
     * @param waitDeadline when the caller stops waiting, on {@link System#nanoTime()}
     * @param hold         what is asked for
     * @throws NullPointerException if a component is null
     */
    public LockRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ownerToken, "ownerToken");
        Objects.requireNonNull(leaseTime, "leaseTime");
        Objects.requireNonNull(hold, "hold");
    }

    /**
     * A request for the lock itself ({@link Hold#EXCLUSIVE}).
     *
     * @param name         the lock name
     * @param ownerToken   the owner token
     * @param leaseTime    the lease time
     * @param waitDeadline when the caller stops waiting, on {@link System#nanoTime()}
     * @throws NullPointerException if a component is null
     */
    public LockRequest(String name, String ownerToken, Duration leaseTime, long waitDeadline) {
        this(name, ownerToken, leaseTime, waitDeadline, Hold.EXCLUSIVE);
    }

    /**
     * A request whose caller sets no wait bound of its own (for a driver's own tests): its attempts
     * wait for a reconnect as long as their operation timeout allows.
     *
     * @param name       the lock name
     * @param ownerToken the owner token
     * @param leaseTime  the lease time
     * @throws NullPointerException if a component is null
     */
    public LockRequest(String name, String ownerToken, Duration leaseTime) {
        this(name, ownerToken, leaseTime, System.nanoTime() + TimeUnit.DAYS.toNanos(1));
    }

    /**
     * @param attemptStart when the attempt began, on {@link System#nanoTime()}
     * @param operationTimeout the attempt's own bound
     * @return how long the attempt may still wait for its connection to come back, in nanoseconds
     *         (zero or less: not at all); the earlier of {@link #waitDeadline()} and the operation timeout
     */
    public long reconnectNanosLeft(long attemptStart, Duration operationTimeout) {
        long now = System.nanoTime();
        return Math.min(waitDeadline - now, attemptStart + operationTimeout.toNanos() - now);
    }
}
