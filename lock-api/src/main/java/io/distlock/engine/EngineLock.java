package io.distlock.engine;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.LockEvent;
import io.distlock.spi.Hold;

import java.time.Duration;
import java.util.Optional;

/**
 * The engine's {@link DistributedLock}: a name on a client. It checks the arguments, runs each
 * acquire call as an {@link Acquisition} (the acquire loop, the same for every backend) and tells
 * the client's listener of its outcome and the time it took.
 */
final class EngineLock implements DistributedLock {

    private final Parts parts;
    private final ClientState state;
    private final Events events;
    private final String name;
    private final Hold hold;

    EngineLock(Parts parts, String name, Hold hold) {
        this.parts = parts;
        this.state = parts.state();
        this.events = parts.events();
        this.name = name;
        this.hold = hold;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Lease> tryAcquire(Duration leaseTime) {
        state.checkLeaseTime(leaseTime);
        try {
            return observed(leaseTime, 0, false, 0);
        } catch (InterruptedException e) {
            throw new AssertionError("a single attempt does not wait", e);
        }
    }

    @Override
    public Optional<Lease> tryAcquire(Duration leaseTime, Duration maxWait) throws InterruptedException {
        state.checkLeaseTime(leaseTime);
        long maxWaitNanos = Arguments.maxWaitNanos(maxWait);
        return observed(leaseTime, maxWaitNanos, true, maxWaitNanos);
    }

    @Override
    public Lease acquire(Duration leaseTime) throws InterruptedException {
        state.checkLeaseTime(leaseTime);
        return observed(leaseTime, Arguments.FOREVER.toNanos(), true, state.options().connectTimeout().toNanos())
                .orElseThrow(() -> new IllegalStateException("waited a century for " + hold.describe() + " '" + name + "'"));
    }

    /**
     * The engine knows its client's features and drift allowance: a lease time no lease could be
     * valid for, or a backend without auto-renewal, is refused here rather than at the first lock.
     */
    @Override
    public LeaseLock asLock(Duration leaseTime) {
        state.checkLeaseTime(leaseTime);
        state.require(Feature.AUTO_RENEWAL, "DistributedLock.asLock");
        return DistributedLock.super.asLock(leaseTime);
    }

    @Override
    public String toString() {
        return hold.kind() == Hold.Kind.EXCLUSIVE ? "DistributedLock[" + name + "]" : "DistributedLock[" + hold.describe() + " " + name + "]";
    }

    /** The acquire, with its outcome and the time it took told to the client's listener, if there is one. */
    private Optional<Lease> observed(Duration leaseTime, long maxWaitNanos, boolean waiting, long unknownGraceNanos)
            throws InterruptedException {
        if (!events.listening()) {
            return new Acquisition(parts, name, hold, leaseTime, maxWaitNanos, waiting, unknownGraceNanos).run();
        }
        long start = state.nanoTime();
        try {
            Optional<Lease> lease = new Acquisition(parts, name, hold, leaseTime, maxWaitNanos, waiting, unknownGraceNanos).run();
            LockEvent.Type type = lease.isPresent() ? LockEvent.Type.ACQUIRED
                    : maxWaitNanos == 0 ? LockEvent.Type.BUSY : LockEvent.Type.TIMED_OUT;
            events.emit(type, name, state.nanoTime() - start, null, null);
            return lease;
        } catch (BackendUnavailableException e) {
            events.emit(LockEvent.Type.UNAVAILABLE, name, state.nanoTime() - start, null, e);
            throw e;
        } catch (AuthenticationException | AccessDeniedException e) {
            events.emit(LockEvent.Type.REFUSED, name, state.nanoTime() - start, null, e);
            throw e;
        } catch (InterruptedException e) {
            events.emit(LockEvent.Type.INTERRUPTED, name, state.nanoTime() - start, null, null);
            throw e;
        }
    }
}
