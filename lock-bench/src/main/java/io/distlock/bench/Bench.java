package io.distlock.bench;

import io.distlock.tck.fixtures.RedisServer;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * The bench: starts its own {@code redis-server}s (and ZooKeeper, etcd and Hazelcast servers, for those
 * backends' rows) on free loopback ports (the TCK fixtures), runs
 * every scenario side by side, and prints one markdown table (median of the runs, min–max) and the
 * issue's targets as met or missed.
 *
 * <pre>
 * lock-bench/bench.sh [options]
 * options: --smoke (seconds, checks the harness, not the numbers) | --runs N | --rounds N
 *          | --slice-ms N | --leases N (0: no scale rows) | --only REGEX (the rows whose whole name
 *          matches, scale rows included, besides the floors of the backends kept; the servers of
 *          every other backend are stopped before the first slice; e.g. '.*etcd.*') | --out FILE
 *          | --sequential (each row's rounds back to back, as JMH would: to compare the noise)
 * </pre>
 *
 * Exit status 0 when every scenario ran; 1 when one failed (or an option is wrong). The targets
 * never fail the run: the numbers are for people to read, on a quiet machine.
 */
public final class Bench {

    private Bench() {
    }

    /** Settings of one bench invocation; the defaults are the full run. */
    static final class Settings {
        int runs = 3;
        int warmUpRounds = 5;
        int rounds = 40;
        long sliceMillis = 100;
        int leases = 10_000;
        Duration leaseTime = Duration.ofSeconds(6);
        Path out;
        String only;
        boolean smoke;
        boolean sequential;

        static Settings full() {
            return new Settings();
        }

        /** Seconds in all: every row for a few short slices, a small scale row. */
        static Settings smoke() {
            Settings s = new Settings();
            s.runs = 1;
            s.warmUpRounds = 1;
            s.rounds = 2;
            s.sliceMillis = 40;
            s.leases = 500;
            s.leaseTime = Duration.ofMillis(1500);
            s.smoke = true;
            return s;
        }
    }

    /**
     * @param args see the class comment
     */
    public static void main(String[] args) {
        try {
            Settings settings = parse(args);
            Report report = run(settings, System.out);
            if (settings.out != null) {
                Files.writeString(settings.out, report.environment() + "\n\n" + report.markdown() + "\n" + Targets.check(report));
            }
        } catch (Exception | Error e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0); // Redisson and ZooKeeper leave non-daemon threads behind: do not wait for them
    }

    static Settings parse(String[] args) {
        Settings s = Settings.full();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--full") || option.equals("--smoke")) {
                s = option.equals("--full") ? Settings.full() : Settings.smoke();
                continue;
            }
            if (option.equals("--sequential")) {
                s.sequential = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--runs" -> s.runs = Integer.parseInt(value);
                case "--rounds" -> s.rounds = Integer.parseInt(value);
                case "--slice-ms" -> s.sliceMillis = Long.parseLong(value);
                case "--leases" -> s.leases = Integer.parseInt(value);
                case "--only" -> s.only = value;
                case "--out" -> s.out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + option + "; options: --full | --smoke"
                        + " | --runs N | --rounds N | --slice-ms N | --leases N (0: no scale row) | --only REGEX | --sequential | --out FILE");
            }
        }
        return s;
    }

    /**
     * Runs the bench and prints progress, the environment, the table and the targets to {@code log}.
     *
     * @return the measurements of every run
     */
    static Report run(Settings settings, java.io.PrintStream log) throws Exception {
        Harness harness = new Harness(settings.warmUpRounds, settings.rounds, settings.sliceMillis * 1_000_000, settings.sequential);
        Report report = new Report();
        String environment;
        try (RedisServer redis = RedisServer.start(); RedisServer scaleRedis = RedisServer.start(); Peers peers = new Peers()) {
            environment = environment(redis);
            log.println(environment);
            log.println("harness: " + harness + "; " + settings.runs + " run(s)");
            List<Scenario> scenarios = new ArrayList<>();
            try {
                if (settings.smoke && settings.only == null) {
                    log.println(HazelcastPeers.LEFT_OUT_OF_SMOKE);
                } else if (settings.only != null && HazelcastPeers.ROWS.stream().noneMatch(row -> selected(settings, row))
                        && !footprintSelected(settings, HazelcastPeers.FOOTPRINT_CP)
                        && !footprintSelected(settings, HazelcastPeers.FOOTPRINT_MAP)) {
                    log.println("--only keeps no Hazelcast row: its members are not started");
                } else {
                    peers.startHazelcast(log::println); // first: its members come up while the other servers start
                }
                Scenarios.redisSingle(redis, scenarios);
                peers.footprint("single Redis", redis.uri());
                Scenarios.redisHolds(redis, scenarios, log::println);
                if (!peers.group("Redlock", scenarios, () -> peers.redlock(scenarios))) {
                    log.println("redlock:// is not installed: no Redlock row (add lock-redlock to lock-bench's dependencies)");
                }
                if (!peers.group("Redis + WAIT", scenarios, () -> peers.redisWait(scenarios))) {
                    log.println("redis-wait:// is not installed: no Redis + WAIT rows (add lock-redis-wait to lock-bench's dependencies)");
                }
                if (!peers.group("Redis Cluster", scenarios, () -> peers.redisCluster(scenarios))) {
                    log.println("redis-cluster:// is not installed: no Redis Cluster rows (add lock-redis-cluster to lock-bench's dependencies)");
                }
                if (!peers.group("Tair", scenarios, () -> peers.tair(scenarios))) {
                    log.println("tair:// is not installed: no Tair rows (add lock-tair to lock-bench's dependencies)");
                }
                if (!peers.group("ZooKeeper", scenarios, () -> peers.zookeeper(scenarios, log::println))) {
                    log.println("zookeeper:// is not installed: no ZooKeeper rows (add lock-zookeeper to lock-bench's dependencies)");
                }
                if (!peers.group("etcd", scenarios, () -> peers.etcd(scenarios, log::println))) {
                    log.println("etcd:// is not installed: no etcd rows (add lock-etcd to lock-bench's dependencies)");
                }
                peers.group("Hazelcast", scenarios, () -> peers.hazelcast(scenarios));
                if (settings.only != null) {
                    for (Scenario s : List.copyOf(scenarios)) {
                        if (!selected(settings, s.name()) && !s.name().startsWith("floor:")) {
                            scenarios.remove(s);
                            s.close();
                        }
                    }
                    peers.retireUnselected(scenarios, backend -> footprintSelected(settings, backend), log::println);
                }
                for (String servers : List.of(peers.etcdEnvironment(), peers.hazelcastEnvironment())) {
                    if (!servers.isEmpty()) { // empty: not installed, or stopped by --only
                        environment += "; " + servers;
                        log.println(servers);
                    }
                }
                RenewalScale redisScale = new RenewalScale(settings.leases, settings.leaseTime);
                boolean etcdScale = Peers.installed("etcd") && selected(settings, EtcdRenewalScale.name(settings.leases));
                for (int run = 1; run <= settings.runs; run++) {
                    long start = System.nanoTime();
                    List<Measurement> results = new ArrayList<>(harness.run(scenarios, () -> serverCpu(redis, peers)));
                    if (settings.leases > 0 && selected(settings, redisScale.name())) {
                        results.add(redisScale.run(scaleRedis));
                    }
                    if (settings.leases > 0 && etcdScale) {
                        results.add(peers.etcdScale(settings.leases, settings.leaseTime));
                    }
                    for (Map.Entry<String, String> backend : peers.footprints().entrySet()) {
                        if (footprintSelected(settings, backend.getKey())) {
                            results.add(Footprint.run(backend.getKey(), backend.getValue(), settings.leases,
                                    settings.smoke ? Duration.ofMillis(200) : Footprint.LEASE_TIME, log::println));
                        }
                    }
                    report.addRun(results);
                    log.printf(Locale.ROOT, "run %d of %d done in %.1f s; load %s%n", run, settings.runs,
                            (System.nanoTime() - start) / 1e9, load());
                }
            } finally {
                for (Scenario scenario : scenarios) {
                    try {
                        scenario.close();
                    } catch (RuntimeException e) {
                        log.println("closing " + scenario.name() + " failed: " + e);
                    }
                }
            }
        }
        report.environment(environment + "; " + harness + "; " + settings.runs + " run(s)");
        log.println();
        if (settings.smoke) {
            log.println("SMOKE MODE: a few slices per row; this checks the harness, the figures mean nothing.");
        }
        log.println(report.markdown());
        log.println(Targets.check(report));
        return report;
    }

    /** @return whether the run has a footprint row of {@code backend} ({@link Footprint#name}) and {@code --only} keeps it */
    private static boolean footprintSelected(Settings settings, String backend) {
        return settings.leases > 0 && selected(settings, Footprint.name(settings.leases, backend));
    }

    /** @return whether {@code --only} (a regular expression the whole row name must match) keeps the row */
    static boolean selected(Settings settings, String row) {
        return settings.only == null || row.matches(settings.only);
    }

    private static String environment(RedisServer redis) {
        String server = String.valueOf(redis.call("INFO", "server"));
        String version = server.lines().filter(l -> l.startsWith("redis_version:")).findFirst()
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("?");
        String cpu = "?";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("?");
        } catch (IOException ignored) {
            // not Linux: the CPU stays unnamed
        }
        return String.format(Locale.ROOT, "bench %s: %d CPUs (%s), Java %s (%s), redis-server %s on 127.0.0.1, load %s",
                Instant.now(), Runtime.getRuntime().availableProcessors(), cpu, System.getProperty("java.version"),
                System.getProperty("java.vm.name"), version, load());
    }

    /**
     * CPU seconds and command-execution microseconds of every Redis server the rows use: a row's
     * share is read around its slices.
     */
    private static double[] serverCpu(RedisServer redis, Peers peers) {
        double[] sum = RenewalScale.serverCounters(redis);
        for (RedisServer node : peers.redisServers()) {
            double[] more = RenewalScale.serverCounters(node);
            sum[0] += more[0];
            sum[1] += more[1];
        }
        return sum;
    }

    static String load() {
        return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
