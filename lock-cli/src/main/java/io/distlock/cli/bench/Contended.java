package io.distlock.cli.bench;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.cli.report.Report;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Several clients, each its own {@link LockClient} (its own connections, as separate processes would
 * have), loop on one lock: {@code tryAcquire(lease, maxWait)}, release at once, again. Measures each
 * acquire from call to grant (the wait included), grants per second, how many grants each client got,
 * and how often the lock went back to the client that had just released it: a backend that lets the
 * releaser barge in shows it there long before the shares look unfair.
 */
final class Contended {

    private final String lockName;
    private final List<LockClient> clients;
    private final Duration lease;
    private final Duration maxWait;
    private final Histogram[] latencies;
    private final long[] grants;
    private final long[] backToReleaser;
    private final long[] gaveUp;
    private final AtomicInteger lastReleaser = new AtomicInteger(-1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
    private long windowNanos;

    Contended(String lockName, List<LockClient> clients, Duration lease, Duration maxWait) {
        this.lockName = lockName;
        this.clients = List.copyOf(clients);
        this.lease = lease;
        this.maxWait = maxWait;
        int n = clients.size();
        this.latencies = new Histogram[n];
        for (int i = 0; i < n; i++) {
            latencies[i] = Figures.histogram();
        }
        this.grants = new long[n];
        this.backToReleaser = new long[n];
        this.gaveUp = new long[n];
    }

    /**
     * Starts one thread per client; they warm up until {@code recordFrom}, record grants until
     * {@code recordUntil}, and each stops after its first grant past that (so that a client still
     * waiting at the end gets the lock from the others as they leave, and none is left waiting).
     *
     * @param started told of each thread, so that a Ctrl-C can interrupt it
     * @return the threads, started
     */
    List<Thread> start(long recordFrom, long recordUntil, Consumer<Thread> started) {
        windowNanos = recordUntil - recordFrom;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients.size(); i++) {
            int client = i;
            Thread thread = new Thread(() -> {
                try {
                    loop(client, recordFrom, recordUntil);
                } catch (InterruptedException e) {
                    stop = true;
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    // One client's failure voids the row: the others stop too, rather than run on alone.
                    stop = true;
                }
            }, "distlock-bench-client-" + (i + 1));
            thread.setDaemon(true);
            threads.add(thread);
            started.accept(thread);
        }
        threads.forEach(Thread::start);
        return threads;
    }

    private void loop(int client, long recordFrom, long recordUntil) throws InterruptedException {
        DistributedLock lock = clients.get(client).lock(lockName);
        Histogram mine = latencies[client];
        while (!stop) {
            long asked = System.nanoTime();
            Optional<Lease> lease = lock.tryAcquire(this.lease, maxWait);
            long granted = System.nanoTime();
            boolean inWindow = granted - recordFrom >= 0 && granted - recordUntil < 0;
            if (lease.isEmpty()) {
                if (inWindow) {
                    gaveUp[client]++;
                }
            } else {
                if (inWindow) {
                    Figures.record(mine, granted - asked);
                    grants[client]++;
                    if (lastReleaser.get() == client) {
                        backToReleaser[client]++;
                    }
                }
                // Set before the release is sent: whoever is granted next reads it after its grant.
                lastReleaser.set(client);
                lease.get().release();
            }
            if (granted - recordUntil >= 0) {
                return;
            }
        }
    }

    /**
     * Waits for the threads (they end a hand-off after the window).
     *
     * @param threads what {@link #start} returned
     * @param bound   how long past the window's end to wait for them
     * @return null if they all ended; else why the row is void
     */
    String join(List<Thread> threads, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        for (Thread thread : threads) {
            long left = deadline - System.nanoTime();
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            if (thread.isAlive()) {
                stop = true;
                threads.forEach(Thread::interrupt);
                return thread.getName() + " was still waiting for the lock " + bound.toSeconds() + " s after the window";
            }
        }
        Throwable t = failure.get();
        return t == null ? null : t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    /** Stops the loops after their current attempt (a Ctrl-C also interrupts the threads). */
    void stop() {
        stop = true;
    }

    /** @return the row: every client's latencies merged, the shares per client */
    Report.BenchRow row(String scenario) {
        Histogram all = Figures.histogram();
        List<Report.Share> shares = new ArrayList<>();
        for (int i = 0; i < latencies.length; i++) {
            all.add(latencies[i]);
            shares.add(new Report.Share("client-" + (i + 1), grants[i]));
        }
        return Figures.row(scenario, false, clients.size(), all, all.getTotalCount() * 1e9 / Math.max(1, windowNanos),
                shares);
    }

    /** @return the fraction of recorded grants that went to the client that had released just before */
    double backToReleaser() {
        long total = 0;
        long back = 0;
        for (int i = 0; i < grants.length; i++) {
            total += grants[i];
            back += backToReleaser[i];
        }
        return total == 0 ? 0 : (double) back / total;
    }

    /** @return how many attempts in the window ended empty after waiting {@code maxWait} */
    long gaveUp() {
        long n = 0;
        for (long g : gaveUp) {
            n += g;
        }
        return n;
    }
}
