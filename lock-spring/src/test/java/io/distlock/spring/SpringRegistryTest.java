package io.distlock.spring;

import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.tck.fixtures.EtcdCluster;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.ZooKeeperProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.integration.annotation.ServiceActivator;
import org.springframework.integration.channel.DirectChannel;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.MessageHandler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The registry in real Spring contexts against real servers of three backends (one server of each
 * for the class): two contexts stand for two instances of a service. Mutual exclusion is checked
 * on a recorded history of critical sections (none may overlap), through the registry directly and
 * through a {@link LockRequestHandlerAdvice} guarding a {@code @ServiceActivator}; renewal keeps a
 * lock past its lease time, as a second instance sees.
 */
class SpringRegistryTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static RedisServer redis;
    private static ZooKeeperProcess zookeeper;
    private static EtcdCluster etcd;

    @BeforeAll
    static void startServers() {
        redis = RedisServer.start();
        zookeeper = ZooKeeperProcess.start(System.getProperty("java.class.path"));
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stopServers() {
        for (AutoCloseable server : new AutoCloseable[] {etcd, zookeeper, redis}) {
            if (server != null) {
                try {
                    server.close();
                } catch (Exception e) {
                    throw new IllegalStateException("could not stop " + server, e);
                }
            }
        }
    }

    static Stream<String> uris() {
        return Stream.of(redis.uri(), "zookeeper://" + zookeeper.connectString(), etcd.uri(""));
    }

    /** What a Spring user writes: a registry bean from a URI, and a handler guarded by a lock per SKU. */
    @Configuration
    @EnableIntegration
    static class Instance {

        @Bean
        DistlockLockRegistry lockRegistry(@Value("${distlock.uri}") String uri) {
            return new DistlockLockRegistry(uri, "stock:", LEASE);
        }

        @Bean
        LockRequestHandlerAdvice lockAdvice(DistlockLockRegistry lockRegistry) {
            return new LockRequestHandlerAdvice(lockRegistry,
                    (Function<Message<?>, Object>) message -> message.getHeaders().get("sku"));
        }

        @Bean
        MessageChannel orders() {
            return new DirectChannel();
        }

        @Bean
        @ServiceActivator(inputChannel = "orders", adviceChain = "lockAdvice")
        MessageHandler takeStock(History history, DistlockLockRegistry lockRegistry) {
            return message -> {
                LeaseLock lock = lockRegistry.obtain(message.getHeaders().get("sku"));
                history.criticalSection(lock.isHeldByCurrentThread());
            };
        }
    }

    /** Critical sections as [start, end] on the monotonic clock, and a counter updated without atomicity. */
    static final class History {
        private final List<long[]> sections = new ArrayList<>();
        private final AtomicInteger notHeld = new AtomicInteger();
        private int unprotectedCounter;

        void criticalSection(boolean heldByThisThread) {
            if (!heldByThisThread) {
                notHeld.incrementAndGet();
            }
            long start = System.nanoTime();
            int read = unprotectedCounter;
            long busyUntil = start + TimeUnit.MICROSECONDS.toNanos(500); // widen the window: work, not a sleep
            while (System.nanoTime() - busyUntil < 0) {
                Thread.onSpinWait();
            }
            unprotectedCounter = read + 1;
            long end = System.nanoTime();
            synchronized (sections) {
                sections.add(new long[] {start, end});
            }
        }

        void assertNoOverlap(int expected) {
            List<long[]> sorted;
            synchronized (sections) {
                sorted = new ArrayList<>(sections);
            }
            sorted.sort(Comparator.comparingLong(s -> s[0]));
            assertThat(sorted).hasSize(expected);
            for (int i = 1; i < sorted.size(); i++) {
                assertThat(sorted.get(i)[0]).as("section %d starts after section %d ended", i, i - 1)
                        .isGreaterThan(sorted.get(i - 1)[1]);
            }
            assertThat(unprotectedCounter).as("no lost update").isEqualTo(expected);
            assertThat(notHeld).as("every section ran with the lock held by its thread").hasValue(0);
        }
    }

    private static AnnotationConfigApplicationContext instance(String uri, History history) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", Map.of("distlock.uri", uri)));
        context.registerBean(History.class, () -> history);
        context.register(Instance.class);
        context.refresh();
        return context;
    }

    @ParameterizedTest
    @MethodSource("uris")
    void twoInstancesNeverOverlapInTheirCriticalSections(String uri) throws Exception {
        History history = new History();
        int threadsPerInstance = 2;
        int rounds = 10;
        ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerInstance);
        try (AnnotationConfigApplicationContext a = instance(uri, history);
             AnnotationConfigApplicationContext b = instance(uri, history)) {
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (AnnotationConfigApplicationContext context : List.of(a, b)) {
                LockRegistry<LeaseLock> registry = context.getBean(DistlockLockRegistry.class);
                for (int t = 0; t < threadsPerInstance; t++) {
                    workers.add(CompletableFuture.runAsync(() -> {
                        for (int i = 0; i < rounds; i++) {
                            LeaseLock lock = registry.obtain("sku-1");
                            lock.lock();
                            try {
                                history.criticalSection(lock.isHeldByCurrentThread());
                            } finally {
                                lock.unlock();
                            }
                        }
                    }, pool));
                }
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        history.assertNoOverlap(2 * threadsPerInstance * rounds);
    }

    @ParameterizedTest
    @MethodSource("uris")
    void theLockAdviceGuardsTheServiceActivatorAcrossInstances(String uri) throws Exception {
        History history = new History();
        int senders = 2;
        int messages = 10;
        ExecutorService pool = Executors.newFixedThreadPool(2 * senders);
        try (AnnotationConfigApplicationContext a = instance(uri, history);
             AnnotationConfigApplicationContext b = instance(uri, history)) {
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (AnnotationConfigApplicationContext context : List.of(a, b)) {
                MessageChannel orders = context.getBean("orders", MessageChannel.class);
                for (int s = 0; s < senders; s++) {
                    workers.add(CompletableFuture.runAsync(() -> {
                        for (int i = 0; i < messages; i++) {
                            assertThat(orders.send(MessageBuilder.withPayload(i).setHeader("sku", "sku-2").build())).isTrue();
                        }
                    }, pool));
                }
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            DistlockLockRegistry registry = a.getBean(DistlockLockRegistry.class);
            assertThat(registry.obtain("sku-2").isLocked()).as("the advice unlocked after every message").isFalse();
        } finally {
            pool.shutdownNow();
        }
        history.assertNoOverlap(2 * senders * messages);
    }

    @ParameterizedTest
    @MethodSource("uris")
    void renewalKeepsTheLockBeyondItsLeaseTime(String uri) {
        History history = new History();
        try (AnnotationConfigApplicationContext a = instance(uri, history);
             AnnotationConfigApplicationContext b = instance(uri, history)) {
            LeaseLock held = a.getBean(DistlockLockRegistry.class).obtain("sku-3");
            LeaseLock other = b.getBean(DistlockLockRegistry.class).obtain("sku-3");
            held.lock();
            try {
                Lease lease = held.lease().orElseThrow();
                // Polled on this (the holding) thread, for 2.5 lease times: the other instance is refused
                // every time, and the lease stays valid.
                await().pollInSameThread().pollInterval(Duration.ofMillis(100))
                        .during(LEASE.multipliedBy(5).dividedBy(2)).atMost(PATIENCE)
                        .failFast("the lease was not kept valid", () -> !lease.isValid())
                        .until(() -> {
                            boolean got = other.tryLock();
                            if (got) {
                                other.unlock();
                            }
                            return !got && lease.isValid();
                        });
                assertThat(lease.isValid()).isTrue();
                assertThat(lease.remaining()).isPositive();
            } finally {
                held.unlock();
            }
            assertThat(other.tryLock()).as("free once unlocked").isTrue();
            other.unlock();
        }
    }
}
