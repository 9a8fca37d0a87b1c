package example;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.PermitCountMismatchException;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's examples, as a user's classpath project runs them, against a real server of every
 * backend (started once for all tests): one redis-server, three more for Redlock, a primary with a
 * replica for Redis + WAIT, one with the CAS/CAD module for Tair, a stand-alone ZooKeeper, a
 * single etcd member and a Redis Cluster of three primaries.
 */
class ReadmeExamplesTest {

    private static EveryBackend servers;

    /** The backends the README says have semaphores and read-write locks (Redlock and Tair refuse them). */
    private static final java.util.Set<String> BOTH_PRIMITIVES = java.util.Set.of("redis", "redis-wait", "redis-cluster", "zookeeper", "etcd");

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

    /**
     * The README's semaphore, on every backend: four callers on four clients, at most three calls at the
     * partner at once, and a client asking for another count refused while permits are held; a backend
     * without semaphores refuses them, naming the feature.
     */
    @ParameterizedTest
    @MethodSource("uris")
    void atMostThreeCallsReachThePartnerAtOnce(String uri) throws Exception {
        List<LockClient> callers = Stream.generate(() -> Locks.connect(uri)).limit(4).toList();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch answer = new CountDownLatch(1);
        try {
            LockClient first = callers.get(0);
            assertEquals(BOTH_PRIMITIVES.contains(first.backend().scheme()), first.backend().has(Feature.SEMAPHORE),
                    "the README names the backends with semaphores: " + BOTH_PRIMITIVES);
            if (!first.backend().has(Feature.SEMAPHORE)) {
                UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                        () -> PartnerApi.call(first, () -> "answer"));
                assertTrue(refused.getMessage().contains("SEMAPHORE"), refused.getMessage());
                return;
            }
            AtomicInteger inFlight = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            Supplier<String> partner = () -> {
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                try {
                    answer.await(20, TimeUnit.SECONDS);                 // the partner answers when the test says
                    return "answer";
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return "interrupted";
                } finally {
                    inFlight.decrementAndGet();
                }
            };
            List<Future<Optional<String>>> calls = new ArrayList<>();
            for (LockClient caller : callers) {
                calls.add(pool.submit(() -> PartnerApi.call(caller, partner)));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> inFlight.get() == 3);
            assertThrows(PermitCountMismatchException.class,
                    () -> callers.get(3).semaphore("partner-api", 5).tryAcquire(Duration.ofSeconds(30)),
                    "another count than the holders' is refused");
            answer.countDown();
            long answered = 0;
            for (Future<Optional<String>> call : calls) {
                answered += call.get(30, TimeUnit.SECONDS).isPresent() ? 1 : 0;  // the 4th may have backed off
            }
            assertEquals(3, most.get(), "at most three calls at the partner at once, and three did run together");
            assertTrue(answered >= 3, answered + " calls answered");
        } finally {
            answer.countDown();
            pool.shutdownNow();
            callers.forEach(LockClient::close);
        }
    }

    /**
     * The README's read-write lock, on every backend: two readers in the price cache at once, a rebuild
     * that waits for them and is alone inside, readers again after it; a backend without read-write locks
     * refuses them, naming the feature.
     */
    @ParameterizedTest
    @MethodSource("uris")
    void readersShareThePriceCacheAndARebuildIsAlone(String uri) throws Exception {
        List<LockClient> clients = Stream.generate(() -> Locks.connect(uri)).limit(3).toList();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        CountDownLatch readersMayLeave = new CountDownLatch(1);
        try {
            LockClient rebuilder = clients.get(2);
            assertEquals(BOTH_PRIMITIVES.contains(rebuilder.backend().scheme()), rebuilder.backend().has(Feature.READ_WRITE),
                    "the README names the backends with read-write locks: " + BOTH_PRIMITIVES);
            if (!rebuilder.backend().has(Feature.READ_WRITE)) {
                UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                        () -> PriceCache.rebuild(rebuilder, null, Map.of()));
                assertTrue(refused.getMessage().contains("READ_WRITE"), refused.getMessage());
                return;
            }
            AtomicInteger readersInside = new AtomicInteger();
            AtomicInteger mostReaders = new AtomicInteger();
            AtomicInteger rebuildsInside = new AtomicInteger();
            List<String> violations = new CopyOnWriteArrayList<>();
            Map<String, String> prices = new ConcurrentHashMap<>(Map.of("sku-1", "9.90"));
            List<java.util.OptionalLong> fences = new CopyOnWriteArrayList<>();
            PriceCache.SharedPrices cache = new PriceCache.SharedPrices() {
                @Override
                public String get(String sku) {
                    mostReaders.accumulateAndGet(readersInside.incrementAndGet(), Math::max);
                    try {
                        if (rebuildsInside.get() > 0) {
                            violations.add("a reader inside during a rebuild");
                        }
                        readersMayLeave.await(20, TimeUnit.SECONDS);   // the readers stay until the test lets them go
                        return prices.get(sku);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return null;
                    } finally {
                        readersInside.decrementAndGet();
                    }
                }

                @Override
                public void replaceAll(Map<String, String> fresh, java.util.OptionalLong fence) {
                    rebuildsInside.incrementAndGet();
                    if (readersInside.get() > 0) {
                        violations.add(readersInside.get() + " readers inside during a rebuild");
                    }
                    prices.putAll(fresh);
                    fences.add(fence);
                    rebuildsInside.decrementAndGet();
                }
            };
            Future<String> one = pool.submit(() -> PriceCache.price(clients.get(0), cache, "sku-1"));
            Future<String> two = pool.submit(() -> PriceCache.price(clients.get(1), cache, "sku-1"));
            await().atMost(Duration.ofSeconds(20)).until(() -> readersInside.get() == 2);   // two readers at once
            Future<?> rebuild = pool.submit(() -> {
                PriceCache.rebuild(rebuilder, cache, Map.of("sku-1", "10.50"));
                return null;
            });
            // The rebuild waits for the readers inside: for half a second it stays out (and would be seen inside).
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                    .until(() -> !rebuild.isDone() && rebuildsInside.get() == 0);
            readersMayLeave.countDown();
            assertEquals("9.90", one.get(20, TimeUnit.SECONDS));
            assertEquals("9.90", two.get(20, TimeUnit.SECONDS));
            rebuild.get(20, TimeUnit.SECONDS);
            assertEquals("10.50", PriceCache.price(clients.get(0), cache, "sku-1"), "a reader after the rebuild");
            assertEquals(List.of(), violations);
            assertEquals(2, mostReaders.get());
            assertEquals(rebuilder.backend().has(Feature.FENCING_TOKENS), fences.get(0).isPresent(), fences.toString());
        } finally {
            readersMayLeave.countDown();
            pool.shutdownNow();
            clients.forEach(LockClient::close);
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
        assertEquals(5, checked, "the README quotes the five examples");
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
