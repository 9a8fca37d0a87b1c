package io.distlock.engine;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.LockEvent;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The engine's acquire loop, the same for every backend: try once; if busy and allowed to wait,
 * register for change notifications, retry once the watch is active (a release between the failed
 * attempt and the registration would otherwise be missed), then sleep until notified or a
 * bounded, jittered back-off passes, and try again — until granted, out of time, interrupted, or
 * the client closes.
 *
 * <p><b>Three outcomes.</b> Only a definite "busy" is contention. An unknown outcome (no answer, no
 * quorum either way) ends a single attempt with {@link BackendUnavailableException}; a waiting
 * acquire retries it on the back-off and, if its wait ends on an unknown outcome, throws instead
 * of returning empty. {@link #acquire}, which has no wait bound, gives up once every outcome for
 * the connect timeout was unknown. Whatever way an acquire ends without a lease, its request is
 * {@linkplain io.distlock.spi.LockDriver#abandon abandoned} — by owner token, through the
 * guaranteed cleanup, if any attempt of it had an unknown outcome — so nothing stays held.
 */
final class EngineLock implements DistributedLock {

    /** Without reliable notifications, a notified waiter still polls this many maximum back-offs apart. */
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
        client.checkLeaseTime(leaseTime);
        try {
            return observed(leaseTime, 0, false, 0);
        } catch (InterruptedException e) {
            throw new AssertionError("a single attempt does not wait", e);
        }
    }

    @Override
    public Optional<Lease> tryAcquire(Duration leaseTime, Duration maxWait) throws InterruptedException {
        client.checkLeaseTime(leaseTime);
        long maxWaitNanos = Arguments.maxWaitNanos(maxWait);
        return observed(leaseTime, maxWaitNanos, true, maxWaitNanos);
    }

    @Override
    public Lease acquire(Duration leaseTime) throws InterruptedException {
        client.checkLeaseTime(leaseTime);
        return observed(leaseTime, Arguments.FOREVER.toNanos(), true, client.options().connectTimeout().toNanos())
                .orElseThrow(() -> new IllegalStateException("waited a century for '" + name + "'"));
    }

    /**
     * The engine knows its client's features and drift allowance: a lease time no lease could be
     * valid for, or a backend without auto-renewal, is refused here rather than at the first lock.
     */
    @Override
    public LeaseLock asLock(Duration leaseTime) {
        client.checkLeaseTime(leaseTime);
        client.require(Feature.AUTO_RENEWAL, "DistributedLock.asLock");
        return DistributedLock.super.asLock(leaseTime);
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + "]";
    }

    /** The acquire, with its outcome and the time it took told to the client's listener, if there is one. */
    private Optional<Lease> observed(Duration leaseTime, long maxWaitNanos, boolean waiting, long unknownGraceNanos)
            throws InterruptedException {
        if (!client.listening()) {
            return acquire(leaseTime, maxWaitNanos, waiting, unknownGraceNanos);
        }
        long start = client.nanoTime();
        try {
            Optional<Lease> lease = acquire(leaseTime, maxWaitNanos, waiting, unknownGraceNanos);
            LockEvent.Type type = lease.isPresent() ? LockEvent.Type.ACQUIRED
                    : maxWaitNanos == 0 ? LockEvent.Type.BUSY : LockEvent.Type.TIMED_OUT;
            client.emit(type, name, client.nanoTime() - start, null, null);
            return lease;
        } catch (BackendUnavailableException e) {
            client.emit(LockEvent.Type.UNAVAILABLE, name, client.nanoTime() - start, null, e);
            throw e;
        } catch (AuthenticationException | AccessDeniedException e) {
            client.emit(LockEvent.Type.REFUSED, name, client.nanoTime() - start, null, e);
            throw e;
        } catch (InterruptedException e) {
            client.emit(LockEvent.Type.INTERRUPTED, name, client.nanoTime() - start, null, null);
            throw e;
        }
    }

    /**
     * @param maxWaitNanos     how long contention may be waited for
     * @param waiting          false for a single attempt (not interruptible)
     * @param unknownGraceNanos how long outcomes may stay unknown in a row before the acquire gives up
     */
    private Optional<Lease> acquire(Duration leaseTime, long maxWaitNanos, boolean waiting, long unknownGraceNanos)
            throws InterruptedException {
        if (waiting && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring '" + name + "'");
        }
        client.checkOpen();
        long deadline = client.nanoTime() + maxWaitNanos;
        // What a driver may spend waiting for its connection: the caller's wait, or one attempt's bound.
        long waitDeadline = System.nanoTime() + (waiting ? maxWaitNanos : client.options().operationTimeout().toNanos());
        LockRequest request = new LockRequest(name, client.newOwnerToken(), leaseTime, waitDeadline);
        Waiter waiter = null;
        boolean granted = false;
        boolean outcomeUnknown = false;
        long lastSent = client.nanoTime();
        long unknownSince = 0;
        boolean unknownRun = false;
        boolean lastAttemptAway = false;
        Throwable failure = null;
        try {
            for (int attempt = 0; ; attempt++) {
                long start = client.nanoTime();
                lastSent = start;
                Attempt result;
                try {
                    result = client.tryOnce(request);
                } catch (AuthenticationException | AccessDeniedException refused) {
                    lastAttemptAway = false; // refused: this attempt wrote nothing
                    throw refused;
                } catch (RuntimeException e) {
                    outcomeUnknown = true; // a failure mid-request: its write may have landed
                    lastAttemptAway = true;
                    throw e;
                }
                lastAttemptAway = result.isUnknown();
                if (waiting && Thread.currentThread().isInterrupted()) {
                    // Interrupted while the request was on its way: whatever it did on the server is
                    // given back (a grant is released; otherwise, by owner token).
                    outcomeUnknown = true;
                    if (result.isGranted()) {
                        EngineLease lease = client.admit(result.grant(), start);
                        if (lease != null && lease.releaseLocally()) {
                            client.release(lease); // before the interrupt is reported, as a release would be
                        }
                    }
                    Thread.interrupted();
                    throw new InterruptedException("interrupted while acquiring '" + name + "'");
                }
                if (result.isGranted()) {
                    EngineLease lease = client.admit(result.grant(), start);
                    if (lease != null) {
                        granted = true;
                        return Optional.of(lease);
                    }
                    // The grant came with no validity left and was given back. An owner token
                    // identifies one acquisition: the next attempt gets a fresh one, so a late
                    // answer to this request can never be taken for the next.
                    client.abandon(request, outcomeUnknown, lastSent, false);
                    request = new LockRequest(name, client.newOwnerToken(), leaseTime, waitDeadline);
                    outcomeUnknown = false;
                    // Not contention either way: the lock was free, but no lease could be used —
                    // the client cannot vouch for the server-side state (a suspended session), or
                    // the grant came back after its validity had passed (a reply slower than the
                    // lease). As an unknown outcome: retried while the wait allows, and if the wait
                    // ends on it, thrown, never reported as busy.
                    BackendUnavailableException unusable = client.cannotVouch(result.grant());
                    if (unusable == null) {
                        unusable = client.lateGrant(name, leaseTime, client.nanoTime() - start);
                    }
                    if (!unknownRun) {
                        unknownRun = true;
                        unknownSince = start;
                    }
                    long now = client.nanoTime();
                    if (!waiting || now - deadline >= 0 || now - unknownSince >= unknownGraceNanos) {
                        throw unusable;
                    }
                } else if (result.isUnknown()) {
                    outcomeUnknown = true;
                    if (!unknownRun) {
                        unknownRun = true;
                        unknownSince = start;
                    }
                    long now = client.nanoTime();
                    if (!waiting || now - deadline >= 0 || now - unknownSince >= unknownGraceNanos) {
                        throw result.cause();
                    }
                } else {
                    unknownRun = false;
                }
                long now = client.nanoTime();
                if (now - deadline >= 0) {
                    return Optional.empty();
                }
                if (waiter == null) {
                    waiter = client.newWaiter();
                }
                if (result.isBusy() && !waiter.watchRequested()) {
                    // Retry once the watch is active (a release before that would go unheard), but
                    // wait for that no longer than the caller allows.
                    client.watch(waiter, name);
                    waiter.awaitActive(Math.min(deadline - now, client.options().operationTimeout().toNanos()));
                    client.checkOpen();
                    continue;
                }
                long pause = Math.min(result.isUnknown() ? backoffNanos(attempt, Long.MAX_VALUE) : pauseNanos(result, attempt),
                        deadline - now);
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
                try {
                    client.abandon(request, outcomeUnknown, lastSent, lastAttemptAway);
                } catch (RuntimeException e) {
                    if (failure != null) {
                        failure.addSuppressed(e);
                    } else {
                        throw e;
                    }
                }
            }
        }
    }

    /**
     * How long to sleep before the next attempt after a busy one. With notifications the holder's
     * remaining lease (the driver's hint) bounds the sleep, since an expiry is not announced; and
     * unless the notifications are reliable, a slow poll as well. Without notifications, an
     * exponential back-off with jitter, also cut short by the hint. Jitter keeps waiters that
     * were woken together from retrying in lockstep.
     */
    private long pauseNanos(Attempt busy, int attempt) {
        LockOptions options = client.options();
        long min = options.minRetryBackoff().toNanos();
        long max = options.maxRetryBackoff().toNanos();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long hint = busy.retryAfter().map(d -> d.toNanos() + random.nextLong(min + 1)).orElse(Long.MAX_VALUE);
        if (client.reliableNotifications()) {
            return hint;
        }
        if (client.waitsForNotifications()) {
            return Math.min(hint, max * NOTIFIED_POLL_FACTOR);
        }
        return Math.min(backoffNanos(attempt, max), hint);
    }

    /** Exponential from the minimum back-off to {@code ceilingNanos} (at most the maximum), with jitter. */
    private long backoffNanos(int attempt, long ceilingNanos) {
        LockOptions options = client.options();
        long min = options.minRetryBackoff().toNanos();
        long max = Math.min(options.maxRetryBackoff().toNanos(), ceilingNanos);
        long exponential = min << Math.min(attempt, 20);
        long ceiling = exponential <= 0 || exponential > max ? max : exponential;
        return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
    }
}
