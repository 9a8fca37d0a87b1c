package example;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.EveryBackend;
import io.distlock.tck.fixtures.Instances;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's examples, as a user's classpath project runs them, against a real server of every
 * backend (started once for all tests): one redis-server, three more for Redlock, a primary with a
 * replica for Redis + WAIT, one with the CAS/CAD module for Tair, a stand-alone ZooKeeper and a
 * single etcd member.
 */
class ReadmeExamplesTest {

    private static EveryBackend servers;

    @BeforeAll
    static void startServers() {
        servers = EveryBackend.start(System.getProperty("java.class.path"));
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.close();
        }
    }

    static Stream<String> uris() {
        return servers.uris().stream();
    }

    /** The README's promise, as five separate JVMs started together on one backend. */
    @ParameterizedTest
    @MethodSource("uris")
    void fiveProcessesRunTheNightlyJobOnce(String uri) throws Exception {
        Path log = Path.of("target", "instances-" + uri.substring(0, uri.indexOf(':')) + ".log");
        List<String> outcomes = Instances.run(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-cp", System.getProperty("example.classpath"), "example.NightlyReconciliation"), uri, 5, "nightly-reconciliation: ", log);
        assertEquals(1, Collections.frequency(outcomes, "ran"), "exactly one of five ran the job: " + outcomes);
        assertEquals(4, Collections.frequency(outcomes, "skipped"), outcomes.toString());
    }

    @ParameterizedTest
    @MethodSource("uris")
    void aLateInstanceSkipsTooAndTheFenceIsPassedWhereThereIsOne(String uri) {
        List<String> writes = new CopyOnWriteArrayList<>();
        try (LockClient early = Locks.connect(uri); LockClient late = Locks.connect(uri)) {
            assertTrue(NightlyReconciliation.reconcileOnce(early, (report, fence) -> writes.add(report + " " + fence)));
            assertFalse(NightlyReconciliation.reconcileOnce(late, (report, fence) -> writes.add(report + " " + fence)),
                    "the job is done but its lock is kept: a late instance skips");
            BackendDescriptor backend = early.backend();
            assertEquals(1, writes.size());
            assertEquals(backend.has(io.distlock.Feature.FENCING_TOKENS), !writes.get(0).endsWith("OptionalLong.empty"),
                    writes.get(0));
        }
    }

    @ParameterizedTest
    @MethodSource("uris")
    void theWaitingPatternTakesTurnsWithFencedWritesOnlyOnACorrectnessBackend(String uri) throws Exception {
        Map<String, Long> lastToken = new ConcurrentHashMap<>();
        List<Long> accepted = new CopyOnWriteArrayList<>();
        StockUpdate.FencedStock stock = (sku, fence) -> {
            boolean newer = lastToken.merge(sku, fence, Math::max) == fence;
            if (newer) {
                accepted.add(fence);
            }
            return newer;
        };
        try (LockClient first = Locks.connect(uri); LockClient second = Locks.connect(uri)) {
            if (first.backend().guarantee() != Guarantee.CORRECTNESS) {
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> StockUpdate.takeOne(first, "sku-1", stock));
                assertTrue(refused.getMessage().contains("CORRECTNESS"), refused.getMessage());
                return;
            }
            assertTrue(StockUpdate.takeOne(first, "sku-1", stock));
            assertTrue(StockUpdate.takeOne(second, "sku-1", stock));
            assertTrue(StockUpdate.takeOne(first, "sku-1", stock));
            assertEquals(3, accepted.size());
            assertTrue(accepted.get(0) < accepted.get(1) && accepted.get(1) < accepted.get(2), accepted.toString());
        }
    }

    /**
     * The README's third example, on every backend (each declares revocation): the operator takes the
     * stuck holder's lock back; the holder learns it, the next instance gets the lock, with a
     * higher fencing token where the backend has one.
     */
    @ParameterizedTest
    @MethodSource("uris")
    void anOperatorTakesAStuckHoldersLockBack(String uri) throws Exception {
        try (LockClient stuck = Locks.connect(uri); LockClient next = Locks.connect(uri);
             LockClient ops = Locks.connect(uri, LockOptions.builder().owner("on-call: alice").build())) {
            assertTrue(ops.backend().has(Feature.REVOCATION), ops.backend().scheme() + " does not declare REVOCATION: every"
                    + " backend does, and the README says so");
            Lease held = stuck.lock("nightly-reconciliation").tryAcquire(Duration.ofMinutes(10)).orElseThrow();
            CompletableFuture<Lease.LossReason> lost = held.lost().toCompletableFuture();
            assertTrue(next.lock("nightly-reconciliation").tryAcquire(Duration.ofMinutes(10)).isEmpty(), "held");

            Optional<LockInfo> revoked = TakingItBack.takeBack(ops, "nightly-reconciliation", "stuck since 02:10, OPS-311");

            assertTrue(revoked.isPresent(), "the holder was revoked");
            assertEquals(held.fencingToken(), revoked.get().fencingToken(), "the revoked token is the holder's");
            assertEquals(Lease.LossReason.REVOKED, lost.get(10, TimeUnit.SECONDS), "the holder learns it");
            assertFalse(held.isValid());
            Lease taken = next.lock("nightly-reconciliation").tryAcquire(Duration.ofMinutes(10), Duration.ofSeconds(10))
                    .orElseThrow();
            if (held.fencingToken().isPresent()) {
                assertTrue(taken.fencingToken().getAsLong() > held.fencingToken().getAsLong(), "the fence moved");
            }
            taken.release();
            assertTrue(TakingItBack.takeBack(ops, "nightly-reconciliation", "again").isEmpty(), "nothing left to revoke");
        }
    }

    /** The README shows these examples' code, verbatim: what a user copies is what runs here. */
    @Test
    void theReadmeQuotesTheseExamplesVerbatim() throws IOException {
        String readme = Files.readString(Path.of(System.getProperty("example.readme")));
        Matcher quoted = Pattern.compile("<!-- verbatim from examples/consumer/(\\S+) -->\\s*```java\\n(.*?)```", Pattern.DOTALL)
                .matcher(readme);
        int checked = 0;
        while (quoted.find()) {
            String source = Files.readString(Path.of(quoted.group(1)));
            assertTrue(stripped(source).contains(stripped(quoted.group(2))),
                    "README.md quotes " + quoted.group(1) + " but the source says otherwise:\n" + quoted.group(2));
            checked++;
        }
        assertEquals(3, checked, "the README quotes the three examples");
    }

    /** The lines without their indentation: the README may indent less than the source. */
    private static String stripped(String text) {
        return text.lines().map(String::strip).collect(Collectors.joining("\n"));
    }

    /** README "Logging": with slf4j-jdk-platform-logging on the class path, distlock's System.Logger is SLF4J's. */
    @Test
    void distlockLogsThroughSlf4j() {
        assertTrue(System.getLogger("io.distlock").getClass().getName().startsWith("org.slf4j"),
                System.getLogger("io.distlock").getClass().getName());
    }
}
