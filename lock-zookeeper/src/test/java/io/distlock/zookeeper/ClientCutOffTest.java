package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.spi.Attempt;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.FaultProxy;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A client cut off from its server while the server keeps running (issue 9, item 1): its link,
 * a {@link FaultProxy} of its own, is dropped — every connection reset, reconnects refused — for
 * {@link #OUTAGE}, shorter than its session, so the session survives. Whatever the client wrote
 * for a release, an abandoned wait or a create whose reply was lost must be gone soon after the
 * link heals: another client then acquires within {@link #AFTER_HEAL}, long before any lease ends.
 * The same at the SPI, driving the driver as the engine's cleanup does: a removal the server did not
 * confirm throws, and the next call of it still removes the node.
 */
class ClientCutOffTest {

    private static final TestEnvironment ENV = new TestEnvironment();
    private static final Duration OUTAGE = ENV.scaled(Duration.ofSeconds(3));
    /** Outlives the outage plus the reconnect after it: the session survives. */
    private static final int SESSION_MILLIS = 10_000;
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);
    /**
     * From the heal to another client's grant: the cut-off client's reconnect (ZooKeeper waits a
     * random 0–1 s before each attempt, and 1 s more once it has tried every host), its cleanup's
     * round trip, and the hand-off.
     */
    private static final Duration AFTER_HEAL = ENV.scaled(Duration.ofMillis(3_000));

    private static ZkServers server;
    private static ZkOperator operator;

    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
    private final Opened opened = new Opened();

    @BeforeAll
    static void start() throws Exception {
        server = ZkServers.single();
        operator = new ZkOperator(server.connectString());
    }

    @AfterAll
    static void stop() throws Exception {
        operator.close();
        server.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        scheduler.shutdownNow();
        opened.closeAll();
    }

    @Test
    void aReleaseDuringTheOutageReturnsAtOnceAndItsNodeGoesSoonAfterTheHeal() throws Exception {
        FaultProxy link = opened.add(server.linkToServer());
        LockClient a = through(link);
        LockClient b = direct();
        Lease lease = a.lock("release").tryAcquire(LONG_LEASE).orElseThrow();

        CompletableFuture<Long> healed = dropFor(link);
        ENV.awaitUntil("A's lease is invalid once its connection is gone", () -> !lease.isValid());
        long start = System.nanoTime();
        lease.release();
        assertThat(TestEnvironment.since(start)).as("release() during the outage").isLessThan(ENV.tolerance());

        assertAcquiredSoonAfterHeal(b, "release", healed);
    }

    @Test
    void aWaiterWhoseWaitEndsDuringTheOutageLeavesNothingInLine() throws Exception {
        FaultProxy link = opened.add(server.linkToServer());
        LockClient holder = direct();
        LockClient waiter = through(link);
        LockClient next = direct();
        Lease held = holder.lock("wait").tryAcquire(LONG_LEASE).orElseThrow();
        // The link drops while the waiter sleeps (its node in line behind the holder's), and its
        // wait ends during the outage.
        Duration maxWait = ENV.scaled(Duration.ofMillis(800));
        Future<Optional<Lease>> waiting = scheduler.submit(() -> waiter.lock("wait").tryAcquire(LONG_LEASE, maxWait));
        ENV.awaitUntil("the waiter's node is in line", () -> nodes("wait") == 2);
        CompletableFuture<Long> healed = dropFor(link);
        try {
            assertThat(waiting.get()).as("the waiter got no lease").isEmpty();
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(BackendUnavailableException.class);
        }
        assertThat(healed).as("the wait ended during the outage").isNotDone();
        healed.get();
        held.release();

        assertAcquiredSoonAfterHeal(next, "wait", healed);
    }

    /**
     * Issue 20, item 5: a waiting acquire that meets an outage ends with its own {@code maxWait},
     * unavailable — the driver's wait for the connection to come back is the caller's wait, not a
     * request in flight that the operation timeout bounds (it used to take maxWait + the timeout).
     */
    @Test
    void aWaitingAcquireDuringAnOutageEndsWithItsMaxWait() throws Exception {
        FaultProxy link = opened.add(server.linkToServer());
        LockClient a = through(link);
        Lease warmUp = a.lock("outage-wait").tryAcquire(LONG_LEASE).orElseThrow(); // connected, the lock's directory exists
        warmUp.release();
        link.drop(); // until the end of the test
        ENV.awaitUntil("the client noticed its connection is gone", () -> {
            try {
                a.lock("outage-probe").tryAcquire(LONG_LEASE).ifPresent(Lease::release);
                return false;
            } catch (BackendUnavailableException e) {
                return true;
            }
        });
        Duration maxWait = ENV.scaled(Duration.ofMillis(1_000));
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.lock("outage-wait").tryAcquire(LONG_LEASE, maxWait))
                .isInstanceOf(BackendUnavailableException.class);
        Duration took = TestEnvironment.since(start);
        assertThat(took).as("a wait of %s during an outage (operation timeout %s)", maxWait,
                LockOptions.defaults().operationTimeout()).isLessThanOrEqualTo(maxWait.plus(ENV.tolerance()));
        link.heal();
    }

    @Test
    void aCreateWhoseReplyWasLostLeavesNothingBehind() throws Exception {
        FaultProxy link = opened.add(server.linkToServer());
        LockClient a = through(link);
        LockClient b = direct();
        a.lock("lost-reply").tryAcquire(LONG_LEASE).orElseThrow().release(); // the lock's directory exists
        link.holdReplies();
        Future<Optional<Lease>> acquiring = scheduler.submit(() -> a.lock("lost-reply").tryAcquire(LONG_LEASE));
        ENV.awaitUntil("A's create landed and its reply is held back", () -> nodes("lost-reply") == 1 && link.inFlight());

        CompletableFuture<Long> healed = dropFor(link); // the held reply is lost with the connection
        try {
            Optional<Lease> got = acquiring.get();
            got.ifPresent(Lease::release); // a reconnect within the operation timeout may still find the node: fine
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(BackendUnavailableException.class);
        }

        assertAcquiredSoonAfterHeal(b, "lost-reply", healed);
    }

    @Test
    void aLeaseThatEndsDuringTheOutageLeavesNothingBehind() throws Exception {
        FaultProxy link = opened.add(server.linkToServer());
        LockClient a = through(link);
        LockClient b = direct();
        Lease lease = a.lock("lease-end").tryAcquire(ENV.scaled(Duration.ofMillis(1_000))).orElseThrow();
        lease.lost(); // the keeper watches the lease's end

        CompletableFuture<Long> healed = dropFor(link);
        ENV.awaitUntil("the lease ended", () -> lease.lost().toCompletableFuture().isDone());

        assertAcquiredSoonAfterHeal(b, "lease-end", healed);
    }

    /**
     * {@code LockClient.close()} returns within the operation timeout (its last batch) + 1 s (closing
     * connections), even with the server silent: the closeSession that ends the session is a courtesy
     * (unanswered, the server expires the session), and must not wait another request timeout.
     */
    @Test
    void closeOfAClientWhoseServerFellSilentReturnsWithinTheOperationTimeoutAndASecond() {
        // Three routes to the server, as to an ensemble: cut off, the client moves from one to the next.
        java.util.List<FaultProxy> links = java.util.List.of(opened.add(server.linkToServer()), opened.add(server.linkToServer()),
                opened.add(server.linkToServer()));
        Duration operationTimeout = Duration.ofSeconds(2);
        LockClient a = Locks.connect(URI.create("zookeeper://" + links.stream().map(FaultProxy::endpoint)
                .collect(java.util.stream.Collectors.joining(",")) + "/cut-off?sessionTimeout=4000"),
                LockOptions.builder().connectTimeout(Duration.ofSeconds(6)).operationTimeout(operationTimeout).build());
        opened.add(a);
        a.lock("close").tryAcquire(LONG_LEASE).orElseThrow();
        Lease released = a.lock("close-released").tryAcquire(LONG_LEASE).orElseThrow();
        links.forEach(FaultProxy::blackhole);
        released.release(); // unanswered: it waits in the cleanup, for close() to send with the held lease
        long start = System.nanoTime();
        a.close();
        Duration took = TestEnvironment.since(start);
        links.forEach(FaultProxy::heal);
        System.out.printf("[ClientCutOffTest] close() with the server silent took %d ms%n", took.toMillis());
        assertThat(took).as("close() with the server silent").isLessThanOrEqualTo(operationTimeout.plusSeconds(1));
    }

    @Test
    void aWithdrawalTheServerDidNotConfirmIsNotForgotten() {
        FaultProxy link = opened.add(server.linkToServer());
        ZkLockDriver holder = driver(server.connectString());
        ZkLockDriver waiter = driver(link.endpoint());
        assertThat(holder.tryAcquire(request("withdraw")).isGranted()).isTrue();
        LockRequest waiting = request("withdraw");
        assertThat(waiter.tryAcquire(waiting).isBusy()).isTrue();
        assertThat(nodes("withdraw")).isEqualTo(2);

        link.blackhole();
        assertThatThrownBy(() -> waiter.abandon(waiting, false)).isInstanceOf(BackendUnavailableException.class);
        cutAndHeal(link);

        retryUntilConfirmed(() -> waiter.abandon(waiting, false));
        assertThat(nodes("withdraw")).as("only the holder's node is left").isEqualTo(1);
    }

    @Test
    void aReleaseTheServerDidNotConfirmIsNotForgotten() {
        FaultProxy link = opened.add(server.linkToServer());
        ZkLockDriver holder = driver(link.endpoint());
        Attempt attempt = holder.tryAcquire(request("driver-release"));
        Grant grant = attempt.grant();

        link.blackhole();
        assertThatThrownBy(() -> holder.release(grant)).isInstanceOf(BackendUnavailableException.class);
        cutAndHeal(link);

        retryUntilConfirmed(() -> holder.release(grant));
        assertThat(nodes("driver-release")).isZero();
    }

    // ---- the same at the SPI: a removal the server did not confirm throws, and the engine's next
    // call of it (here: the test's) still removes the node. The link goes silent first (the delete
    // is sent and held), then is reset (the held delete is lost with the connection), then heals.

    /** Resets the link (losing what it held) once the client noticed, then heals it. */
    private static void cutAndHeal(FaultProxy link) {
        assertThat(link.inFlight()).as("the delete is held in the silence").isTrue();
        link.drop();
        link.heal();
    }

    /** What the engine's cleanup does: call the removal again until it returns normally. */
    private static void retryUntilConfirmed(Runnable removal) {
        ENV.awaitUntil("the removal is confirmed", ENV.scaled(Duration.ofSeconds(10)), () -> {
            try {
                removal.run();
                return true;
            } catch (BackendUnavailableException e) {
                return false;
            }
        });
    }

    private static LockRequest request(String name) {
        return new LockRequest(name, UUID.randomUUID().toString().replace("-", ""), LONG_LEASE);
    }

    private ZkLockDriver driver(String hosts) {
        LockOptions options = LockOptions.builder().operationTimeout(ENV.scaled(Duration.ofMillis(500))).build();
        ZkLockDriver driver = ZkLockDriver.connect(ZkEndpoint.parse(URI.create("zookeeper://" + hosts + "/cut-off?sessionTimeout=" + SESSION_MILLIS)),
                options, new RecordingContext());
        opened.add(driver);
        return driver;
    }

    /** Another client acquires, and does so within {@link #AFTER_HEAL} of the heal. */
    private void assertAcquiredSoonAfterHeal(LockClient other, String name, CompletableFuture<Long> healed) throws Exception {
        Optional<Lease> got = other.lock(name).tryAcquire(LONG_LEASE, OUTAGE.plus(AFTER_HEAL).multipliedBy(2));
        long grantedAt = System.nanoTime();
        assertThat(got).as("another client acquires '" + name + "' after the heal").isPresent();
        long healedAt = healed.get();
        Duration afterHeal = Duration.ofNanos(grantedAt - healedAt);
        System.out.printf("[ClientCutOffTest] %s: granted %d ms after the heal%n", name, afterHeal.toMillis());
        assertThat(afterHeal).as("from the heal to the other client's grant").isLessThan(AFTER_HEAL);
        got.get().release();
    }

    /** Drops the link now and heals it after {@link #OUTAGE}; completes with the heal's time. */
    private CompletableFuture<Long> dropFor(FaultProxy link) {
        CompletableFuture<Long> healed = new CompletableFuture<>();
        link.drop();
        scheduler.schedule(() -> {
            link.heal();
            healed.complete(System.nanoTime());
        }, OUTAGE.toNanos(), TimeUnit.NANOSECONDS);
        return healed;
    }

    private LockClient through(FaultProxy link) {
        LockClient client = Locks.connect("zookeeper://" + link.endpoint() + "/cut-off?sessionTimeout=" + SESSION_MILLIS);
        opened.add(client);
        return client;
    }

    private LockClient direct() {
        LockClient client = Locks.connect(server.uri("/cut-off"));
        opened.add(client);
        return client;
    }

    /** @return how many nodes are in line for {@code name} */
    private static int nodes(String name) {
        return operator.inLine("/cut-off", name).size();
    }
}
