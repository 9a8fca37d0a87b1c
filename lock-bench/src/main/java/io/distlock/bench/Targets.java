package io.distlock.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The targets, each read off the report as met or missed, with the median it was judged on. */
final class Targets {

    private Targets() {
    }

    /**
     * @return per run in which both were measured, the median of {@code row}'s step {@code step} over
     *         that of {@code over}'s step {@code overStep} (the notes of a {@link TwoStepScenario})
     */
    private static double[] stepRatios(Report report, String row, String step, String over, String overStep) {
        List<Measurement> mine = report.row(row);
        List<Measurement> theirs = report.row(over);
        int runs = Math.min(mine.size(), theirs.size());
        double[] out = new double[runs];
        for (int i = 0; i < runs; i++) {
            out[i] = mine.get(i).extras().get(step + " p50 µs") / theirs.get(i).extras().get(overStep + " p50 µs");
        }
        return out;
    }

    static String check(Report report) {
        List<String> lines = new ArrayList<>();
        lines.add("Targets (median of runs):");
        for (String row : List.of(Scenarios.DISTLOCK_FENCE, Scenarios.DISTLOCK_NO_FENCE)) {
            if (report.row(row).isEmpty()) {
                continue; // left out with --only
            }
            double ratio = median(report.ratios(row, false));
            double redisson = median(report.ratios(Scenarios.REDISSON_RLOCK, false));
            lines.add(line(ratio <= 1.10, row + ": p50 " + f(ratio) + "× the pair (target ≤ 1.10×)"));
            lines.add(line(ratio < redisson, row + ": p50 " + f(ratio) + "× vs Redisson RLock " + f(redisson) + "× (target: below)"));
        }
        if (!report.row(Scenarios.DISTLOCK_METERED).isEmpty() && !report.row(Scenarios.DISTLOCK_NO_FENCE).isEmpty()) {
            double metered = median(report.ratios(Scenarios.DISTLOCK_METERED, Scenarios.DISTLOCK_NO_FENCE, false));
            double meteredP99 = median(report.ratios(Scenarios.DISTLOCK_METERED, Scenarios.DISTLOCK_NO_FENCE, true));
            lines.add("listener cost: with lock-micrometer's listener set, p50 " + f(metered) + "× / p99 " + f(meteredP99)
                    + "× the same row with none set");
        }
        if (!report.row(Scenarios.CONTENDED_DISTLOCK).isEmpty()) {
            double p50 = median(report.ratios(Scenarios.CONTENDED_DISTLOCK, false));
            double p99 = median(report.ratios(Scenarios.CONTENDED_DISTLOCK, true));
            lines.add(line(p50 <= 1.5, "contended hand-off p50 " + f(p50) + "× the pair's p50 (target ≤ 1.5×)"));
            lines.add(line(p99 <= 4, "contended hand-off p99 " + f(p99) + "× the pair's p99 (target ≤ 4×)"));
            double rawP50 = median(report.ratios(Scenarios.CONTENDED_RAW, false));
            double rawP99 = median(report.ratios(Scenarios.CONTENDED_RAW, true));
            lines.add("  context: the raw notified hand-off (no library) is " + f(rawP50) + "× / " + f(rawP99)
                    + "× the pair (p50 / p99); distlock's hand-off is " + f(p50 / rawP50) + "× / " + f(p99 / rawP99) + "× that floor");
            double regrants = median(report.row(Scenarios.CONTENDED_DISTLOCK).stream()
                    .mapToDouble(m -> m.extras().get(Contended.REGRANTS)).toArray());
            lines.add(line(regrants <= 25, "contended: " + f(regrants) + " % of grants back to the client that had just released"
                    + " (target ≤ 25 %)"));
            if (!report.row(Scenarios.CONTENDED_REDISSON).isEmpty()) {
                double redisson = median(report.ratios(Scenarios.CONTENDED_DISTLOCK, Scenarios.CONTENDED_REDISSON, false));
                lines.add(line(redisson <= 0.4, "contended hand-off p50 " + f(redisson) + "× Redisson RLock's (target ≤ 0.4×)"));
            }
        }
        if (!report.row(Peers.REDLOCK).isEmpty() && !report.row(Scenarios.DISTLOCK_NO_FENCE).isEmpty()) {
            double redlock = median(report.ratios(Peers.REDLOCK, false));
            double single = median(report.ratios(Scenarios.DISTLOCK_NO_FENCE, false));
            lines.add(line(redlock / single <= 1.5, "Redlock N=5 p50 " + f(redlock / single) + "× single node (target ≤ 1.5×)"));
            double fanOut = median(report.ratios(RawFanOutPair.label(5), false));
            lines.add("  context: the raw pair fanned out to 5 nodes (no library) is " + f(fanOut) + "× the pair; Redlock is "
                    + f(redlock / fanOut) + "× that floor");
        }
        if (!report.row(Peers.REDIS_WAIT).isEmpty()) {
            double wait = median(report.ratios(Peers.REDIS_WAIT, Floor.PairWithWait.LABEL, false));
            lines.add(line(wait <= 1.10, "Redis + WAIT (1 replica) p50 " + f(wait) + "× the raw SET NX PX + WAIT 1 +"
                    + " compare-and-delete (target ≤ 1.10×)"));
            lines.add("  context: single Redis on the same primary, without WAIT, is "
                    + f(median(report.ratios(Peers.REDIS_WAIT_SINGLE, Floor.PairWithWait.LABEL, false))) + "× that floor");
            if (!report.row(Floor.PairWithWait.PIPELINED_LABEL).isEmpty()) {
                double pipelined = median(report.ratios(Peers.REDIS_WAIT, Floor.PairWithWait.PIPELINED_LABEL, false));
                lines.add(line(pipelined <= 1.05, "Redis + WAIT (1 replica) p50 " + f(pipelined) + "× the raw SET NX PX + WAIT 1"
                        + " pipelined, then compare-and-delete (issue 28: target ≤ 1.05×)"));
                if (!report.row(Peers.REDIS_WAIT_SCRIPTS).isEmpty()) {
                    lines.add("  context: distlock's scripts + WAIT on one raw connection (no engine, no pool) are "
                            + f(median(report.ratios(Peers.REDIS_WAIT_SCRIPTS, Floor.PairWithWait.PIPELINED_LABEL, false)))
                            + "× that floor; distlock is " + f(median(report.ratios(Peers.REDIS_WAIT, Peers.REDIS_WAIT_SCRIPTS, false)))
                            + "× its scripts alone");
                }
            }
        }
        if (!report.row(Peers.CLUSTER).isEmpty()) {
            double floor = median(report.ratios(Peers.CLUSTER, Peers.CLUSTER_FLOOR, false));
            double redisson = median(report.ratios(Peers.CLUSTER, Peers.CLUSTER_REDISSON, false));
            lines.add(line(floor <= 1.05, "Redis Cluster p50 " + f(floor) + "× the raw pair on the slot's primary (target ≤ 1.05×)"));
            lines.add(line(redisson <= 0.8, "Redis Cluster p50 " + f(redisson) + "× Redisson RLock in cluster mode (target ≤ 0.8×)"));
            if (!report.row(Peers.CLUSTER_CONTENDED).isEmpty()) {
                lines.add("  context: contended hand-off on the cluster, 4 clients woken by sharded pub/sub: p50 "
                        + f(median(report.ratios(Peers.CLUSTER_CONTENDED, false))) + "×, p99 "
                        + f(median(report.ratios(Peers.CLUSTER_CONTENDED, true))) + "× the pair");
            }
        }
        if (!report.row(Peers.TAIR).isEmpty() && !report.row(Peers.TAIR_SINGLE).isEmpty()) {
            double tair = median(report.ratios(Peers.TAIR, Peers.TAIR_SINGLE, false));
            lines.add(line(tair <= 1.0, "Tair p50 " + f(tair) + "× single Redis on the same CAS/CAD server (target ≤ 1.0×)"));
            lines.add("  context: server command time per tryAcquire+release (INFO commandstats): Tair "
                    + f(median(commandMicros(report, Peers.TAIR))) + " µs, single Redis "
                    + f(median(commandMicros(report, Peers.TAIR_SINGLE))) + " µs");
        }
        for (String where : List.of("", ZooKeeperPeers.OWN_PROCESS)) {
            if (!report.row(ZooKeeperPeers.DISTLOCK + where).isEmpty()) {
                String distlock = ZooKeeperPeers.DISTLOCK + where;
                String curator = ZooKeeperPeers.CURATOR + where;
                String server = where.isEmpty() ? " (server in the bench's JVM)" : where;
                double p50 = median(report.ratios(distlock, curator, false));
                lines.add(line(p50 <= 0.9, "ZooKeeper p50 " + f(p50) + "× Curator InterProcessMutex" + server + " (target ≤ 0.9×)"));
                if (!where.isEmpty()) {
                    // Issue 28's targets are on the server users run: one in a JVM of its own.
                    double p99 = median(report.ratios(distlock, curator, true));
                    double release = median(stepRatios(report, distlock, "release", curator, "release"));
                    lines.add(line(p50 <= 0.85, "ZooKeeper p50 " + f(p50) + "× Curator" + server + " (issue 28: target ≤ 0.85×)"));
                    lines.add(line(p99 <= 1.0, "ZooKeeper p99 " + f(p99) + "× Curator" + server + " (issue 28: target ≤ 1.0×)"));
                    lines.add(line(release <= 1.0, "ZooKeeper release p50 " + f(release) + "× Curator's release" + server
                            + " (issue 28: target ≤ 1.0×); tryAcquire p50 "
                            + f(median(stepRatios(report, distlock, "tryAcquire", curator, "acquire"))) + "× Curator's acquire"));
                    String floor = ZooKeeperPeers.FLOOR + where;
                    if (!report.row(floor).isEmpty()) {
                        lines.add("  context: the raw floor (create + listing pipelined, then delete; ZooKeeper's own client, no library) is "
                                + f(median(report.ratios(floor, curator, false))) + "× Curator at p50 (acquire "
                                + f(median(stepRatios(report, floor, "acquire", curator, "acquire"))) + "×, release "
                                + f(median(stepRatios(report, floor, "release", curator, "release"))) + "× Curator's); distlock is "
                                + f(median(report.ratios(distlock, floor, false))) + "× the floor (acquire "
                                + f(median(stepRatios(report, distlock, "tryAcquire", floor, "acquire"))) + "×, release "
                                + f(median(stepRatios(report, distlock, "release", floor, "release"))) + "×)");
                        String requests = ZooKeeperPeers.REQUESTS + where;
                        if (!report.row(requests).isEmpty()) {
                            lines.add("  context: distlock's requests on ZooKeeper's own client are " + f(median(report.ratios(requests, floor, false)))
                                    + "× the floor (acquire " + f(median(stepRatios(report, requests, "acquire", floor, "acquire")))
                                    + "×, release " + f(median(stepRatios(report, requests, "release", floor, "release")))
                                    + "×); distlock is " + f(median(report.ratios(distlock, requests, false))) + "× its requests alone (acquire "
                                    + f(median(stepRatios(report, distlock, "tryAcquire", requests, "acquire"))) + "×, release "
                                    + f(median(stepRatios(report, distlock, "release", requests, "release"))) + "×)");
                        }
                    }
                }
            }
        }
        peer(lines, report, Scenarios.DISTLOCK_SEMAPHORE, Scenarios.REDISSON_SEMAPHORE, 0.8, "single Redis semaphore",
                "Redisson RPermitExpirableSemaphore", Scenarios.DISTLOCK_NO_FENCE);
        peer(lines, report, Scenarios.DISTLOCK_READ, Scenarios.REDISSON_READ, 0.8, "single Redis read lock",
                "Redisson RReadWriteLock read lock", Scenarios.DISTLOCK_NO_FENCE);
        for (String where : List.of("", ZooKeeperPeers.OWN_PROCESS)) {
            String server = where.isEmpty() ? " (server in the bench's JVM)" : where;
            peer(lines, report, ZooKeeperPeers.DISTLOCK_SEMAPHORE + where, ZooKeeperPeers.CURATOR_SEMAPHORE + where, 0.9,
                    "ZooKeeper semaphore", "Curator InterProcessSemaphoreV2" + server, ZooKeeperPeers.DISTLOCK + where);
            peer(lines, report, ZooKeeperPeers.DISTLOCK_READ + where, ZooKeeperPeers.CURATOR_READ + where, 0.9,
                    "ZooKeeper read lock", "Curator InterProcessReadWriteLock read lock" + server, ZooKeeperPeers.DISTLOCK + where);
        }
        for (String row : List.of(EtcdPeers.SEMAPHORE, EtcdPeers.READ_LOCK)) {
            if (!report.row(row).isEmpty()) {
                double p50 = median(report.row(row).stream().mapToDouble(m -> m.p50() / 1e3).toArray());
                lines.add("- reported: " + row + ": p50 " + String.format(Locale.ROOT, "%.1f", p50) + " µs"
                        + (report.row(EtcdPeers.DISTLOCK).isEmpty() ? ""
                        : ", " + f(median(report.ratios(row, EtcdPeers.DISTLOCK, false))) + "× distlock etcd's lock")
                        + " (no target: jetcd has neither primitive)");
            }
        }
        if (!report.row(EtcdPeers.DISTLOCK).isEmpty() && !report.row(EtcdPeers.JETCD).isEmpty()) {
            double etcd = median(report.ratios(EtcdPeers.DISTLOCK, EtcdPeers.JETCD, false));
            lines.add(line(etcd <= 0.8, "etcd p50 " + f(etcd) + "× jetcd Lock (target ≤ 0.8×)"));
            double floor = median(report.ratios(EtcdPeers.FLOOR, EtcdPeers.JETCD, false));
            lines.add("  context: the raw floor (Txn put-if-absent + delete, no library) is " + f(floor)
                    + "× jetcd Lock; distlock etcd is " + f(median(report.ratios(EtcdPeers.DISTLOCK, EtcdPeers.FLOOR, false)))
                    + "× that floor, its driver without the engine " + f(median(report.ratios(EtcdPeers.DRIVER, EtcdPeers.FLOOR, false))) + "×");
        }
        if (!report.row(EtcdPeers.CONTENDED_DISTLOCK).isEmpty()) {
            double p99Ms = median(report.row(EtcdPeers.CONTENDED_DISTLOCK).stream().mapToDouble(m -> m.p99() / 1e6).toArray());
            lines.add(line(p99Ms <= 10, "etcd contended hand-off p99 " + String.format(Locale.ROOT, "%.1f", p99Ms)
                    + " ms, 4 clients (target ≤ 10 ms)"));
            if (!report.row(EtcdPeers.CONTENDED_JETCD).isEmpty()) {
                double p50 = median(report.ratios(EtcdPeers.CONTENDED_DISTLOCK, EtcdPeers.CONTENDED_JETCD, false));
                lines.add(line(p50 <= 1.0, "etcd contended hand-off p50 " + f(p50) + "× jetcd Lock's (target ≤ 1.0×); p99 "
                        + f(median(report.ratios(EtcdPeers.CONTENDED_DISTLOCK, EtcdPeers.CONTENDED_JETCD, true))) + "×"));
            }
        }
        for (String row : report.rowNames()) {
            if (row.startsWith("footprint:")) {
                List<Measurement> runs = report.row(row);
                double bytes = median(runs.stream().mapToDouble(m -> m.extras().get("heap bytes per held lease")).toArray());
                double own = median(runs.stream().mapToDouble(m -> m.extras().get("distlock threads")).toArray());
                double driver = median(runs.stream().mapToDouble(m -> m.extras().get("driver threads")).toArray());
                String backend = row.substring(row.lastIndexOf('(') + 1, row.length() - 1);
                String highest = !runs.get(0).extras().containsKey("heap bytes per held lease, highest reading") ? ""
                        : String.format(Locale.ROOT, " (its highest reading, a renewal batch in flight: %.0f)",
                        median(runs.stream().mapToDouble(m -> m.extras().get("heap bytes per held lease, highest reading")).toArray()));
                lines.add(line(bytes <= 1024, backend + ": " + String.format(Locale.ROOT, "%.0f", bytes)
                        + " heap bytes per held auto-renewed lease (target ≤ 1 KiB)" + highest));
                lines.add(line(own <= 3, backend + ": " + f(own) + " distlock threads per client (target ≤ 3); the driver's: "
                        + f(driver) + " (reported)"));
            }
        }
        for (String[] hz : List.of(
                new String[] {HazelcastPeers.DISTLOCK_CP, HazelcastPeers.FENCED_LOCK, "Hazelcast CP", "FencedLock lockAndGetFence+unlock"},
                new String[] {HazelcastPeers.DISTLOCK_MAP, HazelcastPeers.IMAP, "Hazelcast map", "IMap lock+unlock"})) {
            peer(lines, report, hz[0], hz[1], 1.1, hz[2], hz[3], null);
            if (!report.row(hz[0]).isEmpty() && !report.row(hz[1]).isEmpty()) {
                lines.add("  × the peer, per run: " + perRun(report, hz[0], hz[1]));
            }
        }
        if (!report.row(HazelcastPeers.CONTENDED_DISTLOCK).isEmpty() && !report.row(HazelcastPeers.CONTENDED_FENCED_LOCK).isEmpty()) {
            lines.add("- reported: Hazelcast contended hand-off, 4 clients, distlock CP × FencedLock's, per run: "
                    + perRun(report, HazelcastPeers.CONTENDED_DISTLOCK, HazelcastPeers.CONTENDED_FENCED_LOCK) + " (no target)");
        }
        List<Measurement> etcdScale = report.row(report.scaleRow("(distlock etcd)"));
        if (!etcdScale.isEmpty()) {
            double rpcs = median(etcdScale.stream().mapToDouble(m -> m.extras().get(EtcdRenewalScale.RPCS_PER_TICK)).toArray());
            double ttl = median(etcdScale.stream().mapToDouble(m -> m.extras().get("LeaseTimeToLive per tick")).toArray());
            double keepAlive = median(etcdScale.stream().mapToDouble(m -> m.extras().get("LeaseKeepAlive calls per tick")).toArray());
            double leases = median(etcdScale.stream().mapToDouble(m -> m.extras().get("leases per tick")).toArray());
            lines.add(line(rpcs <= 3, "etcd renewal: " + f(rpcs) + " RPCs per tick per client (" + f(ttl) + " LeaseTimeToLive, "
                    + f(keepAlive) + " LeaseKeepAlive) for " + f(leases) + " leases per tick (target ≤ 3: one call per tick"
                    + " and the session's keep-alives, not one per lease)"));
        }
        List<Measurement> scale = report.row(report.scaleRow());
        if (!scale.isEmpty()) {
            double rt = median(scale.stream().mapToDouble(m -> m.extras().get("round trips per tick")).toArray());
            double leases = median(scale.stream().mapToDouble(m -> m.extras().get("leases per tick")).toArray());
            double allowed = Math.ceil(leases / 1000);
            lines.add(line(rt <= allowed, "renewal: " + f(rt) + " pipelined round trips per tick for " + f(leases)
                    + " leases per tick (target ≤ 1 per 1,000 leases: " + f(allowed) + ")"));
        }
        return String.join("\n", lines) + "\n";
    }

    /**
     * A distlock row against its peer on the same server: the median of the per-run ratios of their
     * p50s, against {@code target}; and, for context, the row against distlock's own lock there.
     * Nothing when either row is absent (a backend without the feature, or left out by {@code --only}).
     *
     * @param lockRow distlock's lock on the same server, for the context line; null for none
     */
    private static void peer(List<String> lines, Report report, String row, String peerRow, double target, String what,
                             String peerName, String lockRow) {
        if (report.row(row).isEmpty() || report.row(peerRow).isEmpty()) {
            return;
        }
        double ratio = median(report.ratios(row, peerRow, false));
        String shown = f(ratio);
        if (Double.parseDouble(shown) <= target != ratio <= target) {
            shown = String.format(Locale.ROOT, "%.3f", ratio); // not "MISSED: 0.90× (target ≤ 0.9×)"
        }
        lines.add(line(ratio <= target, what + " p50 " + shown + "× " + peerName + " (target ≤ " + target + "×)"));
        if (lockRow != null && !report.row(lockRow).isEmpty()) {
            lines.add("  context: p50 × distlock's lock (tryAcquire+release) on the same server: this row "
                    + f(median(report.ratios(row, lockRow, false))) + "×, the peer " + f(median(report.ratios(peerRow, lockRow, false))) + "×");
        }
    }

    /** @return {@code row}'s p50 and p99 over {@code peerRow}'s, run by run, as the table prints a cell: median (min–max) */
    private static String perRun(Report report, String row, String peerRow) {
        return "p50 " + Report.cell(report.ratios(row, peerRow, false), 2) + ", p99 " + Report.cell(report.ratios(row, peerRow, true), 2);
    }

    private static String line(boolean met, String text) {
        return "- " + (met ? "met:    " : "MISSED: ") + text;
    }

    /** Each run's server command time per operation of {@code row}, µs ({@link Harness}). */
    private static double[] commandMicros(Report report, String row) {
        return report.row(row).stream().mapToDouble(m -> m.extras().getOrDefault("server command µs/op", Double.NaN)).toArray();
    }

    private static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return Report.median(sorted);
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
