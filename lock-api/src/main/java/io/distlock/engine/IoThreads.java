package io.distlock.engine;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A client's I/O threads (the engine's calls into the driver: renewal batches, cleanup rounds): one
 * while calls come one at a time, a spare only while a call would wait behind a busy one, so that one
 * slow call does not hold up the next.
 *
 * <p>Why not a {@link java.util.concurrent.ThreadPoolExecutor}: with two core threads it starts a
 * thread per task until it has two, busy or not, so every client that renewed twice kept two; with one
 * core thread and a queue it never grows; and the threads of one that does grow take queued tasks in
 * turn, so under steady work neither is idle long enough to end. Here work goes to the thread that
 * became idle last, so the other one's idleness is not interrupted: a spare ends after
 * {@link #SPARE_KEEP_ALIVE_NANOS} without work, the last thread after {@link #KEEP_ALIVE_NANOS} — an
 * idle client holds no I/O thread.
 */
final class IoThreads implements Executor {

    /** How long the last thread waits for work before it ends. */
    static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How long a thread beside another waits for work before it ends: shorter than a renewal period. */
    static final long SPARE_KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String namePrefix;
    private final int max;
    private final AtomicInteger started = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    /** Work no thread was free for, in order. */
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    /** The idle threads, the one idle the shortest first. */
    private final ArrayDeque<Worker> idle = new ArrayDeque<>();
    private final Set<Worker> workers = new HashSet<>();
    private boolean shutdown;

    /**
     * @param namePrefix the threads' name, to which each adds its number
     * @param max        the most threads at once
     */
    IoThreads(String namePrefix, int max) {
        this.namePrefix = namePrefix;
        this.max = max;
    }

    /**
     * Runs {@code task} on the thread that became idle last, on a new one if none is idle and there
     * are fewer than the most, or else after the tasks before it.
     *
     * @throws RejectedExecutionException after {@link #shutdownNow()}
     */
    @Override
    public void execute(Runnable task) {
        lock.lock();
        try {
            if (shutdown) {
                throw new RejectedExecutionException("the client's I/O threads are shut down");
            }
            Worker worker = idle.pollFirst();
            if (worker != null) {
                worker.handed = task;
                worker.woken.signal();
            } else if (workers.size() < max) {
                worker = new Worker(task);
                workers.add(worker);
                worker.thread.start();
            } else {
                queued.add(task);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Ends the threads: running calls are interrupted, queued ones dropped. */
    void shutdownNow() {
        lock.lock();
        try {
            shutdown = true;
            queued.clear();
            for (Worker worker : workers) {
                worker.thread.interrupt();
                worker.woken.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return the threads alive now */
    int threads() {
        lock.lock();
        try {
            return workers.size();
        } finally {
            lock.unlock();
        }
    }

    /** @return the threads waiting for work now */
    int idle() {
        lock.lock();
        try {
            return idle.size();
        } finally {
            lock.unlock();
        }
    }

    private final class Worker implements Runnable {
        final Thread thread;
        final Condition woken = lock.newCondition();
        /** The task {@link #execute} gave this idle thread, or null. */
        Runnable handed;

        Worker(Runnable first) {
            this.handed = first;
            this.thread = new Thread(this, namePrefix + started.incrementAndGet());
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            Runnable task = take();
            while (task != null) {
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    // The engine's tasks catch what they expect; anything else is reported, and the thread goes on.
                    thread.getUncaughtExceptionHandler().uncaughtException(thread, e);
                }
                task = take();
            }
        }

        /** @return the next task, or null once this thread ends (idle long enough, or shut down) */
        private Runnable take() {
            lock.lock();
            try {
                Runnable task = handed != null ? handed : queued.poll();
                handed = null;
                if (task == null && !shutdown) {
                    idle.addFirst(this);
                    long idleSince = System.nanoTime();
                    while (handed == null && !shutdown) {
                        long keepAlive = workers.size() > 1 ? SPARE_KEEP_ALIVE_NANOS : KEEP_ALIVE_NANOS;
                        long left = keepAlive - (System.nanoTime() - idleSince);
                        if (left <= 0) {
                            break;
                        }
                        try {
                            woken.awaitNanos(left);
                        } catch (InterruptedException e) {
                            // shut down (checked above), or an interrupt a task left behind: wait on
                        }
                    }
                    idle.remove(this);
                    task = handed;
                    handed = null;
                }
                if (task == null || shutdown) {
                    workers.remove(this);
                    return null;
                }
                Thread.interrupted(); // each task starts uninterrupted
                return task;
            } finally {
                lock.unlock();
            }
        }
    }
}
