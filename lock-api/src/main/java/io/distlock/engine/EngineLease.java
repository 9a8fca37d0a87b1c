package io.distlock.engine;

import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.spi.Grant;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The engine's {@link Lease}. Its validity is kept as a deadline on the monotonic clock:
 * {@code requestStart + leaseTime − drift}, recomputed from the start of every successful
 * extension. State moves one way: HELD → RELEASED, or HELD → LOST (→ RELEASED when the user
 * still calls release, which then only cleans up on the server).
 */
final class EngineLease implements Lease {

    private enum State { HELD, LOST, RELEASED }

    private final EngineClient client;
    private final Grant grant;
    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
    private final CompletableFuture<LossReason> lost = new CompletableFuture<>();

    // Guarded by this; validUntil is also read without the lock by remaining()/isValid().
    private Duration leaseTime;
    private long lastStart;
    private volatile long validUntil;
    private boolean autoRenew;
    private boolean lossWatched;
    private boolean expiryWatched;
    private long renewDue;
    private long keeperGeneration;

    EngineLease(EngineClient client, Grant grant, long requestStart, long validUntil) {
        this.client = client;
        this.grant = grant;
        this.leaseTime = grant.request().leaseTime();
        this.lastStart = requestStart;
        this.validUntil = validUntil;
        this.renewDue = requestStart + leaseTime.toNanos() / 3;
    }

    Grant grant() {
        return grant;
    }

    @Override
    public String lockName() {
        return grant.name();
    }

    @Override
    public OptionalLong fencingToken() {
        return grant.fencingToken();
    }

    @Override
    public Duration remaining() {
        if (state.get() != State.HELD || client.suspended()) {
            return Duration.ZERO;
        }
        long left = validUntil - System.nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public boolean isValid() {
        return state.get() == State.HELD && !client.suspended() && validUntil - System.nanoTime() > 0;
    }

    @Override
    public boolean extend(Duration newLeaseTime) {
        Arguments.leaseTime(newLeaseTime);
        client.require(Feature.LEASE_EXTENSION, "Lease.extend");
        checkNotReleased("extend");
        long start = System.nanoTime();
        if (state.get() == State.LOST) {
            return false;
        }
        if (expired(start)) {
            // Past its validity the lease is over, whether or not the server has let go yet:
            // reviving it would hide a window in which someone else may have held the lock.
            markLost(LossReason.EXPIRED);
            return false;
        }
        if (!client.extend(grant, newLeaseTime)) {
            markLost(LossReason.REVOKED);
            return false;
        }
        if (!renewed(start, newLeaseTime)) {
            // Declared lost or released while the request was in flight: do not keep it alive.
            client.releaseQuietly(grant);
            return false;
        }
        if (watched()) {
            client.watch(this); // the deadline moved, possibly earlier
        }
        return true;
    }

    @Override
    public Lease autoRenew() {
        client.require(Feature.AUTO_RENEWAL, "Lease.autoRenew");
        checkNotReleased("autoRenew");
        synchronized (this) {
            autoRenew = true;
        }
        client.watch(this);
        return this;
    }

    @Override
    public void release() {
        State previous = state.getAndSet(State.RELEASED);
        if (previous == State.RELEASED) {
            return;
        }
        client.forget(this);
        client.release(grant);
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
        client.watch(this);
        return lost.minimalCompletionStage();
    }

    @Override
    public String toString() {
        return "Lease[" + grant.name() + ", " + state.get() + ", remaining=" + remaining() + "]";
    }

    // ---- engine side --------------------------------------------------------------------------

    void releaseQuietly() {
        if (state.getAndSet(State.RELEASED) != State.RELEASED) {
            client.forget(this);
            client.releaseQuietly(grant);
        }
    }

    /** Marks the lease lost once, and tells whoever listens on another thread. */
    void markLost(LossReason reason) {
        if (state.compareAndSet(State.HELD, State.LOST)) {
            client.forget(this);
            lost.completeAsync(() -> reason);
            client.leaseEnded(grant);
        }
    }

    boolean isHeld() {
        return state.get() == State.HELD;
    }

    /** Records a successful extension sent at {@code start}; false if the lease is no longer held. */
    synchronized boolean renewed(long start, Duration newLeaseTime) {
        if (state.get() != State.HELD) {
            return false;
        }
        if (start - lastStart > 0) {
            lastStart = start;
            leaseTime = newLeaseTime;
            validUntil = start + newLeaseTime.toNanos() - client.options().clockDrift(newLeaseTime).toNanos();
            renewDue = start + newLeaseTime.toNanos() / 3;
        }
        return true;
    }

    /** After a renewal that could not reach the backend: try again soon, still before the validity ends. */
    synchronized void retryRenewalAt(long at) {
        renewDue = at;
    }

    synchronized Duration leaseTime() {
        return leaseTime;
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

    /** When the keeper must look at this lease next: its renewal, or else the end of its validity. */
    synchronized long nextCheck() {
        return autoRenew && renewDue - validUntil < 0 ? renewDue : validUntil;
    }

    private synchronized boolean watched() {
        return autoRenew || lossWatched || expiryWatched;
    }

    /** The keeper must end this lease at the end of its validity (the server will not). */
    synchronized void watchExpiry() {
        expiryWatched = true;
    }

    synchronized long newKeeperGeneration() {
        return ++keeperGeneration;
    }

    synchronized long keeperGeneration() {
        return keeperGeneration;
    }

    private void checkNotReleased(String operation) {
        if (state.get() == State.RELEASED) {
            throw new IllegalStateException("cannot " + operation + " the lease on '" + grant.name()
                    + "': it was released");
        }
        client.checkOpen();
    }
}
