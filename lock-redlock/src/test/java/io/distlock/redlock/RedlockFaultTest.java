package io.distlock.redlock;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisNodes;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The Redlock-specific fault checks of issue 4, on three real {@code redis-server} processes behind
 * fault proxies: what the generic TCK rules cannot say about a quorum of Redis nodes.
 */
class RedlockFaultTest {

    private static final Duration LEASE = Duration.ofSeconds(10);
    private static RedisNodes nodes;

    private final String name = "fault-" + UUID.randomUUID();

    @BeforeAll
    static void startServers() {
        nodes = RedisNodes.start(3);
    }

    @AfterAll
    static void stopServers() {
        nodes.close();
    }

    @AfterEach
    void heal() {
        nodes.healAll();
    }

    private static LockClient connect(String options) {
        return Locks.connect(URI.create(nodes.uri("redlock") + options), LockOptions.defaults());
    }

    private static long keysOn(int node, String lockName) {
        return (Long) nodes.server(node).call("EXISTS", "distlock:{" + lockName + "}");
    }

    @Test
    void oneOfThreeDownStillAcquires() {
        try (LockClient client = connect("")) {
            nodes.server(2).kill();
            Optional<Lease> lease = client.lock(name).tryAcquire(LEASE);
            assertThat(lease).isPresent();
            lease.get().release();
        }
    }

    @Test
    void twoOfThreeDownFailFastAndLeaveNothingHeldOnTheLiveNode() throws InterruptedException {
        try (LockClient client = connect("")) {
            nodes.server(0).kill();
            nodes.server(1).kill();
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.lock(name).tryAcquire(LEASE))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("only 1 of 3 Redis nodes answered")
                    .hasMessageContaining("quorum 2")
                    .hasMessageContaining(nodes.proxy(0).endpoint());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
            // A waiting acquire keeps trying for its whole wait (the nodes may come back), then says
            // why it got nothing: never an empty result, which would mean someone else holds the lock.
            Duration maxWait = Duration.ofMillis(300);
            start = System.nanoTime();
            assertThatThrownBy(() -> client.lock(name).tryAcquire(LEASE, maxWait))
                    .isInstanceOf(BackendUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(maxWait, maxWait.plusSeconds(1));
            await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                    assertThat(keysOn(2, name)).as("the live node granted its vote, which was taken back").isZero());
        }
    }

    @Test
    void twoOfThreeHungIsUnknownNotBusyAndCostsOnlyThePerNodeTimeout() {
        try (LockClient client = connect("")) {
            nodes.server(0).pause();
            nodes.server(1).pause();
            long start = System.nanoTime();
            // Nobody holds the lock: two nodes that do not answer are not contention.
            assertThatThrownBy(() -> client.lock(name).tryAcquire(LEASE))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("only 1 of 3 Redis nodes answered");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(50 + 250));
            nodes.server(0).resume();
            nodes.server(1).resume();
            Lease lease = client.lock(name + "-after").tryAcquire(LEASE).orElseThrow();
            lease.release();
        }
    }

    @Test
    void aSlowNodeDoesNotHoldUpTheAcquireAndValidityCountsTheTimeSpent() throws InterruptedException {
        nodes.proxy(0).latency(Duration.ofMillis(200));
        // Default per-node timeout (50 ms): the slow node's vote is lost, the other two make the quorum.
        try (LockClient client = connect("")) {
            long start = System.nanoTime();
            Lease lease = client.lock(name).tryAcquire(LEASE).orElseThrow();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).isLessThan(Duration.ofMillis(50 + 150)); // the per-node timeout, plus scheduling
            // The engine counts from its own start, a little after this test's (a millisecond or so on a
            // loaded machine, in a JVM still loading classes): well under the 50 ms this checks are spent.
            assertThat(lease.remaining()).isLessThanOrEqualTo(LEASE.minus(took).minus(LockOptions.defaults().clockDrift(LEASE))
                    .plusMillis(5));
            lease.release();
        }
        // A per-node timeout above the delay: the slow node's grant counts, and its 400 ms round trip is spent.
        try (LockClient client = connect("?nodeTimeout=1000")) {
            long start = System.nanoTime();
            Lease lease = client.lock(name + "-patient").tryAcquire(LEASE).orElseThrow();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(400)).isLessThan(Duration.ofMillis(1000));
            assertThat(lease.remaining()).isLessThanOrEqualTo(LEASE.minusMillis(400).minus(LockOptions.defaults().clockDrift(LEASE)));
            assertThat(keysOn(0, name + "-patient")).as("the slow node granted it too").isOne();
            lease.release();
        }
    }

    @Test
    void aFailedAttemptTakesBackEveryVoteIncludingALateOne() {
        // Another owner holds node 0; node 1 is slow: its SET lands after the attempt has given up.
        // Had node 1 answered in time, its vote and node 2's would have made a quorum: unknown, not busy.
        nodes.server(0).call("SET", "distlock:{" + name + "}", "someone-else", "PX", "10000");
        nodes.proxy(1).latency(Duration.ofMillis(150));
        try (LockClient client = connect("")) {
            assertThatThrownBy(() -> client.lock(name).tryAcquire(LEASE)).isInstanceOf(BackendUnavailableException.class);
        }
        assertThat(keysOn(2, name)).as("node 2's vote was taken back at once").isZero();
        // The release to node 1 travels behind the late SET and deletes it.
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(10)).untilAsserted(() ->
                assertThat(keysOn(1, name)).as("node 1's late vote was taken back").isZero());
        assertThat(nodes.server(0).call("GET", "distlock:{" + name + "}")).isEqualTo("someone-else");
    }

    @Test
    void aRestartDelayKeepsARestartedNodeOutOfTheVote() throws InterruptedException {
        // The delay is the longest lease in use, as the Redlock write-ups ask.
        Duration leaseA = Duration.ofSeconds(2);
        String delay = "?restartDelay=" + leaseA.toMillis();
        // Servers (re)started by earlier tests are within the delay too: wait until every one has been up that long.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
            for (int i = 0; i < nodes.size(); i++) {
                String info = (String) nodes.server(i).call("INFO", "server");
                long uptime = Long.parseLong(info.replaceAll("(?s).*uptime_in_seconds:(\\d+).*", "$1"));
                if (uptime * 1000 < leaseA.toMillis()) {
                    return false;
                }
            }
            return true;
        });
        nodes.server(0).kill();
        try (LockClient a = connect(delay); LockClient b = connect(delay); LockClient naive = connect("")) {
            Lease held = a.lock(name).tryAcquire(leaseA).orElseThrow(); // on nodes 1 and 2 only
            nodes.server(0).restart();                                    // back, empty
            nodes.server(1).kill();                                       // one of A's nodes forgets the lock
            nodes.server(1).restart();
            assertThat(b.lock(name).tryAcquire(leaseA)).as("B with the restart delay").isEmpty();
            // The contrast: a client without the delay counts the two empty nodes and double-grants
            // (waiting, if node 0 is still being reconnected in the background since its restart).
            Optional<Lease> doubleGrant = naive.lock(name).tryAcquire(Duration.ofMillis(500), Duration.ofSeconds(1));
            assertThat(doubleGrant).as("without a restart delay, the empty nodes vote").isPresent();
            assertThat(held.isValid()).isTrue();
            doubleGrant.get().release();
            Duration window = held.remaining().minusMillis(100);
            await("B stays out while A's lease is valid").during(window).atMost(window.plusSeconds(1))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> notGranted(b, name, leaseA));
            held.release();
            // Once the restarted nodes' uptime passes the delay, B gets the lock.
            assertThat(b.lock(name).tryAcquire(leaseA, Duration.ofSeconds(4))).isPresent();
        }
    }

    /** The default per-node timeout (50 ms), scaled like every TCK timing on a slow machine. */
    private static final long NODE_TIMEOUT_MILLIS = Math.round(50 * new io.distlock.tck.TestEnvironment().timeoutFactor());

    /** The median of {@code count} acquire + release pairs, in µs. */
    private static long medianAcquireReleaseMicros(LockClient client, String lockName, int count) {
        long[] micros = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            client.lock(lockName).tryAcquire(LEASE).orElseThrow().release();
            micros[i] = (System.nanoTime() - start) / 1000;
        }
        java.util.Arrays.sort(micros);
        return micros[count / 2];
    }

    @Test
    void aNodeThatAcceptsButNeverAnswersCostsOnlyItsFirstOperation() {
        // Issue 9, item 9: blackholed before the client ever connected to it. Every operation used to
        // connect to it again and wait out the whole per-node timeout (50 ms).
        nodes.proxy(0).blackhole();
        try (LockClient client = connect("?nodeTimeout=" + NODE_TIMEOUT_MILLIS)) {
            long healthy;
            try (LockClient reference = Locks.connect("redlock://" + nodes.server(0).endpoint() + ","
                    + nodes.server(1).endpoint() + "," + nodes.server(2).endpoint())) {
                healthy = medianAcquireReleaseMicros(reference, name + "-healthy", 100);
            }
            long oneHung = medianAcquireReleaseMicros(client, name, 100);
            assertThat(oneHung).as("p50 with one hung node (healthy: %d µs)", healthy).isLessThan(Math.max(5_000, 10 * healthy));
        }
    }

    @Test
    void aNodeWhoseConnectsHangCostsOnlyItsFirstOperation() throws java.io.IOException {
        // A listener that never accepts, its accept queue full: connects to it hang in SYN until their
        // timeout, which Jedis reports as a suppressed exception (once retried as a dead connection).
        try (java.net.ServerSocket hanging = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            java.util.List<java.net.Socket> queued = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    java.net.Socket socket = new java.net.Socket();
                    queued.add(socket);
                    try {
                        socket.connect(hanging.getLocalSocketAddress(), 100);
                    } catch (java.io.IOException queueFull) {
                        // the queue is full: what this test needs
                    }
                }
                try (LockClient client = Locks.connect(URI.create("redlock://127.0.0.1:" + hanging.getLocalPort() + ","
                        + nodes.proxy(1).endpoint() + "," + nodes.proxy(2).endpoint() + "?nodeTimeout=" + NODE_TIMEOUT_MILLIS),
                        LockOptions.defaults())) {
                    assertThat(medianAcquireReleaseMicros(client, name, 100)).as("p50 in µs").isLessThan(5_000);
                }
            } finally {
                for (java.net.Socket socket : queued) {
                    socket.close();
                }
            }
        }
    }

    /**
     * One attempt that got no lease: busy, or unknown (a node restarted moments ago may still be
     * reconnecting in the background) — anything but a grant.
     */
    private static boolean notGranted(LockClient client, String lockName, Duration lease) {
        try {
            return client.lock(lockName).tryAcquire(lease).map(granted -> false).orElse(true);
        } catch (BackendUnavailableException unknown) {
            return true;
        }
    }

    @Test
    void fiveNodesTolerateTwoFailuresNotThree() {
        try (RedisNodes five = RedisNodes.start(5);
             LockClient client = Locks.connect(five.uri("redlock"))) {
            five.server(0).kill();
            five.server(1).kill();
            Lease lease = client.lock(name).tryAcquire(LEASE).orElseThrow();
            lease.release();
            five.server(2).kill();
            assertThatThrownBy(() -> client.lock(name).tryAcquire(LEASE))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("only 2 of 5")
                    .hasMessageContaining("quorum 3");
        }
    }

    /**
     * Issue 9, item 3: a renewal is lost only when a majority of nodes answered that the lease is
     * gone. One node that forgot the lock (it answers 0) plus one too slow to answer is "could not
     * tell", not a revocation: the lease must not be reported lost, nor deleted on the node that
     * just extended it.
     */
    @Test
    void oneNodeSayingGoneAndOneTooSlowIsNotALoss() {
        try (LockClient client = Locks.connect(nodes.uri("redlock"))) {
            Lease lease = client.lock(name).tryAcquire(Duration.ofSeconds(3)).orElseThrow().autoRenew();
            CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
            long acquired = System.nanoTime();
            long before = pttlOn(2, name);
            nodes.server(0).call("DEL", "distlock:{" + name + "}"); // node 0 forgot it (restarted empty)
            nodes.proxy(1).latency(Duration.ofMillis(200));          // node 1 answers too late for the 50 ms node timeout

            // The keeper renews a third into the lease: node 2's key then lives longer than it would have.
            await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20)).until(() ->
                    pttlOn(2, name) > before - Duration.ofNanos(System.nanoTime() - acquired).toMillis() + 200);

            // The renewal's outcome is decided within two node timeouts (100 ms); for half a second
            // after it, the lease must stand, and so must node 2's key.
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !lost.isDone() && lease.isValid() && pttlOn(2, name) > 0);
            assertThat(lost).as("one 'gone' and one silence decide nothing: the renewal's outcome is unknown").isNotDone();

            nodes.proxy(1).heal();
            nodes.server(0).call("SET", "distlock:{" + name + "}", "someone-else", "PX", "10000");
            lease.release();
        }
    }

    private static Long pttlOn(int node, String lockName) {
        return (Long) nodes.server(node).call("PTTL", "distlock:{" + lockName + "}");
    }
}
