package io.distlock.etcd;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.etcd.internal.EtcdEndpoint;
import io.distlock.etcd.internal.EtcdLockDriver;
import io.distlock.spi.DriverContext;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.tck.NodeFaults;
import io.distlock.tck.fixtures.EtcdCluster;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.FreePorts;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the TCK does not show about this backend, on one real etcd member: the session TTL the
 * server allows, an unreachable cluster, authentication and a prefix the user may not write, the
 * session lease revoked by an operator, tokens across a restart of the member with its data, and
 * the shape of the keys (one per request, bound to the client's session lease).
 */
class EtcdBackendTest {

    private static final String PASSWORD = "pw-7f3a-secret";
    private static EtcdCluster etcd;

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stop() {
        etcd.close();
    }

    private static LockClient client(String prefix) {
        return Locks.connect(etcd.uri(prefix + "?sessionTtl=2"));
    }

    @Test
    void aSessionTtlBelowTheServersMinimumIsAClearError() {
        assertThatThrownBy(() -> Locks.connect(etcd.uri("/ttl?sessionTtl=1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sessionTtl=1 s is below the minimum lease TTL")
                .hasMessageContaining("2 s");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> etcd.leases().isEmpty());
    }

    @Test
    void anUnreachableClusterFailsWithinTheConnectTimeoutNamingTheMembersNotThePassword() {
        String members = "127.0.0.1:" + FreePorts.find() + ",127.0.0.1:" + FreePorts.find();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Locks.connect("etcd://alice:" + PASSWORD + "@" + members + "/x",
                LockOptions.builder().connectTimeout(Duration.ofSeconds(1)).build()))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining(members)
                .satisfies(e -> assertThat(((BackendUnavailableException) e).endpoint()).isEqualTo(members))
                .message().doesNotContain(PASSWORD);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void eachRequestIsOneKeyBoundToTheClientsSessionLeaseAndTheTokenIsItsCreateRevision() {
        try (LockClient a = client("/shape"); LockClient b = client("/shape")) {
            Lease held = a.lock("orders/eu").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            List<String> keys = etcd.keys("/shape/locks/");
            assertThat(keys).singleElement().asString().startsWith("/shape/locks/orders%2Feu/");
            assertThat(etcd.createRevision(keys.get(0))).contains(held.fencingToken().orElseThrow());
            long session = etcd.leaseOf(keys.get(0));
            assertThat(session).isNotZero();
            assertThat(a.lock("other").tryAcquire(Duration.ofSeconds(10))).isPresent();
            assertThat(etcd.keys("/shape/locks/")).hasSize(2).allSatisfy(key -> assertThat(etcd.leaseOf(key)).isEqualTo(session));
            assertThat(b.lock("orders/eu").tryAcquire(Duration.ofSeconds(10))).isEmpty();
            held.release();
            assertThat(etcd.keys("/shape/locks/orders%2Feu/")).isEmpty();
        }
        assertThat(etcd.keys("/shape/")).as("closing the clients revokes their sessions, and their keys go with them").isEmpty();
    }

    /**
     * Two clients hand one lock back and forth, each waiting for the other's key to go every time:
     * a client's waiters hear of the deletions in a line through one watch of it that outlives
     * each wait (a watch started per wait is caught up by etcd only every 100 ms when a write
     * lands as it starts, which stalled about one hand-off in a hundred; see LineFeeds). The
     * member's own count of watch streams shows it; the recorded history shows the hand-offs.
     */
    @Test
    void aClientsWaitersHearOfTheLinesDeletionsThroughOneWatchAcrossHandOffs() throws Exception {
        int rounds = 25;
        try (LockClient a = client("/feed"); LockClient b = client("/feed")) {
            a.lock("job").tryAcquire(Duration.ofSeconds(10)).orElseThrow().release(); // each client's watch of revocation records
            b.lock("job").tryAcquire(Duration.ofSeconds(10)).orElseThrow().release();
            long watchesBefore = watchStreamsStarted();
            List<String> history = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> first = CompletableFuture.runAsync(() -> handOff(a, "a", rounds, history));
            CompletableFuture<Void> second = CompletableFuture.runAsync(() -> handOff(b, "b", rounds, history));
            CompletableFuture.allOf(first, second).get(2, TimeUnit.MINUTES);
            long watchesStarted = watchStreamsStarted() - watchesBefore;

            assertThat(history).hasSize(4 * rounds);
            for (int i = 0; i < history.size(); i += 2) {
                String holder = history.get(i).substring(0, 1);
                assertThat(history.subList(i, i + 2)).as("one holder at a time, at %d of %s", i, history)
                        .containsExactly(holder + " acquired", holder + " releases");
            }
            assertThat(watchesStarted).as("watch streams the two clients started for %d waits", 2 * rounds - 1)
                    .isLessThanOrEqualTo(4);
        }
    }

    /** Takes the lock {@code rounds} times; holds it each time until the other client's request waits in line behind it. */
    private static void handOff(LockClient client, String id, int rounds, List<String> history) {
        for (int i = 0; i < rounds; i++) {
            try {
                Lease lease = client.lock("job").tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(30)).orElseThrow();
                history.add(id + " acquired");
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> etcd.keys("/feed/locks/job/").size() == 2
                        || history.stream().filter(e -> e.endsWith("acquired")).count() == 2L * rounds);
                history.add(id + " releases");
                lease.release();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** @return the Watch streams the member has started ({@code grpc_server_started_total}); each jetcd watch is one */
    private static long watchStreamsStarted() throws Exception {
        String metrics;
        try (java.io.InputStream in = URI.create(etcd.clientUrls().get(0) + "/metrics").toURL().openStream()) {
            metrics = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        return metrics.lines()
                .filter(line -> line.startsWith("grpc_server_started_total{") && line.contains("grpc_method=\"Watch\""))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /**
     * The member is frozen, so an acquire's call waits for an answer that does not come (an attempt
     * waits a quarter of the 20 s operation timeout before it is sent again); closing the client
     * must end that acquire at once with {@link IllegalStateException}, not after the attempt's wait.
     */
    @Test
    void closingTheClientEndsAnAcquireWhoseCallIsInFlight() throws Exception {
        LockClient client = Locks.connect(java.net.URI.create(etcd.uri("/closing?sessionTtl=30")),
                LockOptions.builder().operationTimeout(Duration.ofSeconds(20)).build());
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread acquiring = new Thread(() -> {
            try {
                client.lock("job").tryAcquire(Duration.ofSeconds(10));
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        }, "acquire-in-flight");
        NodeFaults.Fault frozen = etcd.pause(0);
        CompletableFuture<Void> closed;
        try {
            acquiring.start();
            Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> acquiring.getState() == Thread.State.TIMED_WAITING || acquiring.getState() == Thread.State.WAITING);
            long closing = System.nanoTime();
            closed = CompletableFuture.runAsync(client::close); // its lease revoke waits for the member

            Throwable failure = outcome.get(10, TimeUnit.SECONDS);
            Duration ended = Duration.ofNanos(System.nanoTime() - closing);

            assertThat(failure).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThat(ended).as("the acquire ended %s after close() began; its attempt would have waited 5 s", ended)
                    .isLessThan(Duration.ofSeconds(2));
        } finally {
            frozen.close();
        }
        closed.get(30, TimeUnit.SECONDS);
    }

    /**
     * {@code LockClient.close()} waits for its last batch at most the operation timeout, and at most
     * a second more for closing connections: with the member frozen, the session lease's revoke
     * (best effort: the lease expires by its TTL) must not wait another operation timeout after the
     * batch used its own.
     */
    @Test
    void closeWithTheMemberFrozenReturnsWithinTheOperationTimeoutAndASecond() {
        Duration operationTimeout = Duration.ofSeconds(2);
        LockClient client = Locks.connect(java.net.URI.create(etcd.uri("/close-bound?sessionTtl=2")),
                LockOptions.builder().operationTimeout(operationTimeout).build());
        client.lock("held").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
        NodeFaults.Fault frozen = etcd.pause(0);
        Duration took;
        try {
            long start = System.nanoTime();
            client.close();
            took = Duration.ofNanos(System.nanoTime() - start);
        } finally {
            frozen.close();
        }
        System.out.printf("[EtcdBackendTest] close() with the member frozen took %d ms%n", took.toMillis());
        assertThat(took).as("close() with the member frozen").isLessThanOrEqualTo(operationTimeout.plusSeconds(1));
        assertThat(took).as("the batch waited for the frozen member").isGreaterThanOrEqualTo(operationTimeout.minusMillis(100));
        // The revoke got no answer: the session lease ends by its TTL, and leaves nothing for the next test.
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> etcd.leases().isEmpty());
    }

    @Test
    void aRevokedSessionLeaseLosesEveryLeaseAndTheWaiterGetsTheLock() throws Exception {
        try (LockClient holder = client("/revoke"); LockClient waiter = client("/revoke")) {
            Lease held = holder.lock("job").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            CompletableFuture<Lease.LossReason> lost = held.lost().toCompletableFuture();
            CompletableFuture<Optional<Lease>> next = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.lock("job").tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> etcd.keys("/revoke/locks/job/").size() == 2);

            etcd.revokeLease(etcd.leaseOf(etcd.keys("/revoke/locks/job/").get(0)));

            assertThat(lost.get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
            assertThat(held.isValid()).isFalse();
            Lease second = next.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(second.fencingToken().orElseThrow()).isGreaterThan(held.fencingToken().orElseThrow());
            second.release();
            // The holder's client lives on with a new session.
            Lease again = holder.lock("job").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(again.fencingToken().orElseThrow()).isGreaterThan(second.fencingToken().orElseThrow());
            again.release();
        }
    }

    /**
     * A grant is bound to the session lease its key is bound to (issue 20, item 1): the driver confirms
     * that lease before it binds anything to it, names it on the grant, and reports the end of exactly
     * that lease — so that the engine gives back a grant whose lease was lost before it was recorded,
     * and loses every lease it granted, recorded or not.
     */
    @Test
    void aGrantNamesItsSessionLeaseAndThatLeasesEndIsReported() {
        List<Object> confirmed = new CopyOnWriteArrayList<>();
        List<Object> ended = new CopyOnWriteArrayList<>();
        DriverContext context = new DriverContext() {
            @Override
            public void leaseLost(Grant grant, Lease.LossReason reason) {
                throw new AssertionError("the driver leaves the sweep to the engine, by session: " + grant);
            }

            @Override
            public void connectionSuspended() {
            }

            @Override
            public void connectionRestored() {
            }

            @Override
            public void sessionConfirmed(Object session, long sentAtNanos, Duration sessionTimeout) {
                confirmed.add(session);
            }

            @Override
            public void sessionEnded(Object session) {
                ended.add(session);
            }
        };
        try (EtcdLockDriver driver = EtcdLockDriver.connect(EtcdEndpoint.parse(URI.create(etcd.uri("/bound?sessionTtl=2"))),
                LockOptions.defaults(), context)) {
            long lease = driver.sessionLeaseId();
            assertThat(confirmed).as("confirmed at the connect, before anything is bound to it").contains(lease);
            Grant grant = driver.tryAcquire(new LockRequest("job", "owner-" + System.nanoTime(), Duration.ofSeconds(30))).grant();
            assertThat(grant.session()).isEqualTo(lease);
            assertThat(etcd.leaseOf(etcd.keys("/bound/locks/job/").get(0))).isEqualTo(lease);

            etcd.revokeLease(lease);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> ended.contains(lease));
            assertThat(ended).containsOnly(lease);
            Grant next = Awaitility.await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> driver.tryAcquire(
                    new LockRequest("job", "owner-" + System.nanoTime(), Duration.ofSeconds(30))).grant(), g -> g != null);
            assertThat(next.session()).as("bound to the new session lease").isNotEqualTo(lease)
                    .isEqualTo(driver.sessionLeaseId());
            assertThat(confirmed).contains(next.session());
        }
    }

    @Test
    void fencingTokensKeepIncreasingAcrossARestartOfTheMemberWithItsData() {
        long before;
        try (LockClient a = client("/restart")) {
            Lease lease = a.lock("job").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            before = lease.fencingToken().orElseThrow();
            lease.release();
        }
        etcd.stop(0);
        etcd.start(0);
        try (LockClient a = client("/restart")) {
            Lease lease = a.lock("job").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(lease.fencingToken().orElseThrow()).isGreaterThan(before);
            lease.release();
        }
    }

    @Test
    void tlsToAMemberThatServesPlainHttpIsAnAuthenticationExceptionNotAnOutage() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> Locks.connect(etcd.uri("/plain?sessionTtl=2&tls=true"),
                LockOptions.builder().connectTimeout(Duration.ofSeconds(5)).build()))
                .isInstanceOf(io.distlock.AuthenticationException.class)
                // etcd closes the connection on a ClientHello: the JDK says "Remote host terminated the handshake".
                .hasMessageContaining("TLS handshake with etcd member " + etcd.endpoints());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    }

    /**
     * The other side of the test above: a link that resets every connection (a dropped route, a
     * firewall) also ends a TLS handshake with a reset, as etcd serving plain HTTP sometimes does; it
     * answers nothing in plaintext either, so it is an outage, never a TLS refusal.
     */
    @Test
    void tlsThroughALinkThatResetsEveryConnectionIsAnOutageNotATlsRefusal() {
        try (FaultProxy link = FaultProxy.start("127.0.0.1", Integer.parseInt(etcd.memberEndpoints().get(0).split(":")[1]))) {
            link.drop();
            assertThatThrownBy(() -> Locks.connect("etcd://" + link.endpoint() + "/dropped?sessionTtl=2&tls=true",
                    LockOptions.builder().connectTimeout(Duration.ofSeconds(2)).build()))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining(link.endpoint());
            assertThat(link.requestsSent()).as("the link was tried").isPositive();
        }
    }

    @Test
    void credentialsForAClusterWithoutAuthAreAnAuthenticationExceptionThatSaysSo() {
        assertThatThrownBy(() -> Locks.connect(etcd.uri("/noauth?sessionTtl=2").replace("etcd://", "etcd://alice:" + PASSWORD + "@")))
                .isInstanceOf(io.distlock.AuthenticationException.class)
                .hasMessageContaining("authentication off")
                .message().doesNotContain(PASSWORD);
    }

    @Test
    void authenticationAndAPrefixTheUserMayNotWrite() {
        try (EtcdCluster secured = EtcdCluster.single()) {
            secured.enableAuth("root-" + PASSWORD);
            secured.addUser("alice", PASSWORD, "/alice/");
            try (LockClient alice = Locks.connect(secured.uri("/alice?sessionTtl=2").replace("etcd://", "etcd://alice:" + PASSWORD + "@"))) {
                Lease lease = alice.lock("job").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
                assertThat(lease.fencingToken()).isPresent();
                lease.release();
            }
            assertThatThrownBy(() -> Locks.connect(secured.uri("/bob?sessionTtl=2").replace("etcd://", "etcd://alice:" + PASSWORD + "@")))
                    .isInstanceOf(io.distlock.AccessDeniedException.class)
                    .hasMessageContaining("permission denied")
                    .hasMessageContaining("/bob/")
                    .message().doesNotContain(PASSWORD);
            assertThatThrownBy(() -> Locks.connect(secured.uri("/alice?sessionTtl=2").replace("etcd://", "etcd://alice:wrong-" + PASSWORD + "@")))
                    .isInstanceOf(io.distlock.AuthenticationException.class)
                    .hasMessageContaining("authentication failed")
                    .message().doesNotContain(PASSWORD);
        }
    }
}
