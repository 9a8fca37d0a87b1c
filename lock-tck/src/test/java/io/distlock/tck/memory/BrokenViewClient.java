package io.distlock.tck.memory;

import io.distlock.BackendDescriptor;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.LeaseLostException;
import io.distlock.LeaseUnconfirmedException;
import io.distlock.LockClient;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A client whose {@link LeaseLock} view has one deliberate defect, for the self-test of group 7. The
 * view is the engine's code in {@code lock-api}, not a driver's, so the defect cannot live in a
 * memory backend: it lives in this wrapper around a memory client, whose
 * {@code lock(name).asLock(leaseTime)} wraps the real view and changes only the one behaviour (a
 * {@link Bug} whose {@linkplain Bug#inView() defect is the view's}). It reports a scheme of its own,
 * {@code broken-<variant>}, so that its verdict is named after it.
 */
final class BrokenViewClient implements LockClient {

    private final LockClient client;
    private final Bug defect;

    BrokenViewClient(LockClient client, Bug defect) {
        this.client = client;
        this.defect = defect;
    }

    @Override
    public DistributedLock lock(String name) {
        DistributedLock lock = client.lock(name);
        return new DistributedLock() {
            @Override
            public String name() {
                return lock.name();
            }

            @Override
            public Optional<Lease> tryAcquire(Duration leaseTime) {
                return lock.tryAcquire(leaseTime);
            }

            @Override
            public Optional<Lease> tryAcquire(Duration leaseTime, Duration maxWait) throws InterruptedException {
                return lock.tryAcquire(leaseTime, maxWait);
            }

            @Override
            public Lease acquire(Duration leaseTime) throws InterruptedException {
                return lock.acquire(leaseTime);
            }

            @Override
            public LeaseLock asLock(Duration leaseTime) {
                return new View(lock.asLock(leaseTime), defect);
            }
        };
    }

    @Override
    public BackendDescriptor backend() {
        BackendDescriptor real = client.backend();
        return new BackendDescriptor(Bug.BROKEN_SCHEME + "-" + defect.variant(), real.guarantee(), real.features());
    }

    @Override
    public java.util.Optional<io.distlock.LockInfo> inspect(String name) {
        return client.inspect(name);
    }

    @Override
    public java.util.List<io.distlock.LockInfo> holders(String prefix, int limit) {
        return client.holders(prefix, limit);
    }

    @Override
    public java.util.Optional<io.distlock.LockInfo> revoke(String name, String reason) {
        return client.revoke(name, reason);
    }

    @Override
    public void close() {
        client.close();
    }

    /** The real view, with the defect in front of it. Only its holding thread touches {@link #extraHolds}. */
    private static final class View implements LeaseLock {
        private final LeaseLock view;
        private final Bug defect;
        /** Holds counted here, without the real view (and so without its look at the lease). */
        private int extraHolds;

        View(LeaseLock view, Bug defect) {
            this.view = view;
            this.defect = defect;
        }

        /** The defect: a holder's re-entry is counted here, whatever became of the lease. */
        private boolean blindReEntry() {
            if (defect == Bug.VIEW_REENTERS_LOST_LEASE && view.isHeldByCurrentThread()) {
                extraHolds++;
                return true;
            }
            return false;
        }

        /** A call of the real view, which throws what it throws. */
        @FunctionalInterface
        private interface ViewCall<T, E extends Exception> {
            T call() throws E;
        }

        /** The defect: a lease whose fate is unknown is reported as lost, as the view did before issue 20. */
        private <T, E extends Exception> T reported(ViewCall<T, E> call) throws E {
            try {
                return call.call();
            } catch (LeaseUnconfirmedException unconfirmed) {
                if (defect == Bug.VIEW_UNCONFIRMED_AS_LOST) {
                    throw new LeaseLostException(view.name(), Lease.LossReason.EXPIRED);
                }
                throw unconfirmed;
            }
        }

        @Override
        public void lock() {
            if (!blindReEntry()) {
                reported(() -> {
                    view.lock();
                    return null;
                });
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (!blindReEntry()) {
                reported(() -> {
                    view.lockInterruptibly();
                    return null;
                });
            }
        }

        @Override
        public boolean tryLock() {
            return blindReEntry() || reported(view::tryLock);
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return blindReEntry() || reported(() -> view.tryLock(time, unit));
        }

        @Override
        public void unlock() {
            if (extraHolds > 0 && view.isHeldByCurrentThread()) {
                extraHolds--;
                return;
            }
            reported(() -> {
                view.unlock();
                return null;
            });
        }

        @Override
        public int getHoldCount() {
            return view.getHoldCount() + (view.isHeldByCurrentThread() ? extraHolds : 0);
        }

        @Override
        public String name() {
            return view.name();
        }

        @Override
        public Duration leaseTime() {
            return view.leaseTime();
        }

        @Override
        public Optional<Lease> lease() {
            return view.lease();
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return view.isHeldByCurrentThread();
        }

        @Override
        public boolean isLocked() {
            return view.isLocked();
        }

        @Override
        public Condition newCondition() {
            return view.newCondition();
        }
    }
}
