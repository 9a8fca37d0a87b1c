package io.distlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Feature;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The bench's smoke mode: every row runs against real servers for a few slices and yields a
 * measurement. It checks that the harness works, not the numbers (CI machines are noisy).
 */
class BenchSmokeTest {

    @Test
    void everyScenarioRunsAndTheTableHasEveryRow() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Report report = Bench.run(Bench.Settings.smoke(), new PrintStream(log, true, StandardCharsets.UTF_8));

        assertThat(report.rowNames()).contains(Report.PAIR, Scenarios.DISTLOCK_FENCE, Scenarios.DISTLOCK_NO_FENCE,
                Scenarios.REDISSON_RLOCK, Scenarios.CONTENDED_DISTLOCK, Scenarios.CONTENDED_REDISSON);
        for (String row : report.rowNames()) {
            Measurement m = report.row(row).get(0);
            assertThat(m.count()).as(row).isPositive();
            assertThat(m.opsPerSec()).as(row).isPositive();
            if (row.startsWith("footprint:")) { // no latency: heap and threads while the leases are held
                assertThat(m.extras()).as(row).containsKeys("heap bytes per held lease", "distlock threads",
                        "distlock threads while taking", "driver threads");
                assertThat(m.extras().get("distlock threads")).as(row + ": at least the renewal keeper").isPositive();
                assertThat(m.extras().get("leases lost")).as(row).isZero();
            } else {
                assertThat(m.p50()).as(row).isPositive().isLessThanOrEqualTo(m.p99());
            }
        }
        assertThat(report.rowNames()).contains(Footprint.name(Bench.Settings.smoke().leases, "single Redis"));
        // where a lease's heap goes, from the JVM's class histograms: the engine's lease is among it
        assertThat(out(log)).containsPattern("footprint \\(single Redis\\): bytes \\(instances\\) per held lease by class: .*"
                + "io\\.distlock\\.engine\\.EngineLease \\d+ B \\(1\\.00\\)");
        assertThat(out(log)).contains("single Redis: ").contains(" heap bytes per held auto-renewed lease (target ≤ 1 KiB)")
                .contains(" distlock threads per client (target ≤ 3)");
        if (Peers.installed("redlock")) {
            assertThat(report.rowNames()).contains(Peers.REDLOCK, RawFanOutPair.label(5));
        }
        if (Peers.installed("tair")) {
            assertThat(report.rowNames()).contains(Peers.TAIR, Peers.TAIR_SINGLE);
            assertThat(report.row(Peers.TAIR).get(0).extras()).containsKey("server command µs/op");
        }
        if (Peers.installed("zookeeper")) {
            assertThat(report.rowNames()).contains(ZooKeeperPeers.DISTLOCK, ZooKeeperPeers.CURATOR,
                    ZooKeeperPeers.DISTLOCK + ZooKeeperPeers.OWN_PROCESS, ZooKeeperPeers.CURATOR + ZooKeeperPeers.OWN_PROCESS);
        }
        if (Peers.installed("etcd")) {
            assertThat(report.rowNames()).contains(EtcdPeers.FLOOR, EtcdPeers.DRIVER, EtcdPeers.DISTLOCK, EtcdPeers.JETCD,
                    EtcdPeers.CONTENDED_DISTLOCK, EtcdPeers.CONTENDED_JETCD);
            assertThat(report.row(EtcdPeers.DISTLOCK).get(0).extras())
                    .as("round trips counted on the server").containsKeys("server requests per op", "WAL fsyncs per op");
            assertThat(report.row(EtcdPeers.CONTENDED_DISTLOCK).get(0).extras()).containsKeys("least share %", "most share %");
            Measurement etcdScale = report.row(report.scaleRow("(distlock etcd)")).get(0);
            assertThat(etcdScale.name()).isEqualTo(EtcdRenewalScale.name(Bench.Settings.smoke().leases));
            assertThat(etcdScale.extras().get(EtcdRenewalScale.LEASES_LOST)).isZero();
            assertThat(etcdScale.extras().get("leases per tick")).as("every lease renewed in each tick").isPositive();
            assertThat(etcdScale.extras().get(EtcdRenewalScale.RPCS_PER_TICK))
                    .as("one LeaseTimeToLive per tick and the session's keep-alives, not a call per lease")
                    .isPositive().isLessThanOrEqualTo(3.0);
            assertThat(out(log)).contains("etcd p50").contains("etcd renewal:");
        }
        // Left out of the build's smoke run, for its time (run by hand: bench.sh --smoke --only '.*Hazelcast.*').
        assertThat(report.rowNames()).doesNotContain(HazelcastPeers.DISTLOCK_CP, HazelcastPeers.FENCED_LOCK,
                HazelcastPeers.DISTLOCK_MAP, HazelcastPeers.IMAP);
        assertThat(out(log)).contains(HazelcastPeers.LEFT_OUT_OF_SMOKE);
        String out = out(log);
        holdRows(report, out, "redis", Feature.SEMAPHORE, Scenarios.DISTLOCK_SEMAPHORE, Scenarios.REDISSON_SEMAPHORE,
                "single Redis semaphore p50 ", "× Redisson RPermitExpirableSemaphore (target ≤ 0.8×)");
        holdRows(report, out, "redis", Feature.READ_WRITE, Scenarios.DISTLOCK_READ, Scenarios.REDISSON_READ,
                "single Redis read lock p50 ", "× Redisson RReadWriteLock read lock (target ≤ 0.8×)");
        if (Peers.installed("zookeeper")) {
            for (String where : List.of("", ZooKeeperPeers.OWN_PROCESS)) {
                String server = where.isEmpty() ? " (server in the bench's JVM)" : where;
                holdRows(report, out, "zookeeper", Feature.SEMAPHORE, ZooKeeperPeers.DISTLOCK_SEMAPHORE + where,
                        ZooKeeperPeers.CURATOR_SEMAPHORE + where, "ZooKeeper semaphore p50 ",
                        "× Curator InterProcessSemaphoreV2" + server + " (target ≤ 0.9×)");
                holdRows(report, out, "zookeeper", Feature.READ_WRITE, ZooKeeperPeers.DISTLOCK_READ + where,
                        ZooKeeperPeers.CURATOR_READ + where, "ZooKeeper read lock p50 ",
                        "× Curator InterProcessReadWriteLock read lock" + server + " (target ≤ 0.9×)");
            }
        }
        if (Peers.installed("etcd")) {
            holdRows(report, out, "etcd", Feature.SEMAPHORE, EtcdPeers.SEMAPHORE, null, "- reported: " + EtcdPeers.SEMAPHORE + ": p50 ",
                    "× distlock etcd's lock (no target: jetcd has neither primitive)");
            holdRows(report, out, "etcd", Feature.READ_WRITE, EtcdPeers.READ_LOCK, null, "- reported: " + EtcdPeers.READ_LOCK + ": p50 ",
                    "× distlock etcd's lock (no target: jetcd has neither primitive)");
        }
        Measurement scale = report.row(report.scaleRow()).get(0);
        assertThat(scale.extras().get("leases lost")).isZero();
        assertThat(scale.extras().get("scripts per renewal")).as("one compare-and-extend per renewal").isEqualTo(1.0);
        assertThat(scale.extras().get("round trips per tick"))
                .isLessThanOrEqualTo(scale.extras().get("allowed per tick (1 per started 1000 leases)"));

        assertThat(out).contains("| scenario | ops/s | p50 µs |").contains("Targets (median of runs):");
        assertThat(report.row(Scenarios.CONTENDED_DISTLOCK).get(0).extras()).containsKeys("least share %", "most share %",
                Contended.REGRANTS);
        assertThat(out).containsPattern("contended: [0-9.]+ % of grants back to the client that had just released \\(target ≤ 25 %\\)")
                .containsPattern("contended hand-off p50 [0-9.]+× Redisson RLock's \\(target ≤ 0\\.4×\\)");
    }

    @Test
    void onlyStopsTheServersOfTheBackendsWhoseRowsItLeavesOut() throws Exception {
        assertThat(Peers.installed("tair")).as("lock-tair on the bench's runtime path").isTrue();
        Bench.Settings settings = Bench.Settings.smoke();
        settings.only = ".*Tair.*";
        settings.leases = 0;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Report report = Bench.run(settings, new PrintStream(log, true, StandardCharsets.UTF_8));

        assertThat(report.rowNames()).contains(Peers.TAIR, Peers.TAIR_SINGLE)
                .as("the floors of the backends left out go with them")
                .doesNotContain(Peers.CLUSTER_FLOOR, RawFanOutPair.label(5), EtcdPeers.FLOOR, Peers.REDLOCK)
                .doesNotContainAnyElementsOf(HazelcastPeers.ROWS);
        assertThat(report.rowNames()).as("the single-Redis floors stay: every row is set against them").contains(Report.PAIR);
        String out = out(log);
        assertThat(out).contains("--only keeps no Hazelcast row: its members are not started");
        Map<String, String> schemes = Map.of("Redlock", "redlock", "Redis + WAIT", "redis-wait", "Redis Cluster", "redis-cluster",
                "ZooKeeper", "zookeeper", "etcd", "etcd");
        schemes.forEach((backend, scheme) -> {
            if (Peers.installed(scheme)) {
                assertThat(out).contains("stopped the " + backend + " rows' servers: --only keeps none of those rows");
            }
        });
        assertThat(out).doesNotContain("stopped the Tair rows' servers");
        assertThat(report.environment()).as("the servers stopped are not described as the rows' setup")
                .doesNotContain("etcd ").doesNotContain("Hazelcast ");
    }

    /**
     * A semaphore or read-lock row and its peer's: measured, and judged in the targets, where the
     * backend declares the feature; otherwise absent, and the log says why.
     *
     * @param peer        the peer's row, or null for a row without one (etcd's: reported only)
     * @param targetStart how the row's line in the targets starts (after "met" or "MISSED"), up to its figures
     * @param targetEnd   how it goes on after them
     */
    private static void holdRows(Report report, String out, String scheme, Feature feature, String row, String peer,
                                 String targetStart, String targetEnd) {
        List<String> rows = peer == null ? List.of(row) : List.of(row, peer);
        if (Peers.declares(scheme, feature)) {
            assertThat(report.rowNames()).containsAll(rows);
            assertThat(report.row(row).get(0).extras()).containsKeys("tryAcquire p50 µs", "release p50 µs");
            assertThat(out).as("the row's line in the targets")
                    .containsPattern(Pattern.quote(targetStart) + "[0-9.]+( µs, [0-9.]+)?" + Pattern.quote(targetEnd));
        } else {
            assertThat(report.rowNames()).doesNotContainAnyElementsOf(rows);
            assertThat(out).contains(scheme + ":// does not declare " + feature + ": left out " + String.join("; ", rows));
        }
    }

    private static String out(ByteArrayOutputStream log) {
        return log.toString(StandardCharsets.UTF_8);
    }
}
