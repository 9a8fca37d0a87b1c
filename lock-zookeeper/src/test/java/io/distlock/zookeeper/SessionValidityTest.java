package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.Signals;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
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
 */
class SessionValidityTest {

    private static final TestEnvironment ENV = new TestEnvironment();
    private static final int SESSION_MILLIS = 4_000;

    private static ZkServers server;

    @BeforeAll
    static void start() {
        server = ZkServers.single();
    }

    @AfterAll
    static void stop() {
        server.close();
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
