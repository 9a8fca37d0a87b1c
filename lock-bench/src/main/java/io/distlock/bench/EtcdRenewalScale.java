package io.distlock.bench;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * One distlock etcd client holds many leases on distinct locks with {@code autoRenew()} for three
 * renewal periods, on an etcd member of its own (so every request the member counts is this
 * client's). The backend's claim: a renewal tick is ONE {@code LeaseTimeToLive(withAttachedKeys)}
 * call, whatever the number of leases (the session lease's key list says which locks are still
 * held), besides the session's keep-alive every third of its TTL — not a request per lease.
 *
 * <p>Counted in a {@link RenewalWindow}: renewal ticks (the keeper's {@code extendAll} calls, seen
 * through {@link CountingEtcdBackend}), leases per tick, and from the member's {@code /metrics}
 * ({@link EtcdMetrics}) the gRPC calls it completed per tick ({@code grpc_server_handled_total}) —
 * {@code LeaseTimeToLive}, {@code LeaseKeepAlive}, {@code Txn} and {@code Range}, and all of them
 * ("RPCs per tick per client"; a keep-alive is one call, a stream of its own) — the keep-alive
 * messages besides (jetcd's {@code keepAliveOnce}, which the backend uses, writes its request
 * twice: once when the stream opens, again as it ends it), and the member's and the bench JVM's
 * CPU per tick. The row's latency columns are the
 * ticks' durations. Every lease must still be valid at the end ("leases lost" 0).
 *
 * <p>The leases are taken first, from {@value #ACQUIRING_THREADS} threads at once (each acquire is
 * a write the member fsyncs; concurrent ones share fsyncs), each set to auto-renew as soon as it is
 * granted; the lease time must cover the slowest renewal tick while the rest are still being taken.
 * They are released the same way at the end, before the client closes.
 */
final class EtcdRenewalScale {

    static final String RPCS_PER_TICK = "RPCs per tick per client";
    static final String LEASES_LOST = "leases lost";

    private static final int ACQUIRING_THREADS = 32;

    private final int leases;
    private final Duration leaseTime;

    /**
     * @param leases    how many leases the client holds
     * @param leaseTime their lease time: a renewal period is a third of it
     */
    EtcdRenewalScale(int leases, Duration leaseTime) {
        this.leases = leases;
        this.leaseTime = leaseTime;
    }

    static String name(int leases) {
        return "scale: " + leases + " leases, autoRenew, 3 renewal periods (distlock etcd)";
    }

    String name() {
        return name(leases);
    }

    /**
     * @param endpoint the member's own client address, {@code host:port}; nothing else may use the member
     * @return the row
     * @throws IllegalStateException if a lease was lost, or a lock was busy
     */
    Measurement run(String endpoint) throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (LockClient client = Locks.connect(CountingEtcdBackend.SCHEME + "://" + endpoint + "/scale?sessionTtl="
                + EtcdPeers.SESSION_TTL_SECONDS)) {
            long acquireStart = System.nanoTime();
            List<Lease> held = acquireAll(client);
            double acquireMillis = (System.nanoTime() - acquireStart) / 1e6;
            long lostWhileAcquiring = held.stream().filter(lease -> !lease.isValid()).count();

            RenewalWindow<EtcdMetrics> window = RenewalWindow.measure(CountingEtcdBackend.TICKS,
                    () -> EtcdMetrics.read(endpoint), os::getProcessCpuTime, leaseTime, name());
            long lost = held.stream().filter(lease -> !lease.isValid()).count();

            List<TickLog.Tick> ticks = window.ticks();
            Histogram tickLatency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            long renewed = 0;
            for (TickLog.Tick tick : ticks) {
                tickLatency.recordValue(tick.nanos());
                renewed += tick.leases();
            }
            double n = Math.max(1, ticks.size());
            EtcdMetrics server = window.server1().since(window.server0());
            Map<String, Double> extras = new LinkedHashMap<>();
            extras.put("leases", (double) leases);
            extras.put("acquiring ms (" + ACQUIRING_THREADS + " threads)", acquireMillis);
            extras.put("ticks", (double) ticks.size());
            extras.put("leases per tick", renewed / n);
            extras.put("LeaseTimeToLive per tick", server.calls("LeaseTimeToLive") / n);
            extras.put("LeaseKeepAlive calls per tick", server.calls("LeaseKeepAlive") / n);
            extras.put("LeaseKeepAlive messages per tick", server.requests("LeaseKeepAlive") / n);
            extras.put("Txn+Range per tick", (server.calls("Txn") + server.calls("Range")) / n);
            extras.put(RPCS_PER_TICK, server.calls() / n);
            extras.put("server CPU ms per tick", server.cpuSeconds() * 1e3 / n);
            extras.put("bench JVM CPU ms per tick", window.clientCpu() / 1e6 / n);
            extras.put("leases lost while acquiring", (double) lostWhileAcquiring);
            extras.put(LEASES_LOST, (double) lost);
            if (lost > 0) {
                throw new IllegalStateException(lost + " of " + leases + " auto-renewed etcd leases were lost ("
                        + lostWhileAcquiring + " of them while the others were being acquired)");
            }
            // Released here, as they were taken, before the client closes: closing with thousands of
            // leases sends every delete at once and waits only the operation timeout (BENCHMARKS.md).
            long releaseStart = System.nanoTime();
            inParallel(held.stream().<Callable<Lease>>map(lease -> () -> {
                lease.release();
                return lease;
            }).toList());
            extras.put("releasing ms", (System.nanoTime() - releaseStart) / 1e6);
            return new Measurement(name(), renewed * 1e9 / (window.end() - window.start()), tickLatency.getValueAtPercentile(50),
                    tickLatency.getValueAtPercentile(99), tickLatency.getValueAtPercentile(99.9), ticks.size(), extras);
        }
    }

    /** Takes every lease from {@value #ACQUIRING_THREADS} threads, each set to auto-renew at once. */
    private List<Lease> acquireAll(LockClient client) throws Exception {
        List<Callable<Lease>> acquires = new ArrayList<>(leases);
        for (int i = 0; i < leases; i++) {
            String name = "scale-" + i;
            acquires.add(() -> client.lock(name).tryAcquire(leaseTime)
                    .orElseThrow(() -> new IllegalStateException("scale lock " + name + " was busy")).autoRenew());
        }
        return inParallel(acquires);
    }

    /** Runs every task on {@value #ACQUIRING_THREADS} threads; returns their results in order, or throws the first failure. */
    private static List<Lease> inParallel(List<Callable<Lease>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(ACQUIRING_THREADS, runnable -> {
            Thread thread = new Thread(runnable, "bench-etcd-scale");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Lease>> pending = new ArrayList<>(tasks.size());
            for (Callable<Lease> task : tasks) {
                pending.add(pool.submit(task));
            }
            List<Lease> results = new ArrayList<>(tasks.size());
            for (Future<Lease> result : pending) {
                results.add(result.get(5, TimeUnit.MINUTES));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
