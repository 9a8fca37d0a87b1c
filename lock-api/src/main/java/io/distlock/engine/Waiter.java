package io.distlock.engine;

import io.distlock.spi.Watch;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where an acquiring thread sleeps between attempts. Woken early by the driver's change
 * notification (it is the watch listener) or by the client closing. A notification that arrives
 * while the thread is busy retrying is remembered, so none is lost between attempts.
 */
final class Waiter implements Runnable {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean signalled;
    private volatile Watch watch = Watch.NONE;

    void watching(Watch watch) {
        this.watch = watch;
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

    void close() {
        watch.close();
    }
}
