package io.distlock.engine;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The clock and the threads of one client, behind one seam so that the engine's races can be
 * tested on a manual clock and a manual scheduler, without sleeping.
 *
 * <p>Two kinds of work, kept apart: the <em>keeper</em> only decides (which lease is due for
 * renewal or has passed its validity, which cleanup to retry) and never waits on a server; every
 * call into the driver that it starts runs on the client's small <em>I/O executor</em>, so that a
 * slow server delays that call and nothing else — not the expiry of other leases, not their loss
 * notification.
 */
interface EngineRuntime {

    /** @return the monotonic clock, in nanoseconds ({@link System#nanoTime()} in production) */
    long nanoTime();

    /**
     * Runs {@code task} on the keeper after {@code delayNanos}.
     *
     * @return a handle that cancels it, or null if the runtime is shut down
     */
    Cancellable schedule(Runnable task, long delayNanos);

    /** @return where driver calls started by the engine run (never the keeper, never the common pool) */
    Executor io();

    /** Stops the keeper and the I/O threads; work still queued is dropped. */
    void shutdown();

    /** A scheduled keeper task. */
    @FunctionalInterface
    interface Cancellable {
        void cancel();
    }

    /**
     * The production runtime: {@link System#nanoTime()}, one keeper thread, and I/O threads started
     * as work needs them ({@link IoThreads}): one while calls come one at a time, a second only while
     * a call waits behind a busy one.
     */
    final class Threads implements EngineRuntime {
        private static final AtomicInteger CLIENT_IDS = new AtomicInteger();
        /** Renewal batches and cleanups of one client rarely overlap; a second thread keeps one slow call from blocking the next. */
        private static final int IO_THREADS = 2;

        private final ScheduledThreadPoolExecutor keeper;
        private final IoThreads io;

        Threads(String scheme) {
            int id = CLIENT_IDS.incrementAndGet();
            String prefix = "distlock-" + scheme + "-";
            this.keeper = new ScheduledThreadPoolExecutor(1, daemon(prefix + "keeper-" + id));
            this.keeper.setRemoveOnCancelPolicy(true);
            this.io = new IoThreads(prefix + "io-" + id + "-", IO_THREADS); // an idle client holds no thread but its keeper
        }

        private static java.util.concurrent.ThreadFactory daemon(String name) {
            return runnable -> {
                Thread thread = new Thread(runnable, name);
                thread.setDaemon(true);
                return thread;
            };
        }

        /** @return the I/O threads, for tests */
        IoThreads ioThreads() {
            return io;
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public Cancellable schedule(Runnable task, long delayNanos) {
            try {
                ScheduledFuture<?> future = keeper.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
                return () -> future.cancel(false);
            } catch (RejectedExecutionException shutDown) {
                return null;
            }
        }

        @Override
        public Executor io() {
            return io;
        }

        @Override
        public void shutdown() {
            keeper.shutdownNow();
            io.shutdownNow();
        }
    }
}
