package io.distlock.bench;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import javax.management.JMException;
import javax.management.ObjectName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What one client costs the application's JVM: it connects, takes {@code leases} leases on distinct
 * names with {@code autoRenew()}, and is looked at while it holds them (issue 28's memory and thread
 * rows).
 * <ul>
 *   <li><b>heap per held lease</b>: the live heap after a full GC with the leases held (the lowest of
 *       the readings over one renewal interval, {@link #heldHeap}), less the live
 *       heap after a full GC with the client connected and one lease taken and released (so that
 *       what a client builds once — pools, its renewal keeper, a watch — is not counted per lease),
 *       divided by the leases. The {@link Lease} objects the application keeps are part of it; the
 *       log breaks it down by class (the JVM's class histograms at both points);</li>
 *   <li><b>threads</b>: the threads the client started (alive after the leases were held for a lease
 *       time, not alive before the connect), split into distlock's own (named {@code distlock-…}) and
 *       the rest, the driver's; distlock's are also counted just after the leases were taken ("while
 *       taking"). Threads a driver shares across its clients and had started for another client of
 *       the bench are not counted: the figure is what one more client adds.</li>
 *   <li><b>leases lost</b>: the leases not valid after that lease time, through their renewals.</li>
 * </ul>
 * The leases are taken from 16 threads of the bench's (stopped before the count).
 */
final class Footprint {

    /** The bench's own threads that take the leases. */
    private static final String ACQUIRERS = "bench-footprint-";
    private static final int ACQUIRER_THREADS = 16;
    /**
     * The leases' lease time, whatever the run's: long enough for every backend (Redlock refuses
     * one below twice its per-node timeout, 1 s in the bench), short enough that they are renewed.
     */
    static final Duration LEASE_TIME = Duration.ofSeconds(6);

    private Footprint() {
    }

    /** @return the row's label */
    static String name(int leases, String backend) {
        return "footprint: " + leases + " held auto-renewed leases, one client (" + backend + ")";
    }

    /**
     * @param backend   the row's backend, for its label
     * @param uri       the backend's URI, on the bench's servers
     * @param leases    how many leases to hold
     * @param hold      how long the leases are held before the threads are counted: a lease time (they
     *                  are renewed meanwhile) in a real run, less in a smoke run, which checks the harness
     * @param log       told the names of the threads the client started
     */
    static Measurement run(String backend, String uri, int leases, Duration hold, Consumer<String> log) throws Exception {
        Duration leaseTime = LEASE_TIME;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Set<Long> before = alive(threads).keySet();
        long start = System.nanoTime();
        try (LockClient client = Locks.connect(uri)) {
            client.lock("footprint-warm-up").tryAcquire(leaseTime, Duration.ofMinutes(1)).orElseThrow(() -> busy(backend))
                    .autoRenew().release();
            // The class histogram is read before the first figure, so that both figures count it.
            Map<String, long[]> connectedClasses = classHistogram();
            long connected = settledHeap();
            List<Lease> held = acquire(client, backend, leases, leaseTime);
            long acquiredNanos = System.nanoTime() - start;
            Map<Long, String> whileTaking = alive(threads);
            long[] holdingRange = heldHeap(hold.compareTo(leaseTime.dividedBy(3)) < 0 ? hold : leaseTime.dividedBy(3));
            long holding = holdingRange[0];
            log.accept("footprint (" + backend + "): bytes (instances) per held lease by class: "
                    + perLease(connectedClasses, classHistogram(), leases));
            // Then held for a lease time, renewed as they go: the threads a client keeps, not the
            // spare ones a burst of 16 acquiring threads brought on (which end within a second).
            Thread.sleep(hold.toMillis());
            Map<Long, String> started = alive(threads);
            int ownWhileTaking = own(whileTaking, before);
            int own = own(started, before);
            started.keySet().removeAll(before);
            Map<String, Integer> kinds = new TreeMap<>();
            started.values().forEach(thread -> kinds.merge(thread.replaceAll("[0-9]+", "N"), 1, Integer::sum));
            log.accept("footprint (" + backend + "): threads the client started: " + kinds);
            long lost = held.stream().filter(lease -> !lease.isValid()).count();
            release(held);
            Map<String, Double> extras = new LinkedHashMap<>();
            extras.put("leases", (double) leases);
            extras.put("heap bytes per held lease", (double) (holding - connected) / leases);
            extras.put("heap bytes per held lease, highest reading", (double) (holdingRange[1] - connected) / leases);
            extras.put("distlock threads", (double) own);
            extras.put("distlock threads while taking", (double) ownWhileTaking);
            extras.put("driver threads", (double) (started.size() - own));
            extras.put("leases lost", (double) lost);
            return new Measurement(name(leases, backend), leases * 1e9 / acquiredNanos, 0, 0, 0, leases, extras);
        }
    }

    private static IllegalStateException busy(String backend) {
        return new IllegalStateException("a footprint lock on " + backend + " was held by someone else");
    }

    private static List<Lease> acquire(LockClient client, String backend, int leases, Duration leaseTime) throws Exception {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(ACQUIRER_THREADS, r -> new Thread(r, ACQUIRERS + n.incrementAndGet()));
        try {
            List<Future<Lease>> futures = new ArrayList<>(leases);
            for (int i = 0; i < leases; i++) {
                String name = "footprint-" + i;
                // A wait, not a single attempt: an attempt with no answer in time (a loaded member) is tried again.
                futures.add(pool.submit(() -> client.lock(name).tryAcquire(leaseTime, Duration.ofMinutes(1))
                        .orElseThrow(() -> busy(backend)).autoRenew()));
            }
            List<Lease> held = new ArrayList<>(leases);
            for (Future<Lease> future : futures) {
                held.add(future.get(2, TimeUnit.MINUTES));
            }
            return held;
        } finally {
            pool.shutdownNow();
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the footprint's acquirers did not stop");
            }
        }
    }

    private static void release(List<Lease> held) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(ACQUIRER_THREADS, r -> new Thread(r, ACQUIRERS + "release"));
        try {
            List<Future<?>> futures = new ArrayList<>(held.size());
            held.forEach(lease -> futures.add(pool.submit(lease::release)));
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) { // the next row counts the threads alive
                throw new IllegalStateException("the footprint's releasers did not stop");
            }
        }
    }

    /**
     * @return the live objects by class — instances and bytes — from the JVM's own class histogram
     *         ({@code GC.class_histogram}, after a full collection); empty where the JVM offers none
     */
    static Map<String, long[]> classHistogram() {
        Map<String, long[]> classes = new HashMap<>();
        try {
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            // Lines read "   1:   120000   5760000  java.lang.String (java.base@17)": rank, instances, bytes, class.
            for (String line : String.valueOf(text).split("\n")) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length >= 4 && fields[0].endsWith(":")) {
                    classes.put(fields[3], new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
                }
            }
        } catch (JMException | RuntimeException unavailable) {
            // another JVM: the row is still measured, without its breakdown
        }
        return classes;
    }

    /**
     * @return the classes whose live bytes grew the most between {@code before} and {@code after},
     *         as bytes (and instances) per lease, largest first: where a held lease's heap goes
     */
    static String perLease(Map<String, long[]> before, Map<String, long[]> after, int leases) {
        StringBuilder out = new StringBuilder();
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), new long[] {
                        e.getValue()[0] - before.getOrDefault(e.getKey(), new long[2])[0],
                        e.getValue()[1] - before.getOrDefault(e.getKey(), new long[2])[1]}))
                .filter(e -> e.getValue()[1] * 20 >= leases) // 0.05 byte per lease or more
                .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                .limit(15)
                .forEach(e -> out.append(out.length() == 0 ? "" : ", ").append(e.getKey()).append(' ')
                        .append(String.format(java.util.Locale.ROOT, "%.0f B (%.2f)", (double) e.getValue()[1] / leases,
                                (double) e.getValue()[0] / leases)));
        return out.length() == 0 ? "(no class histogram)" : out.toString();
    }

    /** @return how many of {@code alive} are distlock's own threads that were not alive {@code before} */
    private static int own(Map<Long, String> alive, Set<Long> before) {
        int own = 0;
        for (Map.Entry<Long, String> thread : alive.entrySet()) {
            String name = thread.getValue();
            // Hazelcast names its client's threads after the instance, which lock-hazelcast calls
            // distlock-<uuid>: those are the driver's.
            if (!before.contains(thread.getKey()) && name.startsWith("distlock-") && !name.startsWith("distlock-bench-")
                    && !name.matches("distlock-[0-9a-f]{8}-[0-9a-f]{4}-.*")) {
                own++;
            }
        }
        return own;
    }

    /** @return the live threads, by id, with their names */
    private static Map<Long, String> alive(ThreadMXBean threads) {
        Map<Long, String> names = new LinkedHashMap<>();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null) {
                names.put(info.getThreadId(), info.getThreadName());
            }
        }
        return names;
    }

    /**
     * The live heap while leases are held, read ({@link #settledHeap}) every quarter second for
     * {@code window} — one renewal interval in a real run. A reading taken while a renewal batch is
     * in flight also counts the batch's requests and replies (up to one per lease, for the moment);
     * the lowest reading is what the held leases keep between batches, which the row reports, and
     * the highest is reported beside it.
     *
     * @return {lowest, highest}
     */
    static long[] heldHeap(Duration window) throws InterruptedException {
        long lowest = Long.MAX_VALUE;
        long highest = Long.MIN_VALUE;
        long end = System.nanoTime() + window.toNanos();
        do {
            long used = settledHeap();
            lowest = Math.min(lowest, used);
            highest = Math.max(highest, used);
            Thread.sleep(250); // paces the readings over the window; each is a full collection
        } while (System.nanoTime() - end < 0);
        return new long[] {lowest, highest};
    }

    /**
     * @return the heap in use after full collections, once two in a row agree within 64 KiB (at
     *         most ten): what is live, not what is merely not collected yet
     */
    static long settledHeap() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            long used = memory.getHeapMemoryUsage().getUsed();
            if (Math.abs(used - last) < 64 * 1024) {
                return used;
            }
            last = used;
        }
        return last;
    }

}
