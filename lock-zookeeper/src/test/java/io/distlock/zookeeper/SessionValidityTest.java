package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.spi.Attempt;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.Signals;
import io.distlock.zookeeper.internal.ZkEndpoint;
import io.distlock.zookeeper.internal.ZkLockDriver;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease never outlives the session that holds it (issue 9, item 6). A holder with a 4 s session
 * and a 30 s lease is frozen as a whole ({@code SIGSTOP} of its JVM) past its session timeout; the
 * ensemble expires the session and hands the lock to another client. When the holder runs again,
 * its very first look must find its lease invalid — before its connection has noticed anything.
 *
 * <p>And a grant is bound to the session that granted it (issue 20, item 1): the driver names the
 * session its lock node lives with, confirms only that session with the answers that prove it alive,
 * and reports the end of exactly that session — so that the engine can give back a grant whose
 * session ended before it was recorded, and lose every lease the session granted, recorded or not.
 */
class SessionValidityTest {

    private static final TestEnvironment ENV = new TestEnvironment();
    private static final int SESSION_MILLIS = 4_000;

    private static ZkServers server;

    @BeforeAll
    static void start() {
        server = ZkServers.single();
    }

    private final Opened opened = new Opened();

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        opened.closeAll();
    }

    @Test
    void aGrantNamesTheSessionItsNodeLivesWithAndThatSessionsEndIsReported() {
        RecordingContext context = new RecordingContext();
        ZkLockDriver driver = opened.add(ZkLockDriver.connect(ZkEndpoint.parse(URI.create(server.uri("/binding?sessionTimeout="
                + SESSION_MILLIS))), LockOptions.defaults(), context));
        long session = driver.zooKeeper().getSessionId();

        Attempt attempt = driver.tryAcquire(new LockRequest("bound", UUID.randomUUID().toString(), Duration.ofSeconds(30)));
        Grant grant = attempt.grant();
        assertThat(grant.session()).as("the session the node lives with (its ephemeral owner)").isEqualTo(session);
        assertThat(context.confirmedSessions).as("confirmed before the grant was returned").contains(session);
        assertThat(context.confirmedSessions).as("no confirmation about any other session").containsOnly(session);

        server.expireSession(driver.zooKeeper());
        Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> context.endedSessions.contains(session));
        assertThat(context.endedSessions).as("only the session that ended").containsOnly(session);
        assertThat(context.lost).as("the driver leaves the sweep to the engine, by session").isEmpty();

        // The next grant is bound to the next session, never to the one that ended.
        Awaitility.await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> driver.tryAcquire(
                new LockRequest("after", UUID.randomUUID().toString(), Duration.ofSeconds(30))).isGranted());
        assertThat(driver.zooKeeper().getSessionId()).isNotEqualTo(session);
        assertThat(context.confirmedSessions).contains(driver.zooKeeper().getSessionId());
    }

    @Test
    void aLeaseIsLostWithTheSessionThatGrantedItAndTheNextSessionDoesNotReviveIt() throws Exception {
        LockClient client = opened.add(Locks.connect(server.uri("/binding?sessionTimeout=" + SESSION_MILLIS)));
        Lease lease = client.lock("revived").tryAcquire(Duration.ofSeconds(60)).orElseThrow();
        server.expireSession(client);
        assertThat(lease.lost().toCompletableFuture().get(15, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
        // The client goes on with a new session, whose confirmations vouch for its own grants only.
        Lease next = Awaitility.await().atMost(Duration.ofSeconds(15)).ignoreExceptions()
                .until(() -> client.lock("revived-next").tryAcquire(Duration.ofSeconds(60)).orElse(null), l -> l != null);
        assertThat(next.isValid()).isTrue();
        assertThat(lease.isValid()).as("the lease of the ended session").isFalse();
        next.release();
    }

    @Test
    void aHolderFrozenPastItsSessionWakesUpWithoutAValidLease() throws Exception {
        Process holder = PausedHolder.start(server.uri("/session?sessionTimeout=" + SESSION_MILLIS), "frozen");
        BlockingQueue<String> lines = lines(holder);
        try (LockClient other = Locks.connect(server.uri("/session"))) {
            String held = lines.poll(ENV.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(held).as("the holder's first line").startsWith("HELD ");
            long frozenToken = Long.parseLong(held.substring("HELD ".length()));

            Signals.stop(holder, Duration.ofSeconds(10));
            Lease taken;
            try {
                // Granted once the ensemble expired the frozen holder's session (≈ 4 s).
                Optional<Lease> next = other.lock("frozen").tryAcquire(Duration.ofSeconds(30), ENV.scaled(Duration.ofSeconds(20)));
                assertThat(next).as("the lock after the frozen holder's session expired").isPresent();
                taken = next.get();
                assertThat(taken.fencingToken().orElseThrow()).isGreaterThan(frozenToken);
            } finally {
                Signals.resume(holder, Duration.ofSeconds(10));
            }
            String woke = lines.poll(ENV.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(woke).as("the holder's first look after the thaw, while another client holds the lock")
                    .isNotNull().startsWith("WOKE valid=false");
            assertThat(taken.isValid()).isTrue();
            taken.release();
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aConnectedHolderStaysValidLongPastItsSessionTimeout() {
        int session = 2_000;
        try (LockClient client = Locks.connect(server.uri("/session?sessionTimeout=" + session))) {
            Lease lease = client.lock("kept").tryAcquire(Duration.ofSeconds(60)).orElseThrow();
            // The session is confirmed every quarter of its timeout while the lease is held.
            ENV.assertHoldsUntil("the lease stays valid", System.nanoTime() + ENV.scaled(Duration.ofMillis(2 * session)).toNanos(),
                    lease::isValid);
            assertThat(lease.remaining()).isGreaterThan(Duration.ofMillis(session / 2));
            lease.release();
        }
    }

    @Test
    void anExpiredSessionLosesItsLeasesAndItsWaiterQueuesAgain() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (LockClient a = Locks.connect(server.uri("/session?sessionTimeout=" + SESSION_MILLIS));
             LockClient b = Locks.connect(server.uri("/session")); LockClient c = Locks.connect(server.uri("/session"));
             ZkOperator operator = new ZkOperator(server.connectString())) {
            Lease heldByB = b.lock("awaited").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            Lease heldByA = a.lock("held").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            CompletableFuture<Lease.LossReason> lost = heldByA.lost().toCompletableFuture();
            Future<Optional<Lease>> waiting = executor.submit(() -> a.lock("awaited").tryAcquire(Duration.ofSeconds(30),
                    ENV.scaled(Duration.ofSeconds(20))));
            ENV.awaitUntil("A waits in line", () -> operator.inLine("/session", "awaited").size() == 2);

            server.expireSession(a);

            assertThat(lost.get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
            assertThat(heldByA.isValid()).isFalse();
            assertThat(c.lock("held").tryAcquire(Duration.ofSeconds(30), ENV.handOffTimeout())).as("A's lock, gone with its session")
                    .isPresent();
            ENV.awaitUntil("A's waiter queued again under its new session", () -> operator.inLine("/session", "awaited").size() == 2);
            heldByB.release();
            Optional<Lease> got = waiting.get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS);
            assertThat(got).as("A's waiter, after B released").isPresent();
            assertThat(got.get().isValid()).isTrue();
        } finally {
            executor.shutdownNow();
        }
    }

    private static BlockingQueue<String> lines(Process process) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "paused-holder-output");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }
}
