package io.distlock.shedlock;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.ZooKeeperProcess;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The module README's Spring setup, run as written in real Spring contexts
 * ({@link AnnotationConfigApplicationContext}, no Spring Boot) on a real {@code redis-server} and a
 * real ZooKeeper server: {@link SchedulerLockConfig} is the README's configuration class, and the
 * jobs carry {@code @Scheduled} and {@code @SchedulerLock} as the README shows, with the short
 * timings a test needs.
 */
class SpringSchedulerTest {

    /** The ShedLock name of the jobs; each test starts its contexts on a lock it leaves free. */
    private static final String JOB = "nightlyReport";

    private static RedisServer redis;
    private static ZooKeeperProcess zooKeeper;

    @BeforeAll
    static void start() {
        List<AutoCloseable> servers = Servers.startAll(RedisServer::start,
                () -> ZooKeeperProcess.start(System.getProperty("java.class.path")));
        redis = (RedisServer) servers.get(0);
        zooKeeper = (ZooKeeperProcess) servers.get(1);
    }

    @AfterAll
    static void stop() {
        Servers.closeAll(redis, zooKeeper);
    }

    static Stream<Arguments> backends() {
        return Stream.of(Arguments.of(redis.uri()), Arguments.of("zookeeper://" + zooKeeper.connectString()));
    }

    // ---- the README's configuration, verbatim --------------------------------------------------

    @Configuration
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "10m")
    static class SchedulerLockConfig {
        @Bean // Spring calls close() on shutdown: the provider owns the client it connected
        LockProvider lockProvider(@Value("${distlock.uri}") String uri) { // e.g. redis://10.0.0.5:6379
            return new DistlockLockProvider(uri);
        }

        @Bean // Spring Boot declares this one itself; on shutdown it lets a running job end first
        ThreadPoolTaskScheduler taskScheduler() {
            return new ThreadPoolTaskScheduler();
        }
    }

    // ---- the jobs -------------------------------------------------------------------------------

    /** One run of a job: which instance ran it, from when to when (System.nanoTime). */
    record Run(String instance, long start, long end) {
    }

    /** What the jobs of every instance record, and the independent client they check the lock with. */
    static final class Record {
        final Queue<String> started = new ConcurrentLinkedQueue<>();
        final Queue<Run> runs = new ConcurrentLinkedQueue<>();
        final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final LockClient probe;

        Record(LockClient probe) {
            this.probe = probe;
        }

        /**
         * Does the job's "work": for {@code work}, checks every 10 ms through the independent
         * client that the lock is held on the server; records the run, and any failure.
         */
        void run(String instance, Duration work) {
            long start = System.nanoTime();
            started.add(instance);
            try {
                await("the lock, held on the server while " + instance + " runs").pollInterval(Duration.ofMillis(10))
                        .during(work).atMost(work.plusSeconds(5)).until(() -> held(probe, JOB));
            } catch (Throwable e) {
                failures.add(e);
            } finally {
                runs.add(new Run(instance, start, System.nanoTime()));
            }
        }
    }

    /** Every 50 ms; at most 5 s, at least 200 ms; works (holds the lock) for 30 ms. */
    static class FrequentJob {
        static final Duration LOCK_AT_LEAST_FOR = Duration.ofMillis(200);

        private final Record record;
        private final String instance;

        FrequentJob(Record record, @Value("${instance}") String instance) {
            this.record = record;
            this.instance = instance;
        }

        @Scheduled(fixedDelay = 50)
        @SchedulerLock(name = JOB, lockAtMostFor = "5s", lockAtLeastFor = "200ms")
        public void run() {
            record.run(instance, Duration.ofMillis(30));
        }
    }

    /** Every 50 ms; at most 5 s, at least 3 s; works (holds the lock) for 500 ms. */
    static class LongJob {
        static final Duration WORK = Duration.ofMillis(500);
        static final Duration LOCK_AT_LEAST_FOR = Duration.ofSeconds(3);

        private final Record record;

        LongJob(Record record) {
            this.record = record;
        }

        @Scheduled(fixedDelay = 50)
        @SchedulerLock(name = JOB, lockAtMostFor = "5s", lockAtLeastFor = "3s")
        public void run() {
            record.run("only", WORK);
        }
    }

    private static AnnotationConfigApplicationContext instance(String uri, String id, Record record, Class<?> job) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources()
                .addFirst(new MapPropertySource("test", Map.of("distlock.uri", uri, "instance", id)));
        context.registerBean(Record.class, () -> record);
        context.register(SchedulerLockConfig.class, job);
        context.refresh();
        return context;
    }

    // ---- the tests ------------------------------------------------------------------------------

    /**
     * Two instances of the application schedule the same job every 50 ms: the job runs, on both,
     * and never on two at once, not even while the instances shut down. Until the first instance
     * is closed, two starts are at least lockAtLeastFor apart (less 100 ms for the acquire, which
     * ShedLock counts in); closing an instance frees a lock still in its lockAtLeastFor at once,
     * so the other may start the job sooner after that (seen: 67 ms).
     *
     * <p>ShedLock promises no fairness: the instance that attempts first after a release wins,
     * and the two 50 ms schedules drift against each other only slowly, so wins come in streaks
     * (one instance won 11 runs in a row). The test therefore waits, within 10 s, until both have
     * run; an instance that never wins in that time fails it.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void twoInstancesTakeTurnsAndNeverRunTheJobAtOnce(String uri) {
        try (LockClient probe = Locks.connect(uri)) {
            Record record = new Record(probe);
            AnnotationConfigApplicationContext first = instance(uri, "first", record, FrequentJob.class);
            AnnotationConfigApplicationContext second = null;
            long closing;
            try {
                second = instance(uri, "second", record, FrequentJob.class);
                await("twelve runs, on both instances").atMost(Duration.ofSeconds(10)).until(() -> record.runs.size() >= 12
                        && record.runs.stream().map(Run::instance).distinct().count() == 2);
            } finally {
                closing = System.nanoTime();
                Servers.closeAll(first, second);
            }

            assertThat(record.failures).isEmpty();
            List<Run> runs = new ArrayList<>(record.runs);
            runs.sort(Comparator.comparingLong(Run::start));
            assertThat(runs).hasSizeGreaterThanOrEqualTo(12);
            assertThat(runs).extracting(Run::instance).contains("first", "second");
            long minimumGap = FrequentJob.LOCK_AT_LEAST_FOR.minusMillis(100).toNanos();
            for (int i = 1; i < runs.size(); i++) {
                Run before = runs.get(i - 1);
                Run after = runs.get(i);
                assertThat(after.start()).as("run %d (%s) starts after run %d (%s) ended", i, after, i - 1, before)
                        .isGreaterThan(before.end());
                if (after.start() < closing) {
                    assertThat(after.start() - before.start()).as("nanoseconds between the starts of runs %d and %d", i - 1, i)
                            .isGreaterThanOrEqualTo(minimumGap);
                }
            }
            assertThat(held(probe, JOB)).as("the lock, after both instances closed").isFalse();
        }
    }

    /**
     * Closing the context while its job runs: Spring lets the job end with its lock held, then
     * closes the provider, which frees the lock at once instead of at lockAtLeastUntil (3 s after
     * the start) or at lockAtMostFor.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void closingTheContextLetsTheRunningJobEndThenFreesItsLock(String uri) {
        try (LockClient probe = Locks.connect(uri)) {
            Record record = new Record(probe);
            AnnotationConfigApplicationContext context = instance(uri, "only", record, LongJob.class);
            long closed;
            try {
                await().atMost(Duration.ofSeconds(5)).until(() -> !record.started.isEmpty());
            } finally {
                context.close();
                closed = System.nanoTime();
            }
            boolean heldAfterClose = held(probe, JOB);

            assertThat(record.failures).isEmpty();
            assertThat(record.runs).as("the runs that had ended when close() returned").hasSize(1);
            Run run = record.runs.peek();
            assertThat(run.end() - run.start()).as("the run's length, in ns").isGreaterThanOrEqualTo(LongJob.WORK.toNanos());
            assertThat(run.end()).as("the run ended before close() returned").isLessThanOrEqualTo(closed);
            assertThat(heldAfterClose).as("the lock, right after close()").isFalse();
            assertThat(System.nanoTime() - run.start()).as("ns from the start of the run to the check: within lockAtLeastFor,"
                    + " so only close() can have freed the lock").isLessThan(LongJob.LOCK_AT_LEAST_FOR.toNanos());
        }
    }

    /** Asks the server: a second client's tryAcquire is refused (held) or granted and given back (free). */
    private static boolean held(LockClient probe, String name) {
        Optional<Lease> lease = probe.lock(name).tryAcquire(Duration.ofSeconds(5));
        lease.ifPresent(Lease::release);
        return lease.isEmpty();
    }
}
