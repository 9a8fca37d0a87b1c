package io.distlock.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * backends, holders, inspect and revoke through the real {@code bin/distlock}, against a real server of
 * every backend: exit codes, what a person reads, and the {@code --json} a script parses.
 */
class CommandsTest {

    private static final String SECRET = "cli-S3cret-41aa";
    private static final List<AutoCloseable> OPEN = new ArrayList<>();

    static List<String> uris() {
        return Servers.uris();
    }

    @AfterAll
    static void closeAll() throws Exception {
        for (AutoCloseable c : OPEN) {
            c.close();
        }
    }

    private static <T extends AutoCloseable> T open(T c) {
        OPEN.add(c);
        return c;
    }

    @Test
    void backendsListsEveryInstalledSchemeWithItsGuaranteeAndFeatures() {
        Distlock.Result table = Distlock.launcher().run("backends");
        assertThat(table.exitCode()).as(table.toString()).isZero();
        assertThat(table.out()).contains("SCHEME", "GUARANTEE", "FEATURES");
        assertThat(table.out().lines().filter(l -> l.startsWith("zookeeper")).findFirst()).get().asString()
                .contains("CORRECTNESS", "FENCING_TOKENS", "INSPECTION", "REVOCATION");

        Distlock.Result json = Distlock.launcher().run("backends", "--json");
        assertThat(json.exitCode()).as(json.toString()).isZero();
        JsonArray all = JsonParser.parseString(json.out()).getAsJsonArray();
        List<String> schemes = new ArrayList<>();
        for (JsonElement b : all) {
            schemes.add(b.getAsJsonObject().get("scheme").getAsString());
        }
        assertThat(schemes).containsExactly("etcd", "hazelcast", "hazelcast-map", "redis", "redis-cluster", "redis-wait", "rediss",
                "redlock", "tair", "zookeeper");
        JsonObject redlock = all.get(schemes.indexOf("redlock")).getAsJsonObject();
        assertThat(redlock.get("guarantee").getAsString()).isEqualTo("EFFICIENCY");
        assertThat(redlock.get("features").toString()).contains("QUORUM").doesNotContain("FENCING_TOKENS");
        JsonObject cluster = all.get(schemes.indexOf("redis-cluster")).getAsJsonObject();
        assertThat(cluster.get("guarantee").getAsString()).isEqualTo("EFFICIENCY");
        assertThat(cluster.get("features").toString()).contains("INSPECTION", "REVOCATION", "READ_WRITE", "SEMAPHORE")
                .doesNotContain("FENCING_TOKENS");
        JsonObject map = all.get(schemes.indexOf("hazelcast-map")).getAsJsonObject();
        assertThat(map.get("guarantee").getAsString()).isEqualTo("EFFICIENCY");
        assertThat(map.get("features").toString()).doesNotContain("FENCING_TOKENS", "INSPECTION");
        JsonObject cp = all.get(schemes.indexOf("hazelcast")).getAsJsonObject();
        assertThat(cp.get("guarantee").getAsString()).isEqualTo("CORRECTNESS");
        assertThat(cp.get("features").toString()).contains("FENCING_TOKENS", "QUORUM");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("uris")
    void holdersAndInspectShowWhoHoldsWhatAndRevokeTakesItBack(String uri) throws Exception {
        String prefix = "cli-test/" + UUID.randomUUID().toString().substring(0, 8) + "/";
        // The test's own clients wait longer than the default for an answer: the machine runs a JVM per command.
        LockClient holder = open(Locks.connect(uri, LockOptions.builder().owner("nightly job on host-7")
                .operationTimeout(Duration.ofSeconds(10)).build()));
        LockClient waiter = open(Locks.connect(uri, LockOptions.builder().operationTimeout(Duration.ofSeconds(10)).build()));
        Lease lease = holder.lock(prefix + "nightly").acquire(Duration.ofMinutes(5));
        Lease other = holder.lock(prefix + "hourly").acquire(Duration.ofMinutes(5));
        boolean fenced = holder.backend().has(Feature.FENCING_TOKENS);

        Distlock.Result listed = Distlock.launcher().run("holders", uri, "--prefix", prefix, "--json");
        assertThat(listed.exitCode()).as(listed.toString()).isZero();
        JsonArray held = JsonParser.parseString(listed.out()).getAsJsonArray();
        assertThat(held).hasSize(2);
        JsonObject nightly = held.get(1).getAsJsonObject(); // name order: hourly, nightly
        assertThat(nightly.get("name").getAsString()).isEqualTo(prefix + "nightly");
        assertThat(nightly.get("owner").getAsString()).isEqualTo("nightly job on host-7");
        if (fenced) {
            assertThat(nightly.get("fencingToken").getAsLong()).isEqualTo(lease.fencingToken().getAsLong());
        } else {
            assertThat(nightly.get("fencingToken").isJsonNull()).isTrue();
        }
        if (!nightly.get("remainingMillis").isJsonNull()) { // a session store's lease lasts as long as its session
            assertThat(nightly.get("remainingMillis").getAsLong()).isBetween(1L, Duration.ofMinutes(5).toMillis());
        }
        assertThat(nightly.get("acquiredAt").getAsString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");

        Distlock.Result table = Distlock.launcher().run("holders", uri, "--prefix", prefix);
        assertThat(table.exitCode()).as(table.toString()).isZero();
        assertThat(table.out()).contains("2 held", "NAME", "OWNER", "TOKEN", "SINCE", "REMAINING", "WAITERS",
                prefix + "hourly", prefix + "nightly", "nightly job on host-7");

        Distlock.Result one = Distlock.launcher().run("inspect", uri, prefix + "nightly");
        assertThat(one.exitCode()).as(one.toString()).isZero();
        assertThat(one.out()).contains(prefix + "nightly", "nightly job on host-7", "detail: ");
        Distlock.Result free = Distlock.launcher().run("inspect", uri, prefix + "never-held");
        assertThat(free.exitCode()).as(free.toString()).isEqualTo(ExitCodes.NOT_HELD);
        assertThat(free.out()).contains("not held");

        // No terminal to ask on, and no --yes: refused, nothing revoked.
        Distlock.Result unconfirmed = Distlock.launcher().run("revoke", uri, prefix + "nightly", "--reason", "stuck");
        assertThat(unconfirmed.exitCode()).as(unconfirmed.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(unconfirmed.err()).contains("--yes", "Nothing was revoked");
        assertThat(lease.isValid()).isTrue();
        assertThat(holder.inspect(prefix + "nightly")).isPresent();

        Distlock.Result revoked = Distlock.launcher().run("revoke", uri, prefix + "nightly", "--reason", "stuck since 02:10, OPS-311", "--yes");
        assertThat(revoked.exitCode()).as(revoked.toString()).isZero();
        assertThat(revoked.out()).contains("revoked '" + prefix + "nightly' from nightly job on host-7");
        if (fenced) {
            assertThat(revoked.out()).contains("next token floor: every later grant's token is above " + lease.fencingToken().getAsLong());
        } else {
            assertThat(revoked.out()).contains("no fencing tokens");
        }
        assertThat(lease.lost().toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        Lease next = waiter.lock(prefix + "nightly").tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(20)).orElseThrow();
        if (fenced) {
            assertThat(next.fencingToken().getAsLong()).isGreaterThan(lease.fencingToken().getAsLong());
        }
        next.release();

        Distlock.Result again = Distlock.launcher().run("revoke", uri, prefix + "nightly", "--reason", "again", "--yes", "--json");
        assertThat(again.exitCode()).as(again.toString()).isEqualTo(ExitCodes.NOT_HELD);
        assertThat(JsonParser.parseString(again.out()).getAsJsonObject().get("revoked").getAsBoolean()).isFalse();
        assertThat(other.isValid()).as("the other lock was not touched").isTrue();
        other.release();
    }

    @Test
    void onATerminalRevokeAsksFirstAndANoRevokesNothing() throws Exception {
        String uri = Servers.uri("zookeeper");
        String name = "cli-confirm/" + UUID.randomUUID().toString().substring(0, 8);
        LockClient holder = open(Locks.connect(uri, LockOptions.builder().owner("stuck job").build()));
        Lease lease = holder.lock(name).acquire(Duration.ofMinutes(5));

        Distlock.Result declined = Distlock.launcher().runOnTerminal("n\n", Duration.ofMinutes(1), "revoke", uri, name, "--reason", "stuck");
        assertThat(declined.exitCode()).as(declined.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(declined.out()).contains("stuck job", "Revoke '" + name + "' from stuck job? [y/N]", "nothing was revoked");
        assertThat(lease.isValid()).isTrue();
        assertThat(holder.inspect(name)).isPresent();

        Distlock.Result confirmed = Distlock.launcher().runOnTerminal("y\n", Duration.ofMinutes(1), "revoke", uri, name, "--reason", "stuck");
        assertThat(confirmed.exitCode()).as(confirmed.toString()).isZero();
        assertThat(confirmed.out()).contains("revoked '" + name + "' from stuck job");
        assertThat(lease.lost().toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
    }

    @Test
    void holdersWatchRefreshesUntilCtrlC() throws Exception {
        String uri = Servers.uri("redis");
        String prefix = "cli-watch/" + UUID.randomUUID().toString().substring(0, 8) + "/";
        LockClient holder = open(Locks.connect(uri));
        Distlock.Running watch = Distlock.launcher().start("holders", uri, "--prefix", prefix, "--watch", "--interval", "200ms");
        await().atMost(Duration.ofSeconds(30)).until(() -> watch.outputSoFar().contains("0 held"));
        Lease lease = holder.lock(prefix + "job").acquire(Duration.ofMinutes(1));
        // A refresh prints its count, then its table: wait for the row, which comes last.
        await().atMost(Duration.ofSeconds(30)).until(() -> watch.outputSoFar().contains(prefix + "job"));
        assertThat(watch.outputSoFar()).contains("1 held");
        watch.interrupt();
        Distlock.Result r = watch.await(Duration.ofSeconds(30));
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(r.out()).doesNotContain("\033[");  // no terminal: one table after another, no escape codes
        lease.release();
    }

    @Test
    void theDemoRunsTheReadmesStory() {
        Distlock.Result r = Distlock.launcher().run(Duration.ofMinutes(2), "demo");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out()).contains("OK: 1 of 5 instances ran the reconciliation", "A's stale write was rejected");
    }

    @Test
    void theOneShotCommandsRunOnC1AndBenchAndCheckOnTheOptimisingCompiler() {
        // PrintFlagsFinal shows each JVM flag's value and where it came from; a bench measured on C1 alone would lie.
        Distlock flags = Distlock.launcher().env("JAVA_OPTS", "-XX:+PrintFlagsFinal");
        assertThat(flags.run("backends").out()).containsPattern("TieredStopAtLevel\\s+= 1\\s+\\{product\\} \\{command line\\}");
        for (String command : List.of("bench", "check")) {
            Distlock.Result r = flags.run(command, "nosuch://x");
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
            assertThat(r.out()).as(command).containsPattern("TieredStopAtLevel\\s+= 4\\s+\\{product\\} \\{default\\}");
        }
        Distlock.Result overridden = Distlock.launcher().env("JAVA_OPTS", "-XX:+PrintFlagsFinal -XX:TieredStopAtLevel=4").run("backends");
        assertThat(overridden.out()).as("JAVA_OPTS comes last").containsPattern("TieredStopAtLevel\\s+= 4\\s+\\{product\\} \\{command line\\}");
    }

    @Test
    void anUnknownSchemeIsBadInputAndListsTheInstalledOnes() {
        Distlock.Result r = Distlock.launcher().run("holders", "mongodb://127.0.0.1:1");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("mongodb", "redis", "zookeeper", "etcd");
    }

    @Test
    void anUnreachableServerFailsWithinTheConnectTimeoutNamingTheEndpoint() {
        int closed = FreePorts.find();
        long start = System.nanoTime();
        Distlock.Result r = Distlock.launcher().run("holders", "redis://user:" + SECRET + "@127.0.0.1:" + closed,
                "--connect-timeout", "2s");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(r.err()).contains("127.0.0.1:" + closed);
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the JVM's start, plus the 2 s connect timeout")
                .isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void aWrongPasswordIsRefusedWithoutShowingItAndTheRightOneFromAFileIsLetIn(@TempDir Path dir) throws Exception {
        RedisServer secured = open(RedisServer.builder().password(SECRET).start());
        Distlock.Result wrong = Distlock.launcher().env("DISTLOCK_PASSWORD", "not-" + SECRET).run("holders", "redis://" + secured.endpoint());
        assertThat(wrong.exitCode()).as(wrong.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(wrong.err()).contains("refused", secured.endpoint());
        assertThat(wrong.out() + wrong.err()).doesNotContain(SECRET);

        Path file = Files.writeString(dir.resolve("redis-password"), SECRET + "\n");
        Distlock.Result right = Distlock.launcher().run("holders", "redis://" + secured.endpoint(), "--password-file", file.toString());
        assertThat(right.exitCode()).as(right.toString()).isZero();
        assertThat(right.out()).contains("0 held").doesNotContain(SECRET);
    }

    static List<String> urisWithHolds() {
        return Servers.uris().stream().filter(u -> u.startsWith("redis://") || u.startsWith("redis-wait://")
                || u.startsWith("redis-cluster://") || u.startsWith("zookeeper://") || u.startsWith("etcd://")).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("urisWithHolds")
    void inspectShowsEveryPermitAndReaderAndRevokeTakesOneBack(String uri) throws Exception {
        String name = "cli-test/" + UUID.randomUUID().toString().substring(0, 8) + "/partner-api";
        LockOptions options = LockOptions.builder().owner("caller on host-3").operationTimeout(Duration.ofSeconds(10)).build();
        LockClient a = open(Locks.connect(uri, options));
        LockClient b = open(Locks.connect(uri, LockOptions.builder().owner("caller on host-4").operationTimeout(Duration.ofSeconds(10)).build()));
        Lease first = a.semaphore(name, 3).acquire(Duration.ofMinutes(5));
        Lease second = b.semaphore(name, 3).acquire(Duration.ofMinutes(5));
        Lease reader = a.readWriteLock(name).readLock().acquire(Duration.ofMinutes(5));

        Distlock.Result permits = Distlock.launcher().run("inspect", uri, name, "--semaphore", "--json");
        assertThat(permits.exitCode()).as(permits.toString()).isZero();
        JsonArray shown = JsonParser.parseString(permits.out()).getAsJsonArray();
        assertThat(shown).hasSize(2);
        JsonObject oldest = shown.get(0).getAsJsonObject();
        assertThat(oldest.get("kind").getAsString()).isEqualTo("PERMIT");
        assertThat(oldest.get("permits").getAsInt()).isEqualTo(3);
        assertThat(oldest.get("owner").getAsString()).isEqualTo("caller on host-3");
        String id = oldest.get("holdId").getAsString();

        Distlock.Result revoked = Distlock.launcher().run("revoke", uri, name, "--semaphore", "--hold", id, "--reason", "stuck", "--yes");
        assertThat(revoked.exitCode()).as(revoked.toString()).isZero();
        assertThat(revoked.out()).contains("revoked hold " + id + " of semaphore '" + name + "' from caller on host-3");
        assertThat(first.lost().toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        assertThat(second.isValid()).as("the other permit stays").isTrue();

        Distlock.Result readers = Distlock.launcher().run("inspect", uri, name, "--read-write");
        assertThat(readers.exitCode()).as(readers.toString()).isZero();
        assertThat(readers.out()).contains("read-write lock '" + name + "'", "1 held", "KIND", "HOLD", "read", "caller on host-3");
        reader.release();
        second.release();
    }

    @Test
    void aHoldIdNeedsItsPrimitiveAndABackendWithoutSemaphoresSaysSo() {
        Distlock.Result noPrimitive = Distlock.launcher().run("revoke", Servers.uri("redis"), "x", "--hold", "7", "--reason", "r", "--yes");
        assertThat(noPrimitive.exitCode()).as(noPrimitive.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(noPrimitive.err()).contains("--hold needs --semaphore or --read-write");
        Distlock.Result redlock = Distlock.launcher().run("inspect", Servers.uri("redlock"), "x", "--semaphore");
        assertThat(redlock.exitCode()).as(redlock.toString()).isEqualTo(ExitCodes.UNSUPPORTED);
        assertThat(redlock.err()).contains("SEMAPHORE");
    }

    @Test
    void revokeWithoutAReasonIsBadInput() {
        Distlock.Result r = Distlock.launcher().run("revoke", Servers.uri("redis"), "x", "--yes");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--reason");
    }
}
