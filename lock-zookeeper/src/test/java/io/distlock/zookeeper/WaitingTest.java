package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.tck.TestEnvironment;
import io.distlock.zookeeper.internal.ZkEndpoint;
import io.distlock.zookeeper.internal.ZkLockDriver;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a ZooKeeper waiter waits (issue 9, item 8): one watch on its predecessor for the whole wait,
 * woken only by the predecessor's deletion — not by the holder's renewals — and never a watch
 * more per retry.
 */
class WaitingTest {

    private static final TestEnvironment ENV = new TestEnvironment();

    private static ZkServers server;

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final Opened opened = new Opened();

    @BeforeAll
    static void start() {
        server = ZkServers.single();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        executor.shutdownNow();
        opened.closeAll();
    }

    @Test
    void theHoldersRenewalsDoNotWakeTheWaiterItsReleaseDoes() throws Exception {
        ZkLockDriver holder = driver();
        ZkLockDriver waiter = driver();
        Grant held = holder.tryAcquire(request("renewed")).grant();
        assertThat(waiter.tryAcquire(request("renewed")).isBusy()).isTrue();
        AtomicInteger wakeUps = new AtomicInteger();
        waiter.watch("renewed", wakeUps::incrementAndGet);

        for (int i = 0; i < 5; i++) {
            assertThat(holder.extend(held, Duration.ofSeconds(30)).isExtended()).isTrue();
            roundTrip(waiter.zooKeeper()); // a notification of that renewal would have arrived before this reply
            assertThat(wakeUps).as("wake-ups after renewal " + (i + 1)).hasValue(0);
        }

        holder.release(held);
        ENV.awaitUntil("the release wakes the waiter", () -> wakeUps.get() > 0);
    }

    @Test
    void aLongWaitBehindARenewingHolderKeepsOneWatch() throws Exception {
        LockClient holder = client();
        LockClient waiter = client();
        Lease held = holder.lock("long-wait").tryAcquire(ENV.scaled(Duration.ofMillis(600))).orElseThrow().autoRenew();
        Duration wait = ENV.scaled(Duration.ofSeconds(3));
        long waitEnds = System.nanoTime() + wait.toNanos();
        Future<Optional<Lease>> waiting = executor.submit(() -> waiter.lock("long-wait").tryAcquire(Duration.ofSeconds(30), wait));
        ZooKeeper waiterZk = ZkServers.driverOf(waiter).zooKeeper();

        int maxClient = 0;
        int maxServer = 0;
        while (System.nanoTime() - waitEnds < 0 && !waiting.isDone()) {
            maxClient = Math.max(maxClient, ClientWatches.count(waiterZk));
            maxServer = Math.max(maxServer, server.serverWatches());
            Thread.onSpinWait(); // sampling as fast as the queries go, for the whole wait
        }
        assertThat(waiting.get()).as("the holder kept renewing").isEmpty();
        assertThat(held.isValid()).isTrue();
        assertThat(maxClient).as("watchers the waiter's client held at most").isLessThanOrEqualTo(1);
        // The waiter's on the holder's node, and the holder's own on that node (to learn of a revocation).
        assertThat(maxServer).as("watches the server held at most").isLessThanOrEqualTo(2);
        held.release();
    }

    /** Waits for one reply on {@code zk}'s session: everything the server sent it before has been processed. */
    private static void roundTrip(ZooKeeper zk) throws Exception {
        CompletableFuture<Void> answered = new CompletableFuture<>();
        zk.exists("/", false, (rc, path, ctx, stat) -> answered.complete(null), null);
        answered.get(10, TimeUnit.SECONDS);
    }

    private static LockRequest request(String name) {
        return new LockRequest(name, UUID.randomUUID().toString().replace("-", ""), Duration.ofSeconds(30));
    }

    private ZkLockDriver driver() {
        ZkLockDriver driver = ZkLockDriver.connect(ZkEndpoint.parse(URI.create(server.uri("/waiting"))),
                LockOptions.defaults(), new RecordingContext());
        opened.add(driver);
        return driver;
    }

    private LockClient client() {
        LockClient client = Locks.connect(server.uri("/waiting"));
        opened.add(client);
        return client;
    }
}
