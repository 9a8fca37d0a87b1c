package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockEvent;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Validity;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The engine's {@link Lease}. Its validity is kept as a deadline on the monotonic clock:
 * {@code requestStart + leaseTime − drift}, recomputed from the send time of every extension the
 * server confirmed. State moves one way: HELD → RELEASED, or HELD → LOST (→ RELEASED when the user
 * still calls release, which then changes nothing).
 *
 * <p><b>Extensions only extend.</b> Validity is raised only by a reply that confirms an extension,
 * to that extension's {@code sendTime + leaseTime − drift}, and never lowered by one: a driver's
 * extension never moves the server's expiry earlier (see {@link io.distlock.spi.LockDriver#extend}),
 * so every promise made before still holds on the server, whatever order extensions land in. An
 * extension whose outcome is unknown changes nothing here (it may or may not have landed; either
 * way the server holds at least what was promised). The caller's {@link #extend} and the keeper's
 * renewal take the same permit, so at most one extension of a lease is on its way at a time.
 */
final class EngineLease implements Lease {

    private enum State { HELD, LOST, RELEASED }

    private final Leases leases;
    private final ClientState client;
    private final Events events;
    private final DriverCalls calls;
    private final Grant grant;
    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
    private final CompletableFuture<LossReason> lost = new CompletableFuture<>();
    /** One extension in flight per lease: the caller's and the keeper's are serialised on this permit. */
    private final Semaphore extending = new Semaphore(1);
    /** When the lease was admitted (monotonic clock), for the hold time a listener is told. */
    private final long grantedAt;
    /** The session that granted it, on a session store (set once, when the grant is recorded); else null. */
    private volatile Sessions.Session session;

    // Guarded by this; validUntil is also read without the lock by remaining()/isValid().
    private Duration leaseTime;
    private long lastStart;
    private volatile long validUntil;
    /** The latest moment a write of this lease (the grant, an extension) may keep the lock on the server. */
    private long writesLiveUntil;
    /** A copy of an unanswered attempt of this lease's request may still land after the lease ends (see Leases#release). */
    private final boolean lateCopiesPossible;
    private boolean autoRenew;
    private boolean lossWatched;
    private boolean expiryWatched;
    private long renewDue;
    /** When the keeper looks at this lease next, and its place in the keeper's heap (-1: not in it); the keeper's, under its monitor. */
    long keeperAt;
    int keeperIndex = -1;

    EngineLease(Leases leases, ClientState state, Events events, DriverCalls calls, Grant grant, long requestStart,
                long validUntil, boolean lateCopiesPossible) {
        this.lateCopiesPossible = lateCopiesPossible;
        this.leases = leases;
        this.client = state;
        this.events = events;
        this.calls = calls;
        this.grant = grant;
        this.leaseTime = grant.request().leaseTime();
        this.lastStart = requestStart;
        this.validUntil = validUntil;
        this.writesLiveUntil = requestStart + leaseTime.toNanos();
        this.renewDue = requestStart + leaseTime.toNanos() / 3;
        // Only a listener is told the hold time: without one the grant costs no clock read.
        this.grantedAt = events.listening() ? client.nanoTime() : requestStart;
    }

    Grant grant() {
        return grant;
    }

    boolean lateCopiesPossible() {
        return lateCopiesPossible;
    }

    /** Records the session that granted this lease (under the sessions' lock, before anyone sees the lease). */
    void boundTo(Sessions.Session grantedBy) {
        session = grantedBy;
    }

    /** @return the session that granted this lease, or null */
    Sessions.Session session() {
        return session;
    }

    /** @return how much of its validity the client can vouch for now (its session's bound included) */
    long validityLeft() {
        return leases.validityLeft(validUntil, session);
    }

    @Override
    public String lockName() {
        return grant.name();
    }

    @Override
    public BackendDescriptor backend() {
        return client.descriptor();
    }

    @Override
    public OptionalLong fencingToken() {
        return grant.fencingToken();
    }

    @Override
    public Duration remaining() {
        if (state.get() != State.HELD) {
            return Duration.ZERO;
        }
        long left = validityLeft();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public boolean isValid() {
        return state.get() == State.HELD && validityLeft() > 0;
    }

    @Override
    public boolean extend(Duration newLeaseTime) {
        client.checkLeaseTime(newLeaseTime);
        client.require(Feature.LEASE_EXTENSION, "Lease.extend");
        checkNotReleased("extend");
        acquireExtensionPermit();
        try {
            if (state.get() == State.LOST) {
                return false;
            }
            long start = client.nanoTime();
            if (expired(start)) {
                // Past its validity the lease is over, whether or not the server has let go yet:
                // reviving it would hide a window in which someone else may have held the lock.
                markLost(LossReason.EXPIRED);
                return false;
            }
            if (!beginExtension(start, newLeaseTime)) {
                return false; // released meanwhile
            }
            ExtendOutcome outcome = calls.extend(grant, newLeaseTime);
            if (outcome.isLost()) {
                markLost(outcome);
                return false;
            }
            if (outcome.isUnknown()) {
                events.emit(LockEvent.Type.RENEWAL_FAILED, grant.name(), 0, null, outcome.cause());
                throw outcome.cause();
            }
            if (!renewed(start, newLeaseTime)) {
                return false; // declared lost or released while the request was in flight; cleaned up there
            }
            events.emit(LockEvent.Type.EXTENDED, grant.name(), newLeaseTime.toNanos(), null, null);
            return true;
        } finally {
            extending.release();
            if (watched() && isHeld()) {
                leases.watch(this); // the deadline moved, possibly earlier
            }
        }
    }

    /**
     * Waits for the keeper's renewal of this lease, if one is in flight: it is bounded by the
     * operation timeout (twice, to allow for a driver's retry within it). An extend is not
     * interruptible, like the release it resembles; the interrupt flag is kept.
     */
    private void acquireExtensionPermit() {
        long bound = 2 * client.options().operationTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
        boolean interrupted = false;
        try {
            long deadline = System.nanoTime() + bound;
            while (true) {
                try {
                    if (extending.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        return;
                    }
                    throw new BackendUnavailableException(client.endpoint(), "the renewal of the lease on '" + grant.name()
                            + "' on " + client.endpoint() + " has been in flight for longer than "
                            + TimeUnit.NANOSECONDS.toMillis(bound) + " ms; the lease is unchanged", null);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public Lease autoRenew() {
        client.require(Feature.AUTO_RENEWAL, "Lease.autoRenew");
        checkNotReleased("autoRenew");
        synchronized (this) {
            autoRenew = true;
        }
        leases.watch(this);
        return this;
    }

    @Override
    public void release() {
        State previous = state.getAndSet(State.RELEASED);
        if (previous == State.RELEASED) {
            return;
        }
        leases.forget(this);
        if (previous == State.HELD) {
            leases.release(this);
            events.emit(LockEvent.Type.RELEASED, grant.name(), heldNanos(), null, null);
        }
        // A lost lease was handed to the cleanup when it was lost.
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public CompletionStage<LossReason> lost() {
        // Expiry is only watched for leases someone listens to (or that renew): a lease nobody
        // asks about costs the keeper nothing, and its validity is still checked on every use.
        synchronized (this) {
            lossWatched = true;
        }
        leases.watch(this);
        return lost.minimalCompletionStage();
    }

    @Override
    public String toString() {
        return "Lease[" + grant.name() + ", " + state.get() + ", remaining=" + remaining() + "]";
    }

    // ---- engine side --------------------------------------------------------------------------

    /** Released by the engine (the client closes, an interrupt raced the grant): locally at once, on the server by the caller. */
    boolean releaseLocally() {
        if (state.getAndSet(State.RELEASED) == State.HELD) {
            leases.forget(this);
            return true;
        }
        return false;
    }

    /** Marks the lease lost once, hands its removal to the cleanup, and tells whoever listens on another thread. */
    void markLost(LossReason reason) {
        if (state.compareAndSet(State.HELD, State.LOST)) {
            leases.forget(this);
            leases.leaseEnded(this);
            events.emit(LockEvent.Type.LOST, grant.name(), heldNanos(), reason, null);
            lost.completeAsync(() -> reason);
        }
    }

    /**
     * An operator revoked the lease ({@link io.distlock.LockClient#revoke}): lost, with
     * {@link LossReason#REVOKED}, and the listener gets a REVOKED event with the reason instead of
     * a LOST one. What the server may still hold for it (nothing, after a revoke) is cleaned up as
     * for any loss: the cleanup is a compare-and-delete, harmless on a lock someone else now holds.
     */
    void markRevoked(String revocationReason) {
        if (state.compareAndSet(State.HELD, State.LOST)) {
            leases.forget(this);
            leases.leaseEnded(this);
            events.revoked(grant.name(), heldNanos(), LossReason.REVOKED, revocationReason);
            lost.completeAsync(() -> LossReason.REVOKED);
        }
    }

    /** The server answered an extension with "lost": revoked by an operator if it said so, otherwise no longer held. */
    void markLost(ExtendOutcome outcome) {
        if (outcome.revocationReason().isPresent()) {
            markRevoked(outcome.revocationReason().get());
        } else {
            markLost(LossReason.NOT_HELD);
        }
    }

    /** @return how long ago the lease was granted */
    long heldNanos() {
        return client.nanoTime() - grantedAt;
    }

    boolean isHeld() {
        return state.get() == State.HELD;
    }

    /** Takes the extension permit without waiting, for the keeper: false if an extension is in flight. */
    boolean tryBeginRenewal() {
        return extending.tryAcquire();
    }

    /** Gives the permit back after the keeper's renewal; {@link #tryBeginRenewal} must have returned true. */
    void endRenewal() {
        extending.release();
    }

    /**
     * Records that an extension to {@code newLeaseTime} is being sent at {@code start}: whatever
     * its outcome, it may keep the lock on the server until {@code start + newLeaseTime}.
     *
     * @return false if the lease is no longer held
     */
    synchronized boolean beginExtension(long start, Duration newLeaseTime) {
        if (state.get() != State.HELD) {
            return false;
        }
        long live = start + newLeaseTime.toNanos();
        if (live - writesLiveUntil > 0) {
            writesLiveUntil = live;
        }
        return true;
    }

    /**
     * Records the server's confirmation of the extension sent at {@code start}: the validity rises
     * to what it gives, if that is later than the current one; false if the lease is no longer held.
     */
    synchronized boolean renewed(long start, Duration newLeaseTime) {
        if (state.get() != State.HELD) {
            return false;
        }
        long candidate = Validity.deadline(client.options(), start, newLeaseTime);
        if (candidate - validUntil > 0) {
            lastStart = start;
            leaseTime = newLeaseTime;
            validUntil = candidate;
            renewDue = start + newLeaseTime.toNanos() / 3;
        }
        return true;
    }

    /** After a renewal whose outcome is unknown: try again soon, still before the validity ends. */
    synchronized void retryRenewalAt(long at) {
        renewDue = at;
    }

    synchronized Duration leaseTime() {
        return leaseTime;
    }

    /** @return the latest moment anything this lease wrote may still hold the lock on the server */
    synchronized long writesLiveUntil() {
        return writesLiveUntil;
    }

    synchronized boolean renewalDue(long now) {
        return autoRenew && now - renewDue >= 0;
    }

    /** Early enough to be renewed with a batch that is going out anyway (a sixth of the lease in). */
    synchronized boolean renewalEligible(long now) {
        return autoRenew && now - (lastStart + leaseTime.toNanos() / 6) >= 0;
    }

    boolean expired(long now) {
        return now - validUntil >= 0;
    }

    private synchronized boolean watched() {
        return autoRenew || lossWatched || expiryWatched;
    }

    /** The keeper must end this lease at the end of its validity (the server will not). */
    synchronized void watchExpiry() {
        expiryWatched = true;
    }

    /**
     * @return when the keeper must look at this lease next: its renewal, or else the end of its
     *         validity (the keeper reads it under its own monitor, so the latest reading wins)
     */
    synchronized long nextCheck() {
        return autoRenew && renewDue - validUntil < 0 ? renewDue : validUntil;
    }

    private void checkNotReleased(String operation) {
        if (state.get() == State.RELEASED) {
            throw new IllegalStateException("cannot " + operation + " the lease on '" + grant.name()
                    + "': it was released");
        }
        client.checkOpen();
    }
}
