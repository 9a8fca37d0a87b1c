package io.distlock.shedlock;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's own provider suite (shedlock-test-support, with its fuzz tester) against one real
 * server set per backend: each subclass says how to {@linkplain #start() start} its servers and
 * which URI reaches them; this class starts them once per test class, connects, and closes both
 * after the class's last test. ShedLock's suite is built on inheritance, so this is one level of it.
 *
 * <p>{@link #assertLocked}/{@link #assertUnlocked} ask the server, through a second, independent
 * {@link LockClient}: a {@code tryAcquire} that is refused means held; one that is granted means
 * free (and is released at once).
 */
abstract class ShedLockSuite extends AbstractExtensibleLockProviderIntegrationTest {

    /** The provider under test and a second client of the same backend to look at the server's state. */
    record Connections(DistlockLockProvider provider, LockClient probe) implements AutoCloseable {
        /**
         * Opens both and takes and frees one lock through each: a client's first acquire also sets
         * up its connection (etcd: its session lease; measured at 80 ms), which the suite's 50 ms
         * lockAtMostFor would otherwise pay for out of its validity, in whichever test runs first.
         * If that fails, both are closed.
         */
        static Connections to(String uri) {
            Connections connections = new Connections(new DistlockLockProvider(uri), Locks.connect(uri));
            String warmUp = "shedlock-suite-warm-up-" + UUID.randomUUID();
            try {
                connections.provider().lock(lockConfig(warmUp, Duration.ofSeconds(10), Duration.ZERO)).orElseThrow().unlock();
                connections.probe().lock(warmUp).tryAcquire(Duration.ofSeconds(10)).orElseThrow().release();
            } catch (RuntimeException e) {
                Servers.closeAll(connections);
                throw e;
            }
            return connections;
        }

        @Override
        public void close() {
            provider.close();
            probe.close();
        }
    }

    /**
     * What a subclass started: the URI to connect to, and the servers, closed in this order after
     * the connections.
     */
    record Started(String uri, List<? extends AutoCloseable> servers) {
        Started(String uri, AutoCloseable... servers) {
            this(uri, List.of(servers));
        }
    }

    /**
     * Starts the backend's servers; called once per test class, before its first test. If it fails
     * after starting a server, it closes what it started.
     *
     * @return the URI of the backend and the servers to close after the class's tests
     */
    protected abstract Started start();

    /**
     * Each test class's backend: started before its first test ({@link #startOnce()}), closed after
     * its last ({@link #closeAfterAll}). Not kept in instance fields of one instance per class
     * ({@code @TestInstance(PER_CLASS)}): ShedLock's tests take their lock names from instance
     * fields, which must be new for each test.
     */
    private static final Map<Class<?>, Backend> BACKENDS = new ConcurrentHashMap<>();

    /**
     * A test class's connections and servers, or why it has none: a start that failed is not tried
     * again by each test (as a failed {@code @BeforeAll} was not).
     */
    private record Backend(Connections connections, List<? extends AutoCloseable> servers, RuntimeException failure) {
        static Backend start(ShedLockSuite test) {
            Started started = null;
            try {
                started = test.start();
                return new Backend(Connections.to(started.uri()), started.servers(), null);
            } catch (RuntimeException e) {
                if (started != null) {
                    Servers.closeAll(started.servers().toArray(AutoCloseable[]::new));
                }
                return new Backend(null, List.of(), e);
            }
        }

        void close() {
            Servers.closeAll(connections);
            Servers.closeAll(servers.toArray(AutoCloseable[]::new));
        }
    }

    /**
     * Starts and connects this class's backend unless an earlier test did. Before the test, not on
     * first use: some of ShedLock's tests make their LockConfiguration (which starts its
     * lockAtMostFor) before they ask for the provider, and starting a server takes seconds.
     */
    @BeforeEach
    final void startOnce() {
        Backend backend = BACKENDS.computeIfAbsent(getClass(), testClass -> Backend.start(this));
        if (backend.failure() != null) {
            throw new IllegalStateException(getClass().getSimpleName() + ": its servers did not start, or did not answer",
                    backend.failure());
        }
    }

    /** Closes the backend of the class whose tests have all run: its connections, then its servers. */
    @AfterAll
    static void closeAfterAll(TestInfo testClass) {
        Backend backend = BACKENDS.remove(testClass.getTestClass().orElseThrow());
        if (backend != null) {
            backend.close();
        }
    }

    /** @return the connections of this class's backend, opened before the test ({@link #startOnce()}) */
    private Connections connections() {
        return BACKENDS.get(getClass()).connections();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return connections().provider();
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(isFree(lockName)).as("'%s' should be held, but a second client could take it", lockName).isFalse();
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(isFree(lockName)).as("'%s' should be free, but a second client could not take it", lockName).isTrue();
    }

    /** Whether the second client can take {@code lockName} (it releases it at once). */
    private boolean isFree(String lockName) {
        Optional<Lease> probe = connections().probe().lock(lockName).tryAcquire(Duration.ofSeconds(5));
        probe.ifPresent(Lease::release);
        return probe.isPresent();
    }

    /**
     * The lockAtMostFor for the suite's tests written with shorter ones than the backend takes:
     * 50 ms (the suite's own short lease, in {@code shouldTimeout}) unless the backend, with the URI
     * the subclass uses, declares a longer minimum. Not distlock's 10 ms minimum: a lease that short
     * is spent before an acquire's reply arrives often enough to make a test flaky (a grant that
     * arrives with no validity left is not a lease).
     */
    protected Duration shortestLockAtMostFor() {
        return Duration.ofMillis(50);
    }

    /**
     * The suite locks for 50 ms and, after twice that, expects the lock free. Unchanged where
     * {@link #shortestLockAtMostFor()} is 50 ms; otherwise the same steps with that, for both locks
     * (README, "Deviations"), and instead of sleeping, it polls: free within twice lockAtMostFor.
     */
    @Override
    @Test
    public void shouldTimeout() throws InterruptedException {
        Duration lockAtMostFor = shortestLockAtMostFor();
        if (lockAtMostFor.compareTo(Duration.ofMillis(50)) <= 0) {
            super.shouldTimeout();
            return;
        }
        Optional<SimpleLock> lock1 = getLockProvider().lock(lockConfig(LOCK_NAME1, lockAtMostFor, Duration.ZERO));
        assertThat(lock1).isNotEmpty();

        await().pollInterval(Duration.ofMillis(5)).atMost(lockAtMostFor.multipliedBy(2)).until(() -> isFree(LOCK_NAME1));

        Optional<SimpleLock> lock2 = getLockProvider().lock(lockConfig(LOCK_NAME1, lockAtMostFor, Duration.ZERO));
        assertThat(lock2).isNotEmpty();
        lock2.get().unlock();
    }

    /**
     * The suite locks for 2 ms, below distlock's shortest lease time (10 ms), which this provider
     * refuses rather than stretches (README, "Deviations"). The closest honest variant: the same
     * steps with {@link #shortestLockAtMostFor()}; instead of sleeping twice that (as the suite
     * sleeps 4 ms for 2 ms), it waits until the server has freed the lock, then extends.
     */
    @Override
    @Test
    public void shouldNotBeAbleToExtendExpiredLock() {
        Duration lockAtMostFor = shortestLockAtMostFor();
        Optional<SimpleLock> lock = getLockProvider().lock(lockConfig(LOCK_NAME1, lockAtMostFor, Duration.ZERO));
        assertThat(lock).isNotEmpty();
        await().pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(5)).until(() -> isFree(LOCK_NAME1));

        Optional<SimpleLock> newLock = lock.get().extend(Duration.ofSeconds(10), Duration.ZERO);
        assertThat(newLock).isEmpty();
        assertUnlocked(LOCK_NAME1);
    }
}
