package io.distlock.cli;

import com.google.gson.Gson;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.cli.report.Chromium;
import io.distlock.cli.report.Dom;
import io.distlock.cli.report.Report;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code distlock bench} through the distribution's real launcher, against real servers: the rows and
 * their figures (JSON), the table (text), a Ctrl-C that must leave nothing held, and bad input. Speed is
 * printed, never asserted.
 */
class BenchCommandTest {

    private static final Distlock DISTLOCK = Distlock.launcher();
    /** The bench's lease time: what a Ctrl-C may leave to expire, at worst. */
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Pattern NAMES = Pattern.compile("names under (distlock-bench/[0-9a-f]{8}/)");

    @ParameterizedTest
    @ValueSource(strings = {"redis", "redis-wait", "tair"})
    void measuresUncontendedContendedAndTheRawFloorOnTheSameServer(String scheme) {
        Distlock.Result run = DISTLOCK.run(Duration.ofMinutes(1), "bench", Servers.uri(scheme),
                "--duration", "3s", "--clients", "3", "--json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        Report report = new Gson().fromJson(run.out(), Report.class);
        assertThat(report.command()).isEqualTo("bench");
        assertThat(report.target()).isEqualTo(Target.redact(Servers.uri(scheme)));
        assertThat(report.backend().scheme()).isEqualTo(scheme);
        assertThat(report.rules()).isEmpty();
        assertThat(report.timelines()).isEmpty();
        assertThat(report.passed()).isTrue();
        assertThat(report.interrupted()).isFalse();
        assertThat(report.bench()).extracting(Report.BenchRow::scenario).containsExactly(
                "uncontended: acquire + release", "uncontended: acquire",
                "raw floor: acquire + release (" + floorAcquire(scheme) + "; EVALSHA compare-and-delete)",
                "raw floor: acquire (" + floorAcquire(scheme) + ")",
                "contended, 3 clients");
        assertThat(report.bench()).extracting(Report.BenchRow::floor).containsExactly(false, false, true, true, false);
        report.bench().forEach(BenchCommandTest::assertFigures);

        Report.BenchRow contended = row(report, "contended, 3 clients");
        assertThat(contended.clients()).isEqualTo(3);
        assertThat(contended.shares()).extracting(Report.Share::client).containsExactly("client-1", "client-2", "client-3");
        assertThat(contended.shares()).allSatisfy(s -> assertThat(s.operations()).as(s.client()).isPositive());
        assertThat(contended.shares().stream().mapToLong(Report.Share::operations).sum()).isEqualTo(contended.operations());
        assertThat(report.bench().stream().filter(r -> !r.scenario().startsWith("contended")))
                .allSatisfy(r -> assertThat(r.shares()).isEmpty())
                .allSatisfy(r -> assertThat(r.clients()).isEqualTo(1));

        print(scheme, report);
    }

    private static String floorAcquire(String scheme) {
        return scheme.equals("redis-wait") ? "SET NX PX + WAIT 1, pipelined" : "SET NX PX";
    }

    private static void assertFigures(Report.BenchRow row) {
        String name = row.scenario();
        assertThat(row.operations()).as(name).isPositive();
        assertThat(row.perSecond()).as(name).isPositive();
        assertThat(row.p50Micros()).as(name).isPositive();
        assertThat(row.p50Micros()).as(name + ": p50 ≤ p99").isLessThanOrEqualTo(row.p99Micros());
        assertThat(row.p99Micros()).as(name + ": p99 ≤ p99.9").isLessThanOrEqualTo(row.p999Micros());
        assertThat(row.p999Micros()).as(name + ": p99.9 ≤ max").isLessThanOrEqualTo(row.maxMicros());
        assertThat(row.histogram()).as(name).isNotEmpty().hasSizeLessThanOrEqualTo(40);
        assertThat(row.histogram().stream().mapToLong(Report.Bucket::count).sum()).as(name + ": every operation in a bucket")
                .isEqualTo(row.operations());
        assertThat(row.histogram().get(row.histogram().size() - 1).upToMicros()).as(name + ": the last bucket reaches max")
                .isCloseTo(row.maxMicros(), org.assertj.core.data.Offset.offset(0.01));
        assertThat(row.percentiles()).extracting(Report.Point::percentile)
                .containsExactly(50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.99, 100.0);
        assertThat(row.percentiles()).extracting(Report.Point::micros).isSorted();
        assertThat(row.percentiles().get(0).micros()).isEqualTo(row.p50Micros());
        assertThat(row.percentiles().get(row.percentiles().size() - 1).micros()).isEqualTo(row.maxMicros());
    }

    private static Report.BenchRow row(Report report, String scenario) {
        return report.bench().stream().filter(r -> r.scenario().equals(scenario)).findFirst().orElseThrow();
    }

    /** The figures, for the build log (they are never asserted: speed depends on the machine). */
    private static void print(String scheme, Report report) {
        Report.BenchRow floorPair = report.bench().get(2);
        Report.BenchRow floorAcquire = report.bench().get(3);
        for (Report.BenchRow r : report.bench()) {
            Report.BenchRow floor = r.scenario().equals("uncontended: acquire + release") ? floorPair
                    : r.scenario().equals("uncontended: acquire") ? floorAcquire : null;
            System.out.printf(Locale.ROOT, "bench %s: %-75s ops %7d  p50 %8.1f µs  p99 %8.1f µs%s%n", scheme,
                    r.scenario(), r.operations(), r.p50Micros(), r.p99Micros(), floor == null ? ""
                            : String.format(Locale.ROOT, "  × floor p50 %.2f, p99 %.2f", r.p50Micros() / floor.p50Micros(),
                            r.p99Micros() / floor.p99Micros()));
        }
    }

    @Test
    void theTableShowsEveryRowAndDistlocksLatencyAsMultiplesOfTheFloor() {
        Distlock.Result run = DISTLOCK.run(Duration.ofMinutes(1), "bench", Servers.uri("redis"),
                "--duration", "2s", "--clients", "2");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        System.out.print(run.out());
        assertThat(run.out()).contains("uncontended + raw floor: measuring", "contended, 2 clients: measuring");
        List<String> lines = run.out().lines().toList();
        assertThat(lines).anySatisfy(l -> assertThat(l.split("\\s{2,}")).containsExactly("scenario", "clients", "ops",
                "ops/s", "p50", "p99", "p99.9", "max", "p50 × floor", "p99 × floor"));
        String latency = "\\d+ µs|\\d+\\.\\d\\d m?s";
        String figures = "\\s+\\d+\\s+\\d+\\s+\\d+(\\s+(" + latency + ")){4}";
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("uncontended: acquire \\+ release" + figures
                + "\\s+\\d+\\.\\d\\d×\\s+\\d+\\.\\d\\d×"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("uncontended: acquire" + figures
                + "\\s+\\d+\\.\\d\\d×\\s+\\d+\\.\\d\\d×"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("raw floor: acquire \\+ release" + figures));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("raw floor: acquire" + figures));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("contended, 2 clients" + figures));
        assertThat(lines).anySatisfy(l -> assertThat(l)
                .matches("contended, 2 clients: grants per client: client-1 \\d+, client-2 \\d+ \\(least \\d+%, most \\d+%\\)"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("contended, 2 clients: \\d+% of grants went back to the"
                + " client that had just released \\(50% if the lock picked at random\\)"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"redlock", "zookeeper", "etcd", "redis-cluster"})
    void withoutARawFloorTheRowsAreDistlocksAndTheOutputSaysWhy(String scheme) {
        Distlock.Result run = DISTLOCK.run(Duration.ofMinutes(1), "bench", Servers.uri(scheme),
                "--duration", "1s", "--clients", "2");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        System.out.print(run.out());
        assertThat(run.out()).contains("no raw floor for " + scheme + ": only a single Redis-protocol server");
        List<String> lines = run.out().lines().toList();
        assertThat(lines).anySatisfy(l -> assertThat(l.split("\\s{2,}"))
                .containsExactly("scenario", "clients", "ops", "ops/s", "p50", "p99", "p99.9", "max", "p50 × floor", "p99 × floor"));
        // The table's rows: eight cells, none for a ratio (there is no floor to divide by).
        assertThat(lines).filteredOn(l -> l.split("\\s{2,}").length >= 8 && !l.startsWith("scenario"))
                .allSatisfy(l -> assertThat(l.split("\\s{2,}")).hasSize(8))
                .extracting(l -> l.split("\\s{2,}")[0])
                .containsExactly("uncontended: acquire + release", "uncontended: acquire", "contended, 2 clients");
        assertThat(run.out()).doesNotContain("raw floor: acquire");
    }

    @Test
    void aUserAllowedOnlyDistlocksKeysGetsNoFloorAndIsToldWhy() {
        String uri = Servers.uri("redis");
        String user = "bench-" + Long.toHexString(System.nanoTime());
        String password = "pw-" + Long.toHexString(System.nanoTime());
        try (Jedis admin = jedis(uri)) {
            // The least rights of lock-redis-single's README: distlock's keys and channels, nothing else.
            admin.aclSetUser(user, "on", ">" + password, "~distlock:*", "%R~distlock-revoked:*", "&distlock:*",
                    "+ping", "+eval", "+evalsha", "+script|load", "+subscribe", "+unsubscribe", "+exists", "+set",
                    "+get", "+del", "+incr", "+type", "+pexpire", "+pttl", "+publish", "+time");
            try {
                // The credentials come from --user and the environment: the floor must use them as distlock does.
                Distlock.Result run = Distlock.launcher().env("DISTLOCK_PASSWORD", password).run(Duration.ofMinutes(1),
                        "bench", uri, "--user", user, "--duration", "1s", "--clients", "2", "--json");

                assertThat(run.exitCode()).as(run.toString()).isZero();
                assertThat(run.err()).contains("no raw floor: the server refused its commands for this user (NOPERM");
                Report report = new Gson().fromJson(run.out(), Report.class);
                assertThat(report.bench()).extracting(Report.BenchRow::scenario)
                        .containsExactly("uncontended: acquire + release", "uncontended: acquire", "contended, 2 clients");
                assertThat(run.out() + run.err()).doesNotContain(password);
            } finally {
                admin.aclDelUser(user);
            }
        }
    }

    /** The report as a person sees it: headless Chromium's DOM, and a 1280 px screenshot that the build keeps. */
    @Test
    void theReportDrawsAHistogramPerRowAndOnePercentilePlot(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("report");
        Distlock.Result run = DISTLOCK.run(Duration.ofMinutes(1), "bench", Servers.uri("redis"), "--duration", "2s",
                "--clients", "2", "--report", out.toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("report: " + out.resolve("index.html").toAbsolutePath());
        Report report = new Gson().fromJson(Files.readString(out.resolve("report.json")), Report.class);
        assertThat(report.bench()).hasSize(5);

        String dom = Chromium.dumpDom(out.resolve("index.html"));
        assertThat(Dom.svgs(dom, "histogram")).hasSize(report.bench().size());
        List<String> plots = Dom.svgs(dom, "percentiles");
        assertThat(plots).hasSize(1);
        assertThat(Dom.count(plots.get(0), "<polyline")).isEqualTo(report.bench().size());
        Path screenshots = Files.createDirectories(Path.of(System.getProperty("distlock.cli.screenshots", "target/report-screenshots")));
        assertThat(Files.size(Chromium.screenshot(out.resolve("index.html"), screenshots.resolve("bench-redis.png"), 1280, 2000)))
                .isGreaterThan(10_000);
    }

    @Test
    void ctrlCWhileTheFloorRunsLeavesNoLockAndNoFloorKey() {
        String uri = Servers.uri("redis");
        Distlock.Running bench = DISTLOCK.start("bench", uri, "--duration", "6s", "--clients", "2");
        await("the bench measuring").atMost(Duration.ofSeconds(60))
                .until(() -> bench.outputSoFar().contains("uncontended + raw floor: measuring"));
        try (Jedis redis = jedis(uri)) {
            // The check below must be able to see what the bench leaves: first see its floor key.
            await("the floor's key, seen while the loop runs").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(5)).until(() -> !redis.keys("distlock-bench*").isEmpty());
            bench.interrupt();
            Distlock.Result run = bench.await(Duration.ofSeconds(15));

            assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.INTERRUPTED);
            assertThat(run.err()).contains("distlock: interrupted: bench stopped");
            assertThat(run.out()).doesNotContain("scenario");
            awaitNothingHeld(uri);
            await("no floor key").atMost(LEASE.plusSeconds(3)).until(() -> redis.keys("distlock-bench*").isEmpty());
        }
    }

    /**
     * On ZooKeeper a lock and its waiters are ephemeral nodes of their clients' sessions: had the command
     * exited without closing its clients, they would stay for the session timeout (10 s). So they must be
     * gone well within it, which only the command's shutdown hook can do.
     */
    @Test
    void ctrlCWhileClientsContendLeavesNoLockHeld() {
        String uri = Servers.uri("zookeeper");
        Distlock.Running bench = DISTLOCK.start("bench", uri, "--duration", "4500ms", "--clients", "3");
        await("the contended scenario measuring").atMost(Duration.ofSeconds(60))
                .until(() -> bench.outputSoFar().contains("contended, 3 clients: measuring"));
        Matcher names = NAMES.matcher(bench.outputSoFar());
        assertThat(names.find()).as(bench.outputSoFar()).isTrue();
        try (LockClient client = Locks.connect(uri)) {
            // The check below must be able to see what the bench holds: first see its contended lock held.
            await("the contended lock, seen held").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> !client.holders(names.group(1), 10).isEmpty());
        }
        bench.interrupt();
        Distlock.Result run = bench.await(Duration.ofSeconds(15));

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(run.err()).contains("distlock: interrupted: bench stopped");
        try (LockClient client = Locks.connect(uri)) {
            await("nothing held under distlock-bench/, well within the session timeout").atMost(Duration.ofSeconds(2))
                    .until(() -> client.holders("distlock-bench/", 100).isEmpty());
        }
    }

    /** Nothing under distlock-bench/ held, at the latest once a lease left to expire has expired. */
    private static void awaitNothingHeld(String uri) {
        try (LockClient client = Locks.connect(uri)) {
            await("nothing held under distlock-bench/").atMost(LEASE.plusSeconds(3))
                    .until(() -> client.holders("distlock-bench/", 100).isEmpty());
        }
    }

    private static Jedis jedis(String uri) {
        URI u = URI.create(uri);
        return new Jedis(new HostAndPort(u.getHost(), u.getPort()));
    }

    @Test
    void clientsOutOfRangeAreBadInputAndNothingIsConnected() throws IOException {
        // A closed port: had the command connected before checking, it would exit 5, not 2.
        String unreachable = "redis://127.0.0.1:" + closedPort();
        for (String clients : Set.of("0", "65")) {
            Distlock.Result run = DISTLOCK.run(Duration.ofSeconds(30), "bench", unreachable, "--clients", clients);

            assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.USAGE);
            assertThat(run.err()).contains("--clients must be between 1 and 64, was " + clients);
        }
    }

    @Test
    void anUnreachableServerFailsWithinTheConnectTimeoutNamingTheEndpoint() throws IOException {
        int port = closedPort();
        // The bound covers the JVM's start as well; the connect timeout itself is 1 s.
        Distlock.Result run = DISTLOCK.run(Duration.ofSeconds(20), "bench", "redis://127.0.0.1:" + port,
                "--connect-timeout", "1s", "--duration", "2s");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run.err()).contains("distlock: unavailable:", "127.0.0.1:" + port);
        assertThat(run.out()).doesNotContain("measuring");
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
