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

    /** How long an unlock or a re-entry waits for the engine's loss notice once the lease is found invalid. */
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
            LockException end = endOf(held, false);
            held.release(); // an unconfirmed lease too: the cleanup carries it out once the server answers
            if (end != null) {
                throw end;
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

    /**
     * After taking {@link #local}: true if this thread already held it, and its lease can still be
     * relied on. A lease lost or unconfirmed meanwhile refuses the re-entry: the hold just taken is
     * given back, and the exception says why (a nested critical section must not run while another
     * process may hold the lock; false would claim contention).
     */
    private boolean reentered() {
        if (local.getHoldCount() > 1) {
            LockException refusal = endOf(lease, true);
            if (refusal != null) {
                local.unlock();
                throw refusal;
            }
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
     * What ended {@code held}, as the exception to report, or null while it is valid. Only a definite
     * loss is a loss: the lease's {@link Lease#lost()} completed (the engine announces it on another
     * thread, so an invalid lease waits briefly for the notice), or the lease was released behind the
     * view (its client was closed), which gave the lock up. An invalid lease that is neither — the
     * client cannot vouch for it (a suspended connection, a session not confirmed lately) — is
     * unconfirmed: its fate is unknown, and saying "lost" would be a guess.
     *
     * @param reentry true for a refused re-entry, false for the last unlock
     */
    private LockException endOf(Lease held, boolean reentry) {
        if (held.isValid()) {
            return null;
        }
        CompletableFuture<Lease.LossReason> notice = held.lost().toCompletableFuture();
        Lease.LossReason reason = notice.isDone() ? notice.join()
                : releasedBehindTheView(held) ? Lease.LossReason.EXPIRED : lossNotice(notice);
        if (reason != null) {
            return reentry ? new LeaseLostException(name(), reason, "cannot re-enter lock '" + name() + "': its lease was"
                    + " lost (" + reason + ") and the lock may be held elsewhere; the hold count is unchanged, and the last"
                    + " unlock reports the loss") : new LeaseLostException(name(), reason);
        }
        String why = "the client cannot vouch for its lease right now (a suspended connection, or a session not"
                + " confirmed lately), and the lease is not known to be lost either: its fate is unknown";
        return new LeaseUnconfirmedException(name(), reentry
                ? "cannot re-enter lock '" + name() + "': " + why + "; the hold count is unchanged, and a re-entry succeeds"
                        + " again once the lease is valid"
                : "the lease on lock '" + name() + "' could not be confirmed at unlock: " + why + ". The work done under the"
                        + " lock may or may not have overlapped another holder's; the lock was unlocked here and its release"
                        + " handed to the client's cleanup, which carries it out once the server answers");
    }

    /**
     * True if {@code held} was released without this view (the client's close releases every lease).
     * {@link Lease#autoRenew()} does nothing to a lease that renews already (every lease of this
     * view does), and throws {@link IllegalStateException} exactly when the lease was released or
     * its client closed.
     */
    private static boolean releasedBehindTheView(Lease held) {
        try {
            held.autoRenew();
            return false;
        } catch (IllegalStateException released) {
            return true;
        }
    }

    /** Why the lease was lost, if the engine says so within {@link #LOSS_NOTICE_WAIT_MILLIS}; else null. */
    private static Lease.LossReason lossNotice(CompletableFuture<Lease.LossReason> notice) {
        boolean interrupted = false;
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOSS_NOTICE_WAIT_MILLIS);
            while (true) {
                try {
                    return notice.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException | ExecutionException e) {
                    return null; // no loss announced: the lease is invalid for a reason that is no loss
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
