package io.distlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.HdrHistogram.Histogram;

/**
 * Several clients (each its own connections, as separate processes would have) take one lock in a
 * loop with an empty critical section. Measures acquisitions per second, the <em>hand-off</em>
 * latency — from the moment one holder starts its release to the moment the next holder (any
 * client, the same one included) has its grant in hand — how evenly the grants were spread
 * over the clients, and how many went back to the client that had just released.
 */
final class Contended implements Scenario {

    /** One client of the contended lock. */
    interface Contender extends AutoCloseable {
        /**
         * Waits for the lock.
         *
         * @return what {@link #release} needs
         * @throws Exception if no grant came within a generous bound
         */
        Object acquire() throws Exception;

        /** @param held what {@link #acquire} returned */
        void release(Object held) throws Exception;

        @Override
        void close();
    }

    /** The extra that counts grants back to the client that had just released, in per cent of all grants. */
    static final String REGRANTS = "regrants %";

    private final String name;
    private final List<Contender> contenders;
    private final Histogram handOff = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private final long[] grants;
    private final long minSliceNanos;
    private final boolean onRedis;
    /** Every grant in a recorded slice, the ones after its end included. */
    private long served;
    /** The client of the slice's latest grant, -1 before the first. */
    private int lastGrantee = -1;
    /** Grants in recorded slices that went to the client of the grant before: it released, and took the lock back. */
    private long regrants;
    private long recordedNanos;

    Contended(String name, List<Contender> contenders) {
        this(name, contenders, Duration.ZERO);
    }

    /**
     * @param minSlice the shortest slice this row runs, whatever the harness asks: for a backend
     *                 whose hand-offs are sometimes as long as a slice (etcd's), a short slice
     *                 would end during most long hand-offs and keep only the short ones
     */
    Contended(String name, List<Contender> contenders, Duration minSlice) {
        this(name, contenders, minSlice, true);
    }

    /**
     * @param onRedis false for a row whose server is not one of the bench's Redis servers: the
     *                harness then leaves out the server columns ({@link Scenario#onRedis()})
     */
    Contended(String name, List<Contender> contenders, Duration minSlice, boolean onRedis) {
        this.onRedis = onRedis;
        this.name = name;
        this.contenders = List.copyOf(contenders);
        this.grants = new long[contenders.size()];
        this.minSliceNanos = minSlice.toNanos();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean onRedis() {
        return onRedis;
    }

    @Override
    public void runSlice(long nanos, boolean record) throws Exception {
        long start = System.nanoTime();
        long end = start + Math.max(nanos, minSliceNanos);
        AtomicLong releaseStart = new AtomicLong();
        synchronized (this) {
            lastGrantee = -1; // a slice starts with every client taking its first turn
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < contenders.size(); i++) {
            int client = i;
            Thread thread = new Thread(() -> {
                try {
                    loop(client, end, releaseStart, record);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-contender-" + i);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
            if (thread.isAlive()) {
                throw new IllegalStateException(name + ": " + thread.getName() + " still waits for the lock after 60 s");
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException(name + " failed", failure.get());
        }
        if (record) {
            recordedNanos += end - start;
        }
    }

    /** Each client: acquire, note the hand-off, release — until a grant comes after the slice's end. */
    private void loop(int client, long end, AtomicLong releaseStart, boolean record) throws Exception {
        Contender contender = contenders.get(client);
        while (true) {
            Object held = contender.acquire();
            long granted = System.nanoTime();
            boolean over = granted - end >= 0;
            if (record) {
                long previous = releaseStart.get();
                synchronized (this) {
                    served++;
                    if (!over) {
                        if (previous != 0) {
                            handOff.recordValue(granted - previous);
                        }
                        if (lastGrantee == client) {
                            regrants++;
                        }
                        lastGrantee = client;
                        grants[client]++;
                    }
                }
            }
            // Set before the release is sent: whoever is granted next reads it after its grant.
            releaseStart.set(System.nanoTime());
            contender.release(held);
            if (over) {
                return;
            }
        }
    }

    @Override
    public synchronized Measurement result() {
        long total = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long g : grants) {
            total += g;
            min = Math.min(min, g);
            max = Math.max(max, g);
        }
        Map<String, Double> extras = new LinkedHashMap<>();
        extras.put("clients", (double) grants.length);
        extras.put("least share %", total == 0 ? 0 : 100.0 * min / total);
        extras.put("most share %", total == 0 ? 0 : 100.0 * max / total);
        // With every other client waiting, a grant back to the client that just released is the
        // waiters' loss: 1 / clients if the lock went to a random contender, 0 in strict FIFO.
        extras.put(REGRANTS, total == 0 ? 0 : 100.0 * regrants / total);
        return new Measurement(name, total * 1e9 / Math.max(1, recordedNanos), handOff.getValueAtPercentile(50),
                handOff.getValueAtPercentile(99), handOff.getValueAtPercentile(99.9), handOff.getTotalCount(), extras);
    }

    @Override
    public synchronized long served() {
        return served;
    }

    @Override
    public synchronized void reset() {
        served = 0;
        handOff.reset();
        java.util.Arrays.fill(grants, 0);
        regrants = 0;
        recordedNanos = 0;
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (Contender contender : contenders) {
            try {
                contender.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
