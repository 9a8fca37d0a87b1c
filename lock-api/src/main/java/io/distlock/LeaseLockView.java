package io.distlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link LeaseLock} behind {@link DistributedLock#asLock(Duration)}. A local
 * {@link ReentrantLock} stands in front of the distributed lock: it queues this process's threads
 * (only its holder talks to the server), it is the owner and the hold count, and it is held exactly
 * while this object holds a lease — every path that ends without a lease unlocks it again.
 */
final class LeaseLockView implements LeaseLock {

    /** How long unlock waits for the engine's loss notice once the lease is known to be invalid. */
    private static final long LOSS_NOTICE_WAIT_MILLIS = 200;

    private final DistributedLock lock;
    private final Duration leaseTime;
    private final ReentrantLock local = new ReentrantLock();
    /** The holder's lease; written and read only by the thread holding {@link #local}. */
    private Lease lease;
    /** Set once a lease could not be auto-renewed: later locks fail before asking the server. */
    private volatile UnsupportedOperationException renewalUnsupported;

    LeaseLockView(DistributedLock lock, Duration leaseTime) {
        this.lock = Objects.requireNonNull(lock, "lock");
        this.leaseTime = leaseTime;
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public Duration leaseTime() {
        return leaseTime;
    }

    @Override
    public Optional<Lease> lease() {
        return local.isHeldByCurrentThread() ? Optional.ofNullable(lease) : Optional.empty();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return local.isHeldByCurrentThread();
    }

    @Override
    public int getHoldCount() {
        return local.getHoldCount();
    }

    @Override
    public boolean isLocked() {
        return local.isLocked() || local.hasQueuedThreads();
    }

    @Override
    public void lock() {
        local.lock();
        if (reentered()) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    hold(lock.acquire(leaseTime));
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // not interruptible: wait on, and say so when done
                }
            }
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (reentered()) {
            return;
        }
        try {
            hold(lock.acquire(leaseTime));
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        if (!local.tryLock()) {
            return false;
        }
        if (reentered()) {
            return true;
        }
        Optional<Lease> granted;
        try {
            granted = lock.tryAcquire(leaseTime);
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
        return take(granted);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long start = System.nanoTime();
        long waitNanos = Math.max(0, unit.toNanos(time));
        if (!local.tryLock(waitNanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (reentered()) {
            return true;
        }
        long left = Math.max(0, waitNanos - (System.nanoTime() - start));
        Optional<Lease> granted;
        try {
            granted = lock.tryAcquire(leaseTime, Duration.ofNanos(left));
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
        return take(granted);
    }

    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("lock '" + name() + "' is not held by thread "
                    + Thread.currentThread().getName());
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease held = lease;
        lease = null;
        try {
            Lease.LossReason lost = lossOf(held);
            held.release();
            if (lost != null) {
                throw new LeaseLostException(name(), lost);
            }
        } finally {
            local.unlock();
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a LeaseLock has no conditions: waiting on one would have to give the"
                + " lock up on the server");
    }

    @Override
    public String toString() {
        return "LeaseLock[" + name() + ", leaseTime=" + leaseTime + (local.isLocked() ? ", locked" : ", unlocked") + "]";
    }

    /** After taking {@link #local}: true if this thread already held it (and so the lease). */
    private boolean reentered() {
        if (local.getHoldCount() > 1) {
            return true;
        }
        UnsupportedOperationException unsupported = renewalUnsupported;
        if (unsupported != null) {
            local.unlock();
            throw new UnsupportedOperationException(unsupported.getMessage(), unsupported);
        }
        return false;
    }

    /** Records a fresh lease, renewed from now on; on failure gives it back (the caller unlocks). */
    private void hold(Lease granted) {
        try {
            granted.autoRenew();
        } catch (UnsupportedOperationException e) {
            granted.release();
            renewalUnsupported = e;
            throw e;
        } catch (RuntimeException | Error e) {
            granted.release();
            throw e;
        }
        lease = granted;
    }

    /** After an attempt that did not throw: holds its lease, or unlocks {@link #local} if there is none. */
    private boolean take(Optional<Lease> granted) {
        if (granted.isEmpty()) {
            local.unlock();
            return false;
        }
        try {
            hold(granted.get());
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
        return true;
    }

    /**
     * Why {@code held} was lost, or null if it is still valid. An invalid lease that was not released
     * was lost; the engine announces why on another thread, so wait briefly for the notice.
     */
    private static Lease.LossReason lossOf(Lease held) {
        if (held.isValid()) {
            return null;
        }
        CompletableFuture<Lease.LossReason> notice = held.lost().toCompletableFuture();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return notice.get(LOSS_NOTICE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException | ExecutionException e) {
                    // The validity passed and the keeper has not said so yet (or the client was
                    // closed, which released the lease): either way the lock was not ours to the end.
                    return Lease.LossReason.EXPIRED;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
