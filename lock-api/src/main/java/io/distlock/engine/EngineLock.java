package io.distlock.engine;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The engine's acquire loop, the same for every backend: try once; if busy and allowed to wait,
 * register for change notifications, retry at once (a release between the failed attempt and the
 * registration would otherwise be missed), then sleep until notified or a bounded, jittered
 * back-off passes, and try again — until granted, out of time, interrupted, or the client closes.
 * Whatever way it ends without a lease, the request is {@linkplain io.distlock.spi.LockDriver#abandon
 * abandoned}, so nothing stays held on the server.
 */
final class EngineLock implements DistributedLock {

    /** With notifications, a waiter still polls this many maximum back-offs apart, in case one was missed. */
    private static final int NOTIFIED_POLL_FACTOR = 10;

    private final EngineClient client;
    private final String name;

    EngineLock(EngineClient client, String name) {
        this.client = client;
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Lease> tryAcquire(Duration leaseTime) {
        Arguments.leaseTime(leaseTime);
        try {
            return acquire(leaseTime, 0, false);
        } catch (InterruptedException e) {
            throw new AssertionError("a single attempt does not wait", e);
        }
    }

    @Override
    public Optional<Lease> tryAcquire(Duration leaseTime, Duration maxWait) throws InterruptedException {
        Arguments.leaseTime(leaseTime);
        return acquire(leaseTime, Arguments.maxWaitNanos(maxWait), true);
    }

    @Override
    public Lease acquire(Duration leaseTime) throws InterruptedException {
        Arguments.leaseTime(leaseTime);
        return acquire(leaseTime, Arguments.FOREVER.toNanos(), true)
                .orElseThrow(() -> new IllegalStateException("waited a century for '" + name + "'"));
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + "]";
    }

    private Optional<Lease> acquire(Duration leaseTime, long maxWaitNanos, boolean interruptible)
            throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring '" + name + "'");
        }
        client.checkOpen();
        LockRequest request = new LockRequest(name, client.newOwnerToken(), leaseTime);
        long deadline = System.nanoTime() + maxWaitNanos;
        Waiter waiter = null;
        boolean granted = false;
        boolean outcomeUnknown = false;
        Throwable failure = null;
        try {
            for (int attempt = 0; ; attempt++) {
                long start = System.nanoTime();
                Attempt result;
                try {
                    result = client.tryOnce(request);
                } catch (RuntimeException e) {
                    outcomeUnknown = true;
                    throw e;
                }
                if (result.isGranted()) {
                    EngineLease lease = client.admit(result.grant(), start);
                    if (lease != null) {
                        if (interruptible && Thread.currentThread().isInterrupted()) {
                            // The caller no longer wants it: give it back before reporting the interrupt.
                            lease.releaseQuietly();
                            Thread.interrupted();
                            throw new InterruptedException("interrupted while acquiring '" + name + "'");
                        }
                        granted = true;
                        return Optional.of(lease);
                    }
                    // The grant came with no validity left and was given back. An owner token
                    // identifies one acquisition: the next attempt gets a fresh one, so a late
                    // answer to this request can never be taken for the next.
                    client.abandon(request, false, null);
                    request = new LockRequest(name, client.newOwnerToken(), leaseTime);
                }
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    return Optional.empty();
                }
                if (waiter == null) {
                    waiter = client.newWaiter(name);
                    continue;
                }
                long pause = Math.min(pauseNanos(result, attempt), deadline - now);
                waiter.await(pause);
                client.checkOpen();
            }
        } catch (RuntimeException | InterruptedException | Error e) {
            failure = e;
            throw e;
        } finally {
            if (waiter != null) {
                client.dropWaiter(waiter);
            }
            if (!granted) {
                client.abandon(request, outcomeUnknown, failure);
            }
        }
    }

    /**
     * How long to sleep before the next attempt. With notifications the holder's remaining lease
     * (the driver's hint) bounds the sleep, since an expiry is not announced; without them, an
     * exponential back-off with jitter, also cut short by the hint. Jitter keeps waiters that were
     * woken together from retrying in lockstep.
     */
    private long pauseNanos(Attempt busy, int attempt) {
        LockOptions options = client.options();
        long min = options.minRetryBackoff().toNanos();
        long max = options.maxRetryBackoff().toNanos();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long hint = busy.retryAfter().map(d -> d.toNanos() + random.nextLong(min + 1)).orElse(Long.MAX_VALUE);
        if (client.waitsForNotifications()) {
            return Math.min(hint, max * NOTIFIED_POLL_FACTOR);
        }
        long exponential = min << Math.min(attempt, 20);
        long ceiling = exponential <= 0 || exponential > max ? max : exponential;
        long jittered = ceiling / 2 + random.nextLong(ceiling / 2 + 1);
        return Math.min(jittered, hint);
    }
}
