package example.modular;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.EveryBackend;
import io.distlock.tck.fixtures.Instances;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's run-once example in a modular application, against a real server of every backend
 * (started once for all tests): in this JVM, which Surefire runs on the module path, and as five
 * separate {@code java -p ... -m} processes per backend, as a user starts them.
 */
class ModulePathTest {

    private static EveryBackend servers;

    @BeforeAll
    static void startServers() {
        servers = EveryBackend.start(System.getProperty("example.serverclasspath"));
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

    @Test
    void theApplicationTheApiAndEveryBackendAreNamedModules() {
        assertEquals("example.modular", NightlyReconciliation.class.getModule().getName());
        assertEquals("io.distlock", Locks.class.getModule().getName());
        for (String backend : List.of("io.distlock.redis", "io.distlock.redlock", "io.distlock.rediswait", "io.distlock.rediscluster", "io.distlock.tair",
                "io.distlock.zookeeper", "io.distlock.etcd")) {
            assertTrue(ModuleLayer.boot().findModule(backend).isPresent(), backend + " is not on the module path");
        }
        assertEquals(List.of("etcd", "redis", "redis-cluster", "redis-wait", "rediss", "redlock", "tair", "zookeeper"),
                Locks.backends().stream().map(b -> b.scheme()).collect(Collectors.toList()));
    }

    @ParameterizedTest
    @MethodSource("uris")
    void runsTheJobOnceInThisJvm(String uri) {
        List<String> writes = new CopyOnWriteArrayList<>();
        try (LockClient first = Locks.connect(uri); LockClient second = Locks.connect(uri)) {
            assertTrue(NightlyReconciliation.reconcileOnce(first, (report, fence) -> writes.add(report)));
            assertFalse(NightlyReconciliation.reconcileOnce(second, (report, fence) -> writes.add(report)));
            assertEquals(1, writes.size());
        }
    }

    /** Five instances started the way the README shows for the module path. */
    @ParameterizedTest
    @MethodSource("uris")
    void fiveModulePathProcessesRunTheJobOnce(String uri) throws Exception {
        Path log = Path.of("target", "instances-" + uri.substring(0, uri.indexOf(':')) + ".log");
        List<String> outcomes = Instances.run(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "--module-path", System.getProperty("example.modulepath"),
                "--patch-module", "zookeeper=" + System.getProperty("example.jute"),
                "-m", "example.modular/example.modular.NightlyReconciliation"), uri, 5, "nightly-reconciliation: ", log);
        assertEquals(1, Collections.frequency(outcomes, "ran"), "exactly one of five ran the job: " + outcomes);
        assertEquals(4, Collections.frequency(outcomes, "skipped"), outcomes.toString());
    }
}
