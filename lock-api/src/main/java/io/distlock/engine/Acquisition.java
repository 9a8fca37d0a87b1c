package io.distlock.engine;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.spi.Attempt;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;

/**
 * One acquire call, from its first attempt to its lease — or to its end without one: the engine's
 * acquire loop, the same for every backend. Try once; if busy and allowed to wait, register for
 * change notifications and retry once the watch is active (a release between the failed attempt and
 * the registration would otherwise be missed), then sleep ({@link Waiting}) and try again — until
 * granted, out of time, interrupted, or the client closes.
 *
 * <p><b>Three outcomes.</b> Only a definite "busy" is contention. An unknown outcome ends a single
 * attempt with {@link BackendUnavailableException}; a waiting acquire retries it and, if its wait
 * ends on an unknown outcome, throws instead of returning empty. {@code acquire()}, which has no wait
 * bound, gives up once every outcome for its grace (the connect timeout) was unknown. A grant that
 * cannot be used — it arrived with no validity left, or the client cannot vouch for it — counts as an
 * unknown outcome: given back, and its request replaced by a fresh one, so that a late answer to it
 * can never be taken for the next. Whatever way an acquire ends without a lease, its request is
 * {@linkplain io.distlock.spi.LockDriver#abandon abandoned} — by owner token, through the guaranteed
 * cleanup, if any attempt of it had an unknown outcome — so nothing stays held.
 */
final class Acquisition {

    private final ClientState state;
    private final DriverCalls calls;
    private final Leases leases;
    private final Waiting waiting;
    private final OwnerTokens tokens;
    private final String name;
    private final Hold hold;
    private final Duration leaseTime;
    /** False for a single attempt (which is not interruptible and never sleeps). */
    private final boolean waits;
    /** When the caller's wait ends, on the engine's clock. */
    private final long deadline;
    /** The same, on {@link System#nanoTime()}, for the driver: how long it may wait for its connection. */
    private final long waitDeadline;
    /** How long outcomes may stay unknown in a row before the acquire gives up. */
    private final long unknownGraceNanos;

    private LockRequest request;
    private Waiter waiter;
    /** Some attempt of the current request had an unknown outcome: it is abandoned by owner token. */
    private boolean outcomeUnknown;
    private long lastSent;
    /** The last attempt got no answer: its abandonment goes to the cleanup queue rather than the caller's thread. */
    private boolean lastAttemptAway;
    /** When the current run of unknown outcomes began, if one is under way. */
    private long unknownSince;
    private boolean unknownRun;
    /**
     * Why the last grant this acquisition gave back could not be used, if it gave one back: until its
     * removal is confirmed, a "busy" may be that grant itself, so a wait that ends on one cannot tell.
     */
    private BackendUnavailableException gaveBack;

    /**
     * @param maxWaitNanos      how long contention may be waited for
     * @param waits             false for a single attempt
     * @param unknownGraceNanos how long outcomes may stay unknown in a row before the acquire gives up
     */
    Acquisition(Parts parts, String name, Hold hold, Duration leaseTime, long maxWaitNanos, boolean waits, long unknownGraceNanos) {
        this.state = parts.state();
        this.calls = parts.calls();
        this.leases = parts.leases();
        this.waiting = parts.waiting();
        this.tokens = parts.tokens();
        this.name = name;
        this.hold = hold;
        this.leaseTime = leaseTime;
        this.waits = waits;
        this.unknownGraceNanos = unknownGraceNanos;
        this.deadline = state.nanoTime() + maxWaitNanos;
        // What a driver may spend waiting for its connection: the caller's wait, or one attempt's bound.
        this.waitDeadline = System.nanoTime() + (waits ? maxWaitNanos : state.options().operationTimeout().toNanos());
    }

    /** @return the lease, or empty if the lock stayed busy until the wait ended */
    Optional<Lease> run() throws InterruptedException {
        if (waits && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + hold.describe() + " '" + name + "'");
        }
        state.checkOpen();
        request = freshRequest();
        lastSent = state.nanoTime();
        boolean granted = false;
        Throwable failure = null;
        try {
            if (waits && hold.kind() == Hold.Kind.EXCLUSIVE) {
                giveWokenWaitersTheirTurn();
            }
            for (int attempt = 0; ; attempt++) {
                long start = state.nanoTime();
                Attempt result = attemptOnce(start);
                if (result.isGranted()) {
                    EngineLease lease = leases.admit(result.grant(), start, outcomeUnknown);
                    if (lease != null) {
                        granted = true;
                        return Optional.of(lease);
                    }
                    grantUnusable(result.grant(), start);
                } else if (result.isUnknown()) {
                    noAnswer(result, start);
                } else {
                    unknownRun = false;
                }
                if (state.nanoTime() - deadline >= 0) {
                    return waitEnded();
                }
                pauseBeforeNext(result, attempt);
            }
        } catch (RuntimeException | InterruptedException | Error e) {
            failure = e;
            throw e;
        } finally {
            end(granted, failure);
        }
    }

    /**
     * This client's release of the lock just woke waiters, whose attempts are on their way: a
     * waiting acquire lets them go first, for the courtesy pause ({@link Waiting#takeCourtesy}), so
     * that a client that releases and waits again does not take the lock straight back from them.
     * Fairness only; the pause is part of the caller's wait.
     */
    private void giveWokenWaitersTheirTurn() throws InterruptedException {
        long pause = Math.min(waiting.takeCourtesy(name, state.nanoTime()), deadline - state.nanoTime());
        if (pause > 0) {
            waiter = waiting.newWaiter();
            waiter.await(pause); // woken early only by the client closing
            state.checkOpen();
        }
    }

    private LockRequest freshRequest() {
        return new LockRequest(name, tokens.next(), leaseTime, waitDeadline, hold);
    }

    /**
     * One attempt, and what an interrupt during it means: whatever it did on the server is given
     * back (a grant is released; otherwise, by owner token) before the interrupt is reported.
     */
    private Attempt attemptOnce(long start) throws InterruptedException {
        lastSent = start;
        Attempt result;
        try {
            result = calls.tryOnce(request);
        } catch (AuthenticationException | AccessDeniedException refused) {
            lastAttemptAway = false; // refused: this attempt wrote nothing
            throw refused;
        } catch (RuntimeException e) {
            outcomeUnknown = true; // a failure mid-request: its write may have landed
            lastAttemptAway = true;
            throw e;
        }
        lastAttemptAway = result.isUnknown();
        if (waits && Thread.currentThread().isInterrupted()) {
            outcomeUnknown = true;
            if (result.isGranted()) {
                EngineLease lease = leases.admit(result.grant(), start, outcomeUnknown);
                if (lease != null && lease.releaseLocally()) {
                    leases.release(lease); // before the interrupt is reported, as a release would be
                }
            }
            Thread.interrupted();
            throw new InterruptedException("interrupted while acquiring " + hold.describe() + " '" + name + "'");
        }
        return result;
    }

    /**
     * The server granted the lock, but no lease could be used: the client cannot vouch for the
     * server-side state (a suspended connection, a session that ended), or the grant came back after
     * its validity had passed. Not contention either way: the grant was given back, and the request is
     * replaced by a fresh one; as an unknown outcome, retried while the wait allows, and thrown if the
     * wait ends on it — never reported as busy.
     */
    private void grantUnusable(io.distlock.spi.Grant grant, long start) {
        leases.abandon(request, outcomeUnknown, lastSent, false);
        request = freshRequest();
        outcomeUnknown = false;
        gaveBack = leases.unusable(grant, state.nanoTime() - start);
        giveUpOnUnknown(gaveBack, start);
    }

    /**
     * The wait ended on a busy answer: contention — unless this acquisition gave a grant back whose
     * removal the server may not have carried out yet, which may be what holds the lock: then it
     * could not tell, and says so.
     */
    private Optional<Lease> waitEnded() {
        if (gaveBack != null && leases.pendingCleanups() > 0) {
            throw gaveBack;
        }
        return Optional.empty();
    }

    /** No answer: retried while the wait (and the grace for unknown outcomes) allows, else thrown. */
    private void noAnswer(Attempt result, long start) {
        outcomeUnknown = true;
        giveUpOnUnknown(result.cause(), start);
    }

    private void giveUpOnUnknown(BackendUnavailableException cause, long start) {
        if (!unknownRun) {
            unknownRun = true;
            unknownSince = start;
        }
        long now = state.nanoTime();
        if (!waits || now - deadline >= 0 || now - unknownSince >= unknownGraceNanos) {
            throw cause;
        }
    }

    /**
     * Sleeps until the next attempt. After the first busy answer, the watch is registered first and
     * the next attempt made as soon as it is active (waiting for that no longer than the caller allows).
     */
    private void pauseBeforeNext(Attempt result, int attempt) throws InterruptedException {
        long left = deadline - state.nanoTime();
        if (waiter == null) {
            waiter = waiting.newWaiter();
        }
        if (result.isBusy() && !waiter.watchRequested()) {
            waiting.watch(waiter, request, state.endpoint());
            waiter.awaitActive(Math.min(left, state.options().operationTimeout().toNanos()));
        } else {
            // A grant given back while the connection is suspended: nothing to retry until it is restored
            // (which wakes the waiters), or a slow poll.
            waiter.await(Math.min(waiting.pauseNanos(result, attempt, state.suspended()), left));
        }
        state.checkOpen();
    }

    /** Without a lease, the request is withdrawn (by owner token after an unknown outcome); the waiter goes. */
    private void end(boolean granted, Throwable failure) {
        if (waiter != null) {
            waiting.drop(waiter);
        }
        if (granted) {
            return;
        }
        try {
            leases.abandon(request, outcomeUnknown, lastSent, lastAttemptAway);
        } catch (RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            } else {
                throw e;
            }
        }
    }
}
