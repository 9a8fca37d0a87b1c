package io.distlock.engine;

import io.distlock.spi.Watch;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where an acquiring thread sleeps between attempts. Woken early by the driver's change
 * notification (it is the watch listener), by the watch becoming active, or by the client
 * closing. A notification that arrives while the thread is busy retrying is remembered, so none
 * is lost between attempts.
 */
final class Waiter implements Runnable {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean signalled;
    private boolean active;
    private volatile boolean watchRequested;
    private volatile Watch watch = Watch.NONE;

    boolean watchRequested() {
        return watchRequested;
    }

    void watchRequested(boolean requested) {
        this.watchRequested = requested;
    }

    void watching(Watch watch) {
        this.watch = watch;
        watch.active().whenComplete((ok, failed) -> {
            lock.lock();
            try {
                active = true; // a failed registration is "as active as it gets": stop waiting for it
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        });
    }

    /** The change listener: wakes the waiting thread. */
    @Override
    public void run() {
        lock.lock();
        try {
            signalled = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sleeps until signalled or until {@code nanos} pass.
     *
     * @throws InterruptedException if the thread is interrupted
     */
    void await(long nanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (!signalled && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            signalled = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sleeps until the watch is active on the server (or its registration failed), until
     * signalled (the client closes), or until {@code nanos} pass. A watch that was never
     * registered counts as active.
     *
     * @throws InterruptedException if the thread is interrupted
     */
    void awaitActive(long nanos) throws InterruptedException {
        if (watch == Watch.NONE) {
            return;
        }
        lock.lockInterruptibly();
        try {
            while (!active && !signalled && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    void close() {
        watch.close();
    }
}
