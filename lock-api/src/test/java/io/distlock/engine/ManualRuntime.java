package io.distlock.engine;

import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link EngineRuntime} for the engine's own tests: a clock that moves only when the test says
 * so, a keeper whose tasks run on the test's thread when the clock passes them, and I/O that runs
 * on the executor the test chooses (inline, for a fully deterministic test; a real thread, for one
 * that blocks a driver call on purpose). Nothing sleeps.
 */
final class ManualRuntime implements EngineRuntime {

    private record Task(long at, long seq, Runnable run) { }

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.signum(a.at - b.at)
            : Long.compare(a.seq, b.seq));
    private final Executor io;
    private long seq;
    private boolean shutDown;

    /** I/O runs inline, on whichever thread starts it. */
    ManualRuntime() {
        this(Runnable::run);
    }

    ManualRuntime(Executor io) {
        this.io = io;
    }

    @Override
    public long nanoTime() {
        return now.get();
    }

    @Override
    public synchronized Cancellable schedule(Runnable task, long delayNanos) {
        if (shutDown) {
            return null;
        }
        Task t = new Task(now.get() + Math.max(0, delayNanos), seq++, task);
        tasks.add(t);
        return () -> {
            synchronized (ManualRuntime.this) {
                tasks.remove(t);
            }
        };
    }

    @Override
    public Executor io() {
        return io;
    }

    @Override
    public synchronized void shutdown() {
        shutDown = true;
        tasks.clear();
    }

    /** Moves the clock by {@code nanos}, running every keeper task that falls due, in order, on this thread. */
    void advance(long nanos) {
        long target = now.get() + nanos;
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.at - target > 0) {
                    break;
                }
                tasks.poll();
            }
            if (next.at - now.get() > 0) {
                now.set(next.at);
            }
            next.run.run();
        }
        now.set(target);
    }

    /** Runs what is due now without moving the clock. */
    void runDue() {
        advance(0);
    }

    synchronized int scheduled() {
        return tasks.size();
    }

    /** @return how many tasks were ever scheduled (each one a keeper thread's wake-up on a real runtime) */
    synchronized long scheduledEver() {
        return seq;
    }
}
