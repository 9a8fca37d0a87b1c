package io.distlock.engine;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.LockEvent;

import java.time.Duration;
import java.util.Optional;

/**
 * The engine's {@link DistributedLock}: a name on a client. It checks the arguments, runs each
 * acquire call as an {@link Acquisition} (the acquire loop, the same for every backend) and tells
 * the client's listener of its outcome and the time it took.
 */
final class EngineLock implements DistributedLock {

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
            return client.acquisition(name, leaseTime, maxWaitNanos, waiting, unknownGraceNanos).run();
        }
        long start = client.nanoTime();
        try {
            Optional<Lease> lease = client.acquisition(name, leaseTime, maxWaitNanos, waiting, unknownGraceNanos).run();
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
}
