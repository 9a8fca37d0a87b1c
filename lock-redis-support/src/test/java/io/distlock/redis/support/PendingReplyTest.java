package io.distlock.redis.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.RedisFamilyHooks;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.TestCertificates;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The split round trip ("send now, read later") that Redlock's fan-out is built on. */
class PendingReplyTest {

    private RedisServer redis;
    private FaultProxy proxy;
    private RedisNode node;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        proxy = FaultProxy.start(redis.host(), redis.port());
        node = RedisNode.open(RedisEndpoint.parse(URI.create("redis://" + proxy.endpoint()), RedisEndpoint.OPTIONS),
                Duration.ofSeconds(1), Duration.ofSeconds(1), 4);
    }

    @AfterEach
    void stop() {
        node.close();
        proxy.close();
        redis.close();
    }

    private static long deadline(Duration in) {
        return System.nanoTime() + in.toNanos();
    }

    private static PendingReply.ScriptCall release(String name, String token) {
        return RedisNode.releaseCall(name, token);
    }

    @Test
    void sendsAtOnceAndReadsLaterInOrder() {
        node.send("load the script", false, List.of(release("a", "nobody"))).await(deadline(Duration.ofSeconds(1)));
        PendingReply pending = node.send("test", false, List.of(
                new PendingReply.CommandCall("SET", List.of(LockScripts.lockKey("a"), "t1", "NX", "PX", "10000", "GET")),
                new PendingReply.CommandCall("SET", List.of(LockScripts.lockKey("a"), "t2", "NX", "PX", "10000", "GET")),
                release("a", "t2"),
                release("a", "t1")));
        // The calls are on the wire before anyone reads: the server has already run them.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> redis.call("EXISTS", "distlock:{a}").equals(0L));
        PendingReply.Replies replies = pending.await(deadline(Duration.ofSeconds(1)));
        assertThat(replies.value(0)).isNull();
        assertThat(new String((byte[]) replies.value(1))).isEqualTo("t1");
        assertThat(replies.values().subList(2, 4)).containsExactly(0L, 1L);
        assertThat(replies.serverInfo()).isEmpty();
        assertThatThrownBy(() -> pending.await(deadline(Duration.ofSeconds(1)))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void reportsServerInfoOnANewConnectionOnly() {
        PendingReply.Replies first = node.send("info", true, List.of()).await(deadline(Duration.ofSeconds(1)));
        assertThat(first.serverInfo()).hasValueSatisfying(info -> {
            assertThat(info.runId()).hasSize(40);
            assertThat(info.uptimeSeconds()).isNotNegative();
            assertThat(info.role()).isEqualTo("master");
        });
        assertThat(node.send("info", true, List.of()).await(deadline(Duration.ofSeconds(1))).serverInfo())
                .as("the same pooled connection: already told").isEmpty();
    }

    @Test
    void aServerThatLostTheScriptGetsItAgain() {
        node.send("warm", false, List.of(release("b", "t"))).await(deadline(Duration.ofSeconds(1)));
        redis.call("SCRIPT", "FLUSH");
        redis.call("SET", "distlock:{b}", "t");
        assertThat(node.send("release", false, List.of(release("b", "t"))).await(deadline(Duration.ofSeconds(1))).value(0))
                .isEqualTo(1L);
    }

    @Test
    void aServerErrorIsALockExceptionForThatCallOnly() {
        redis.call("HSET", "distlock:{c}", "f", "v");
        PendingReply.Replies replies = node.send("acquire", false, List.of(
                new PendingReply.CommandCall("SET", List.of(LockScripts.lockKey("c"), "t", "NX", "PX", "1000", "GET")),
                new PendingReply.CommandCall("SET", List.of(LockScripts.lockKey("d"), "t", "NX", "PX", "1000", "GET"))))
                .await(deadline(Duration.ofSeconds(1)));
        assertThatThrownBy(() -> replies.value(0)).isInstanceOf(LockException.class).hasMessageContaining("WRONGTYPE");
        assertThat(replies.value(1)).isNull();
    }

    @Test
    void aSlowServerCostsTheDeadlineAndItsConnectionIsDiscarded() {
        node.send("warm", false, List.of()).await(deadline(Duration.ofSeconds(1)));
        proxy.latency(Duration.ofMillis(300));
        long start = System.nanoTime();
        PendingReply pending = node.send("slow", false, List.of(release("e", "t")));
        assertThatThrownBy(() -> pending.await(deadline(Duration.ofMillis(100))))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining(proxy.endpoint());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(290));
        proxy.heal();
        // The late reply went away with its connection; the next call reads its own reply.
        redis.call("SET", "distlock:{e}", "t");
        assertThat(node.send("again", false, List.of(release("e", "t"))).await(deadline(Duration.ofSeconds(1))).value(0))
                .isEqualTo(1L);
    }

    @Test
    void aRestartedServerIsReachedAgainOnAFreshConnection() {
        node.send("warm", true, List.of()).await(deadline(Duration.ofSeconds(1)));
        String runId = (String) redis.call("INFO", "server");
        redis.kill();
        redis.restart();
        PendingReply.Replies replies = node.send("after restart", true, List.of(release("f", "t")))
                .await(deadline(Duration.ofSeconds(1)));
        assertThat(replies.value(0)).isEqualTo(0L);
        assertThat(replies.serverInfo()).as("a new connection, a new server process")
                .hasValueSatisfying(info -> assertThat(runId).doesNotContain(info.runId()));
    }

    @Test
    void anUnreachableServerIsReportedByAwait() {
        RedisNode dead = RedisNode.open(RedisEndpoint.parse(URI.create("redis://127.0.0.1:" + FreePorts.find()),
                RedisEndpoint.OPTIONS), Duration.ofMillis(200), Duration.ofMillis(200), 1);
        try {
            PendingReply pending = dead.send("nothing there", false, List.of());
            assertThatThrownBy(() -> pending.await(deadline(Duration.ofMillis(200))))
                    .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("did not answer");
        } finally {
            dead.close();
        }
    }

    @Test
    void aConnectingSendAnswersAsASendDoes() {
        PendingReply.Replies replies = node.sendConnecting("connect", true).await(deadline(Duration.ofSeconds(2)));
        assertThat(replies.values()).isEmpty();
        assertThat(replies.serverInfo()).hasValueSatisfying(info -> assertThat(info.role()).isEqualTo("master"));
        assertThat(node.send("info", true, List.of()).await(deadline(Duration.ofSeconds(1))).serverInfo())
                .as("the connection it made went back to the pool, and is used again").isEmpty();
    }

    /**
     * A TLS port that accepts and never answers holds a connect in its handshake, for as long as the
     * handshake's bound (10 s here): a connecting send leaves that wait on its own thread, and its
     * await ends at the awaiter's deadline (Redlock's check at connect: rule 5.9 over TLS).
     */
    @Test
    void aConnectingSendToATlsPortThatNeverAnswersEndsAtTheAwaitersDeadline() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             RedisNode stuck = RedisNode.openForFanOut(RedisEndpoint.parse(URI.create("rediss://127.0.0.1:" + silent.getLocalPort()
                     + "?" + RedisFamilyHooks.trustStoreQuery(TestCertificates.shared())), RedisEndpoint.OPTIONS),
                     Duration.ofSeconds(10), Duration.ofSeconds(10), 1)) {
            PendingReply pending = stuck.sendConnecting("connect", true);
            long start = System.nanoTime();
            assertThatThrownBy(() -> pending.await(deadline(Duration.ofMillis(300))))
                    .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("127.0.0.1:" + silent.getLocalPort());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not the handshake's 10 s").isLessThan(Duration.ofSeconds(5));
            assertThat(pending.failure()).contains(RedisFailure.TIMEOUT);
            assertThat(pending.mayHaveReachedServer()).isFalse();
        }
    }
}
