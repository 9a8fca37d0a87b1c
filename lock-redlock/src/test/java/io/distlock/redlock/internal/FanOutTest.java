package io.distlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisNode;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fan-out's per-call economies keep every answer its own: one encoding sent to every node, and
 * a node's hot connection (kept out of the pool) that a second, overlapping caller does not share.
 */
class FanOutTest {

    private final List<RedisServer> servers = new ArrayList<>();
    private final List<RedlockNode> nodes = new ArrayList<>();

    @BeforeEach
    void start() {
        for (int i = 0; i < 3; i++) {
            RedisServer server = RedisServer.start();
            servers.add(server);
            nodes.add(new RedlockNode(RedisNode.open(RedisEndpoint.parse(URI.create(server.uri()), RedisEndpoint.OPTIONS),
                    Duration.ofSeconds(1), Duration.ofSeconds(1), 2), Duration.ZERO));
        }
    }

    @AfterEach
    void stop() {
        nodes.forEach(node -> node.redis.close());
        servers.forEach(RedisServer::close);
    }

    private static List<PendingReply.Call> set(String name, String token) {
        return List.of(new PendingReply.CommandCall("SET", List.of(LockScripts.lockKey(name), token, "NX", "PX", "10000", "GET")));
    }

    private static long deadline() {
        return System.nanoTime() + Duration.ofSeconds(1).toNanos();
    }

    @Test
    void oneEncodingReachesEveryNodeAndEachAnswersForItself() {
        servers.get(1).call("SET", LockScripts.lockKey("x"), "other");
        List<FanOut.Answer> answers = FanOut.run(nodes, "acquire 'x'", set("x", "mine"), deadline());
        assertThat(answers).allMatch(FanOut.Answer::answered);
        assertThat(answers.get(0).replies().value(0)).isNull();
        assertThat(new String((byte[]) answers.get(1).replies().value(0))).isEqualTo("other");
        assertThat(answers.get(2).replies().value(0)).isNull();
        for (int i : new int[] {0, 2}) {
            assertThat(servers.get(i).call("GET", LockScripts.lockKey("x"))).isEqualTo("mine");
        }
        List<FanOut.Answer> released = FanOut.run(nodes, "release 'x'", List.of(RedlockDriver.releaseCall("x", "mine")), deadline());
        assertThat(released).extracting(a -> a.replies().value(0)).containsExactly(1L, 0L, 1L);
        assertThat(servers.get(1).call("GET", LockScripts.lockKey("x"))).as("compare-and-delete").isEqualTo("other");
    }

    @Test
    void overlappingCallersOnOneNodeEachGetTheirOwnConnectionAndReplies() {
        RedisNode node = nodes.get(0).redis;
        PendingReply.Batch first = PendingReply.Batch.of(set("y", "a"));
        node.send("warm", false, first).await(deadline()); // leaves a hot connection
        PendingReply a = node.send("a", false, PendingReply.Batch.of(set("y", "b")));
        PendingReply b = node.send("b", false, PendingReply.Batch.of(set("y", "c")));
        assertThat(new String((byte[]) b.await(deadline()).value(0))).isEqualTo("a");
        assertThat(new String((byte[]) a.await(deadline()).value(0))).isEqualTo("a");
        for (int i = 0; i < 20; i++) { // poolSize 2: connections go back, none leaks
            assertThat(new String((byte[]) node.send("again", false, set("y", "d")).await(deadline()).value(0))).isEqualTo("a");
        }
    }

    @Test
    void aKilledNodeIsDownForSureAHungOneIsOnlySlow() {
        FanOut.run(nodes, "warm", set("z", "w"), deadline()); // every node has a pooled connection now
        servers.get(0).kill();  // its connection ends: end of stream, then refused
        servers.get(1).pause(); // answers nothing: a read timeout
        try {
            List<FanOut.Answer> answers = FanOut.run(nodes, "acquire 'z'", set("z", "v"),
                    System.nanoTime() + Duration.ofMillis(200).toNanos());
            assertThat(answers.get(0).down()).as("killed: %s", answers.get(0).failure()).isTrue();
            assertThat(answers.get(1).answered()).isFalse();
            assertThat(answers.get(1).down()).as("hung: %s", answers.get(1).failure()).isFalse();
            assertThat(answers.get(2).answered()).isTrue();
            assertThat(FanOut.quorumDown(answers, 2)).as("one down of three").isFalse();
        } finally {
            servers.get(1).resume();
        }
    }
}
