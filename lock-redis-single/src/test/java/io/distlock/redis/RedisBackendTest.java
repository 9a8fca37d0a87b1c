package io.distlock.redis;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.RedisCluster;
import io.distlock.tck.fixtures.RedisServer;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The single-Redis backend as a user meets it: through {@link Locks#connect}, on a real server. */
class RedisBackendTest {

    private static final String SECRET = "pw-Xq81-secret";
    private static final Duration LEASE = Duration.ofSeconds(30);

    private RedisServer redis;

    @BeforeEach
    void startServer() {
        redis = RedisServer.start();
    }

    @AfterEach
    void stopServer() {
        redis.close();
    }

    @Test
    void describesItselfAsAnEfficiencyLockWithBestEffortFences() {
        try (LockClient client = Locks.connect(redis.uri())) {
            assertThat(client.backend().scheme()).isEqualTo("redis");
            assertThat(client.backend().guarantee()).isEqualTo(Guarantee.EFFICIENCY);
            assertThat(client.backend().features()).containsExactlyInAnyOrder(Feature.FENCING_TOKENS,
                    Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION, Feature.WAIT_NOTIFICATION,
                    Feature.INSPECTION, Feature.REVOCATION, Feature.READ_WRITE, Feature.SEMAPHORE);
        }
    }

    @Test
    void acquiresWithIncreasingFencesAndReleasesOnlyItsOwnLock() {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri())) {
            Lease first = a.lock("orders").tryAcquire(LEASE).orElseThrow();
            assertThat(b.lock("orders").tryAcquire(LEASE)).as("held by a").isEmpty();
            assertThat(redis.call("PTTL", "distlock:{orders}")).asInstanceOf(
                    org.assertj.core.api.InstanceOfAssertFactories.LONG).isBetween(29_000L, 30_000L);
            first.release();
            Lease second = b.lock("orders").tryAcquire(LEASE).orElseThrow();
            assertThat(second.fencingToken().getAsLong()).isGreaterThan(first.fencingToken().getAsLong());
            first.release(); // idempotent, and never someone else's lock
            assertThat(redis.call("EXISTS", "distlock:{orders}")).isEqualTo(1L);
            second.release();
            assertThat(redis.call("EXISTS", "distlock:{orders}")).isEqualTo(0L);
            assertThat(redis.call("GET", "distlock:{orders}:fence")).isEqualTo("2");
        }
    }

    @Test
    void aKeyOfTheWrongTypeIsAClearErrorAndNothingIsWritten() {
        redis.call("HSET", "distlock:{jobs}", "field", "value");
        try (LockClient client = Locks.connect(redis.uri())) {
            assertThatThrownBy(() -> client.lock("jobs").tryAcquire(LEASE))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("distlock:{jobs}")
                    .hasMessageContaining("hash")
                    .hasMessageContaining(redis.endpoint());
            assertThat(redis.call("TYPE", "distlock:{jobs}")).isEqualTo("hash");
            assertThat(redis.call("EXISTS", "distlock:{jobs}:fence")).as("no fence written").isEqualTo(0L);

            redis.call("LPUSH", "distlock:{queue}:fence", "x");
            assertThatThrownBy(() -> client.lock("queue").tryAcquire(LEASE))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("distlock:{queue}:fence").hasMessageContaining("list");
            redis.call("SET", "distlock:{text}:fence", "not-a-number");
            assertThatThrownBy(() -> client.lock("text").tryAcquire(LEASE))
                    .isInstanceOf(LockException.class).hasMessageContaining("not a counter");
            assertThat(redis.call("EXISTS", "distlock:{queue}", "distlock:{text}")).as("no lock written").isEqualTo(0L);
        }
    }

    @Test
    void aWaiterIsHandedTheLockByNotificationNotByPolling() throws Exception {
        // Polling alone would take the holder's whole 30 s lease (the back-off is capped far above it).
        LockOptions slowPolling = LockOptions.builder().retryBackoff(Duration.ofMillis(5), Duration.ofMinutes(1)).build();
        try (LockClient holder = Locks.connect(URI.create(redis.uri()), slowPolling);
             LockClient waiter = Locks.connect(URI.create(redis.uri()), slowPolling)) {
            Lease held = holder.lock("handoff").tryAcquire(LEASE).orElseThrow();
            DistributedLock lock = waiter.lock("handoff");
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return lock.tryAcquire(LEASE, Duration.ofSeconds(10));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(5, SECONDS).until(() -> subscribers("distlock:released:{handoff}") == 1L);

            long released = System.nanoTime();
            held.release();
            Optional<Lease> handedOver = waiting.get(5, SECONDS);
            assertThat(handedOver).isPresent();
            assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(5));
            handedOver.get().release();
            await().atMost(5, SECONDS).until(() -> subscribers("distlock:released:{handoff}") == 0L);
        }
    }

    @Test
    void aSlowSubscriberConnectionDoesNotStretchTheCallersMaxWait() throws Exception {
        try (io.distlock.tck.fixtures.FaultProxy proxy = io.distlock.tck.fixtures.FaultProxy.start(redis.host(), redis.port());
             LockClient holder = Locks.connect(redis.uri());
             LockClient waiter = Locks.connect("redis://" + proxy.endpoint())) {
            holder.lock("held-a").tryAcquire(LEASE).orElseThrow();
            holder.lock("held-b").tryAcquire(LEASE).orElseThrow();
            java.util.Set<Integer> before = new java.util.HashSet<>();
            proxy.connections().forEach(c -> before.add(c.number()));
            assertThat(waiter.lock("held-a").tryAcquire(LEASE, Duration.ofMillis(200))).isEmpty(); // starts the subscriber
            // The waiter's subscriber, and the holder's (which listens for revocations since its first grant).
            await().atMost(5, SECONDS).until(() -> subscribers("distlock:subscriber") == 2L);
            List<io.distlock.tck.fixtures.FaultProxy.Connection> opened = proxy.connections().stream()
                    .filter(c -> !before.contains(c.number())).toList();
            assertThat(opened).as("the subscriber's connection").hasSize(1);
            opened.get(0).latency(Duration.ofSeconds(1)); // its SUBSCRIBE confirmations now take 2 s

            long start = System.nanoTime();
            assertThat(waiter.lock("held-b").tryAcquire(LEASE, Duration.ofMillis(200))).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("maxWait 200 ms, whatever the subscriber does")
                    .isLessThan(Duration.ofMillis(200 + 300));
        }
    }

    @Test
    void aKilledServerEndsAnAutoRenewedLeaseThroughLost() throws Exception {
        LockOptions quick = LockOptions.builder().connectTimeout(Duration.ofMillis(500))
                .operationTimeout(Duration.ofMillis(500)).build();
        try (LockClient client = Locks.connect(URI.create(redis.uri()), quick)) {
            Lease lease = client.lock("killed").acquire(Duration.ofSeconds(2)).autoRenew();
            redis.kill();
            Lease.LossReason reason = lease.lost().toCompletableFuture().get(15, SECONDS);
            assertThat(reason).isEqualTo(Lease.LossReason.EXPIRED);
            assertThat(lease.isValid()).isFalse();
        }
    }

    @Test
    void aRestartWithoutPersistenceRevokesTheLeaseAtTheNextRenewal() throws Exception {
        try (LockClient client = Locks.connect(redis.uri())) {
            Lease lease = client.lock("restarted").acquire(Duration.ofSeconds(1)).autoRenew();
            redis.kill();
            redis.restart();
            assertThat(lease.lost().toCompletableFuture().get(15, SECONDS)).isEqualTo(Lease.LossReason.NOT_HELD);
            // The pooled connections died with the old process; the client recovers by itself.
            assertThat(client.lock("restarted").tryAcquire(LEASE)).isPresent();
        }
    }

    @Test
    void aRefusedConnectionIsBackendUnavailableWithinTheConnectTimeoutAndShowsNoPassword() {
        int port = FreePorts.find();
        LockOptions options = LockOptions.builder().connectTimeout(Duration.ofSeconds(1)).build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Locks.connect(URI.create("redis://alice:" + SECRET + "@127.0.0.1:" + port), options))
                .isInstanceOfSatisfying(BackendUnavailableException.class, e -> {
                    assertThat(e.endpoint()).isEqualTo("127.0.0.1:" + port);
                    assertThat(e.getMessage()).contains("127.0.0.1:" + port).contains("Connection refused");
                    assertThat(stackTraceOf(e)).doesNotContain(SECRET);
                });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void aHungServerIsBackendUnavailableWithinTheOperationTimeout() {
        LockOptions options = LockOptions.builder().connectTimeout(Duration.ofMillis(500))
                .operationTimeout(Duration.ofMillis(300)).build();
        try (LockClient client = Locks.connect(URI.create(redis.uri()), options)) {
            client.lock("warm-up").tryAcquire(LEASE).orElseThrow().release();
            redis.pause();
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.lock("hung").tryAcquire(LEASE))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining(redis.endpoint());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            redis.resume();
        }
    }

    @Test
    void theFirstAttemptAfterTheServerDiedIsBackendUnavailable() {
        // Issue 9, item 10: the pooled connection is dead, and returning it made the pool try a new
        // one, refused: that failure escaped as a plain LockException ("Could not return the broken
        // resource to the pool") instead of saying that the server cannot be reached.
        LockOptions quick = LockOptions.builder().connectTimeout(Duration.ofMillis(500))
                .operationTimeout(Duration.ofMillis(500)).build();
        try (LockClient client = Locks.connect(URI.create(redis.uri()), quick)) {
            client.lock("warm-up").tryAcquire(LEASE).orElseThrow().release();
            redis.kill();
            assertThatThrownBy(() -> client.lock("after-death").tryAcquire(LEASE))
                    .isInstanceOfSatisfying(BackendUnavailableException.class,
                            e -> assertThat(e.endpoint()).isEqualTo(redis.endpoint()));
            assertThatThrownBy(() -> client.lock("after-death").tryAcquire(LEASE))
                    .as("and every attempt after it").isInstanceOf(BackendUnavailableException.class);
        }
    }

    @Test
    void closingReleasesAThousandLeasesInOnePipelinedBatch() {
        // 1000 releases one round trip each would take 10 s through 5 ms of latency each way; close()
        // allows one operation timeout for all of them.
        try (io.distlock.tck.fixtures.FaultProxy proxy = io.distlock.tck.fixtures.FaultProxy.start(redis.host(), redis.port())) {
            LockClient client = Locks.connect(URI.create("redis://" + proxy.endpoint()),
                    LockOptions.builder().operationTimeout(Duration.ofSeconds(1)).build());
            for (int i = 0; i < 1000; i++) {
                client.lock("batch-" + i).tryAcquire(LEASE).orElseThrow();
            }
            assertThat(redis.call("DBSIZE")).isEqualTo(3000L); // each lock, its owner record and its fence
            proxy.latency(Duration.ofMillis(5));
            long start = System.nanoTime();
            client.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
            assertThat(redis.call("DBSIZE")).as("only the fences are left").isEqualTo(1000L);
        }
    }

    @Test
    void aWrongPasswordIsAClearErrorWithoutThePassword() {
        try (RedisServer secured = RedisServer.builder().password("right-" + SECRET).start()) {
            String wrong = "redis://default:" + SECRET + "@" + secured.endpoint();
            assertThatThrownBy(() -> Locks.connect(wrong))
                    .isInstanceOf(io.distlock.AuthenticationException.class)
                    .hasMessageContaining("refused the credentials")
                    .hasMessageContaining(secured.endpoint())
                    .satisfies(e -> assertThat(stackTraceOf(e)).doesNotContain(SECRET));
            assertThatThrownBy(() -> Locks.connect("redis://" + secured.endpoint()))
                    .isInstanceOf(io.distlock.AuthenticationException.class)
                    .hasMessageContaining("requires a password");
            try (LockClient client = Locks.connect(secured.uri())) {
                assertThat(client.lock("secured").tryAcquire(LEASE)).isPresent();
            }
        }
    }

    @Test
    void malformedUrisAreIllegalArgumentsWithoutThePassword() {
        for (String uri : List.of("redis://:" + SECRET + "@", "redis://:" + SECRET + "@127.0.0.1:port",
                "redis://:" + SECRET + "@127.0.0.1:" + redis.port() + "/zero",
                "redis://:" + SECRET + "@127.0.0.1:" + redis.port() + "?unknown=" + SECRET,
                "redis://:" + SECRET + "@127.0.0.1:" + redis.port() + "?poolSize=many")) {
            assertThatThrownBy(() -> Locks.connect(uri)).as(uri)
                    .isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> assertThat(stackTraceOf(e)).doesNotContain(SECRET));
        }
    }

    @Test
    void databaseAndClientNameOptionsApply() {
        try (LockClient client = Locks.connect(redis.uri() + "/2?clientName=distlock-test&poolSize=2")) {
            Lease lease = client.lock("db2").tryAcquire(LEASE).orElseThrow();
            assertThat(redis.call("EXISTS", "distlock:{db2}")).as("not in database 0").isEqualTo(0L);
            assertThat(redis.call("CLIENT", "LIST").toString()).contains("name=distlock-test").contains("db=2");
            lease.release();
        }
    }

    private long subscribers(String channel) {
        List<?> reply = (List<?>) redis.call("PUBSUB", "NUMSUB", channel);
        return (Long) reply.get(1);
    }

    private static String stackTraceOf(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    /**
     * A redis:// client pointed at one node of a Redis Cluster: a lock whose slot another node
     * serves is refused with the cluster's redirect, and the message says which scheme reaches a
     * cluster — not a busy lock, not a failure to connect.
     */
    @Test
    void aClientPointedAtAClusterNodeIsToldToUseTheClusterScheme() {
        try (RedisCluster cluster = RedisCluster.start(2, 0)) {
            int node = cluster.primaries().get(0);
            String name = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "elsewhere-" + i)
                    .filter(n -> cluster.primaryOf(cluster.slot(LockScripts.lockKey(n))) != node).findFirst().orElseThrow();
            try (LockClient client = Locks.connect("redis://" + cluster.nodeEndpoints().get(node))) {
                assertThatThrownBy(() -> client.lock(name).tryAcquire(Duration.ofSeconds(10)))
                        .isInstanceOf(LockException.class).isNotInstanceOf(BackendUnavailableException.class)
                        .hasMessageContaining("Redis Cluster node").hasMessageContaining("redis-cluster://");
            }
        }
    }
}
