package example.modulepath;

import io.distlock.tck.fixtures.HazelcastCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each published artifact alone on the module path, as its README tells a user to run it: for
 * every backend and integration, the consumer beside this project holds exactly that artifact (and
 * what its README says to add) and the test runs the README's own {@code java} command in that
 * consumer's directory — only the URI's host and port replaced by a real server's — as a child
 * process, and checks its exit code and output. The README's {@code mvn} line is what the
 * consumer's build ran (its pom binds the same goal with the same output file). A missing
 * {@code requires}, an automatic module nobody resolves, or an {@code --add-modules} a README does
 * not mention fails here; so does a backend artifact that brings a scheme other than its own (the
 * run-once job prints {@code Locks.backends()}' schemes first). The servers, shared by the whole
 * run, start side by side before the first test; the consumers then run one at a time, so that none
 * is slowed by another's start (a cold JVM's first etcd call must be answered within the client's
 * default 2 s connect timeout).
 */
class EachArtifactAloneTest {

    private static final Duration RUN = Duration.ofSeconds(120);
    private static final String RAN = "nightly-reconciliation: ran";

    private static Servers servers;

    @BeforeAll
    static void servers() {
        servers = new Servers();
        servers.startAll();
    }

    @AfterAll
    static void stopServers() {
        servers.close();
    }

    @Test
    void redisSingleWithAPasswordAndNoUser() {
        Shell.Result run = run("lock-redis-single", "redis-single",
                Map.of("127.0.0.1:6379", servers.redisWithPassword().endpoint()), "lock-redis-single", "lock-redis-support", "lock-api");
        assertOutput(run, RAN, "with fencing token", "backends: redis, rediss\n");
    }

    @Test
    void redlock() {
        List<String> nodes = servers.redlockNodes().stream().map(node -> node.endpoint()).toList();
        Shell.Result run = run("lock-redlock", "redlock",
                Map.of("127.0.0.1:7001", nodes.get(0), "127.0.0.1:7002", nodes.get(1), "127.0.0.1:7003", nodes.get(2)),
                "lock-redlock", "lock-redis-support", "lock-api");
        assertOutput(run, RAN, "backends: redlock\n");
    }

    @Test
    void redisWait() {
        Shell.Result run = run("lock-redis-wait", "redis-wait",
                Map.of("127.0.0.1:7100", servers.primaryWithReplica().endpoint()), "lock-redis-wait", "lock-redis-support", "lock-api");
        assertOutput(run, RAN, "backends: redis-wait\n");
    }

    /** On a cluster of three primaries, its seeds in place of the README's three; the job writes without a token. */
    @Test
    void redisClusterThroughThreeSeeds() {
        List<String> seeds = servers.redisCluster().seedEndpoints();
        Shell.Result run = run("lock-redis-cluster", "redis-cluster",
                Map.of("127.0.0.1:7000", seeds.get(0), "127.0.0.1:7001", seeds.get(1), "127.0.0.1:7002", seeds.get(2)),
                "lock-redis-cluster", "lock-redis-support", "lock-api");
        assertOutput(run, RAN, "backends: redis-cluster\n");
        assertFalse(run.out().contains("with fencing token"), "no fencing token on redis-cluster://:\n" + run.describe());
    }

    /** On the server lock-tair's README builds from the published lock-tck-fixtures jar. */
    @Test
    void tairOnTheModuleBuiltFromThePublishedFixtures() {
        Shell.Result run = run("lock-tair", "tair", Map.of("127.0.0.1:7200", servers.tair()), "lock-tair", "lock-redis-support", "lock-api");
        assertOutput(run, RAN, "with fencing token", "backends: tair\n");
    }

    @Test
    void zooKeeperWithTheJutePatch() {
        Shell.Result run = run("lock-zookeeper", "zookeeper", zooKeeper(), "lock-zookeeper", "lock-api");
        assertOutput(run, RAN, "with fencing token", "backends: zookeeper\n");
    }

    /** The error lock-zookeeper's README quotes for a module path without jute. */
    @Test
    void zooKeeperWithoutTheJutePatchFailsAsItsReadmeSays() {
        Matcher error = zooKeeperFails(Map.of(PATCH, ""), "java\\.lang\\.NoClassDefFoundError: \\S+");
        assertTrue(collapsed(Readme.text("lock-zookeeper/README.md")).contains(error.group()),
                "lock-zookeeper/README.md should quote the error the JVM gives: " + error.group());
    }

    /**
     * The error lock-zookeeper's README quotes for jute on the module path beside zookeeper. The two
     * jars share two packages; which one the JVM names, in which of its two forms, and in which order
     * the modules, all follow from where the jars lie (seen: both forms, both orders and both packages
     * across local repositories' paths). The README quotes each form for one package and names both.
     */
    @Test
    void zooKeeperWithJuteBesideItFailsAsItsReadmeSays() {
        Matcher error = zooKeeperFails(Map.of(PATCH, "", MODULE_PATH, MODULE_PATH + ":$(cat target/jute.txt)"),
                "ResolutionException: (?:Modules (\\S+) and (\\S+) export package (\\S+) to module"
                        + "|Module (\\S+) contains package (\\S+), module (\\S+) exports package \\5 to \\4)");
        boolean bothExport = error.group(1) != null;
        Set<String> modules = bothExport ? Set.of(error.group(1), error.group(2)) : Set.of(error.group(4), error.group(6));
        String shared = bothExport ? error.group(3) : error.group(5);
        String quoted = "org.apache.zookeeper.server.persistence";
        String said = bothExport
                ? "ResolutionException: Modules zookeeper.jute and zookeeper export package " + quoted + " to module"
                : "ResolutionException: Module zookeeper.jute contains package " + quoted + ", module zookeeper exports package "
                        + quoted + " to zookeeper.jute";
        String readme = collapsed(Readme.text("lock-zookeeper/README.md"));
        assertTrue(modules.equals(Set.of("zookeeper", "zookeeper.jute")) && readme.contains(said) && readme.contains(shared),
                "lock-zookeeper/README.md should quote '" + said + "' and name the package " + shared + " (the JVM said: "
                        + error.group() + ")");
    }

    @Test
    void etcdOnTheReadmesThreeMemberCluster() {
        Shell.Result run = run("lock-etcd", "etcd", etcdClients(), "lock-etcd", "lock-api");
        assertOutput(run, RAN, "with fencing token", "backends: etcd\n");
    }

    /** On one Community member (no CP Subsystem: the README's {@code hazelcast-map://}); the job writes without a token. */
    @Test
    void hazelcastMapOnACommunityMember() {
        HazelcastCluster member = servers.hazelcast();
        Shell.Result run = run("lock-hazelcast", "hazelcast",
                Map.of("127.0.0.1:5701/dev", member.endpoints().get(0) + "/" + member.clusterName()), "lock-hazelcast", "lock-api");
        assertOutput(run, RAN, "backends: hazelcast, hazelcast-map\n");
        assertFalse(run.out().contains("with fencing token"), "no fencing token on hazelcast-map://:\n" + run.describe());
    }

    @Test
    void micrometer() {
        Shell.Result run = run("lock-micrometer", "micrometer", Map.of("127.0.0.1:6379", servers.redis().endpoint()),
                "lock-micrometer", "lock-redis-single", "lock-redis-support", "lock-api");
        assertOutput(run, "micrometer: distlock.acquire{outcome=acquired} count=1, distlock.held{outcome=released} count=1");
    }

    @Test
    void fencedJdbcOnPostgresql() {
        Map<String, String> replacements = new LinkedHashMap<>(etcdClients());
        replacements.put("127.0.0.1:5432", servers.postgres().host() + ":" + servers.postgres().port());
        Shell.Result run = run("lock-fenced-jdbc", "fenced-jdbc", replacements, "lock-fenced-jdbc", "lock-etcd", "lock-api");
        assertOutput(run, "fenced-jdbc: the write with token ", "refused, the table has ");
    }

    @Test
    void springIntegration() {
        Shell.Result run = run("lock-spring", "spring", Map.of("127.0.0.1:6379", servers.redis().endpoint()),
                "lock-spring", "lock-redis-single", "lock-redis-support", "lock-api");
        assertOutput(run, "spring: order for sku-42 handled holding its lock", "spring: took one sku-42 with fencing token ");
    }

    @Test
    void shedLockWithSpring() {
        Shell.Result run = run("lock-shedlock", "shedlock", Map.of("127.0.0.1:6379", servers.redis().endpoint()),
                "lock-shedlock", "lock-redis-single", "lock-redis-support", "lock-api");
        assertOutput(run, "shedlock: nightlyReport ran holding its lock");
    }

    // ---- the harness ---------------------------------------------------------------------------

    private static final String PATCH = " --patch-module \"zookeeper=$(cat target/jute.txt)\"";
    private static final String MODULE_PATH = "$(cat target/module-path.txt)";

    /** @return the client ports of the README's etcd cluster, and the free ports they became */
    private static Map<String, String> etcdClients() {
        Map<String, String> ports = servers.etcdCluster();
        return Map.of("2389", ports.get("2389"), "2391", ports.get("2391"), "2393", ports.get("2393"));
    }

    private static Map<String, String> zooKeeper() {
        return Map.of("127.0.0.1:2181", servers.zooKeeper());
    }

    /**
     * Runs lock-zookeeper's README command with a change that should make it fail.
     *
     * @return the JVM's error, found in either output (a boot layer's error goes to standard output)
     */
    private static Matcher zooKeeperFails(Map<String, String> change, String error) {
        Shell.Result run = Shell.run(Readme.consumer("zookeeper"), Readme.replace(javaCommand("lock-zookeeper", "zookeeper", zooKeeper()),
                change), RUN);
        assertNotEquals(0, run.exitCode(), run.describe());
        Matcher found = Pattern.compile(error).matcher(run.out() + run.err());
        assertTrue(found.find(), run.describe());
        return found;
    }

    /**
     * Runs the README's command for a consumer, after checking that the consumer holds exactly the
     * distlock artifacts it should and that the README's {@code mvn} lines are what its build ran.
     */
    private static Shell.Result run(String artifact, String consumer, Map<String, String> replacements, String... distlockArtifacts) {
        assertEquals(new TreeSet<>(Arrays.asList(distlockArtifacts)), distlockArtifacts(consumer),
                "the distlock artifacts on the module path of examples/module-path/" + consumer);
        return Shell.run(Readme.consumer(consumer), javaCommand(artifact, consumer, replacements), RUN);
    }

    /**
     * @return the README's commands for a consumer but its {@code mvn} lines (each of which, it is
     * checked, wrote the file it names), with the replacements made
     */
    private static String javaCommand(String artifact, String consumer, Map<String, String> replacements) {
        List<String> commands = new ArrayList<>();
        for (String command : Readme.commands(Readme.block(artifact + "/README.md", "module-path/" + consumer))) {
            if (command.startsWith("mvn ")) {
                Matcher output = Pattern.compile("-Dmdep\\.outputFile=(\\S+)").matcher(command);
                assertTrue(output.find(), "a README's mvn line names its output file: " + command);
                assertTrue(Files.isRegularFile(Readme.consumer(consumer).resolve(output.group(1))),
                        "examples/module-path/" + consumer + "'s build writes what the README's line does: " + command);
            } else {
                commands.add(command);
            }
        }
        return Readme.replace(String.join("\n", commands), replacements);
    }

    private static Set<String> distlockArtifacts(String consumer) {
        try {
            String modulePath = Files.readString(Readme.consumer(consumer).resolve("target/module-path.txt")).strip();
            return Arrays.stream(modulePath.split(":")).map(Path::of)
                    .filter(jar -> jar.getParent().getParent().getParent().getFileName().toString().equals("distlock"))
                    .map(jar -> jar.getParent().getParent().getFileName().toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new AssertionError("examples/module-path/" + consumer + " is not built", e);
        }
    }


    private static void assertOutput(Shell.Result run, String... expected) {
        assertEquals(0, run.exitCode(), run.describe());
        for (String line : expected) {
            assertTrue(run.out().contains(line), "expected '" + line + "' in:\n" + run.describe());
        }
    }

    private static String collapsed(String text) {
        return text.replaceAll("\\s+", " ");
    }
}
