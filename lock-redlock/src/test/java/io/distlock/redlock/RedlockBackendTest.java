package io.distlock.redlock;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redlock.internal.RedlockSettings;
import io.distlock.tck.fixtures.RedisNodes;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bad input of issue 4, and what the URI's options do. */
class RedlockBackendTest {

    private static final String SECRET = "s3cr3t-Pa55";
    private static RedisNodes nodes;

    @BeforeAll
    static void startServers() {
        nodes = RedisNodes.start(3);
    }

    @AfterAll
    static void stopServers() {
        nodes.close();
    }

    private static String hosts(int... ports) {
        StringBuilder out = new StringBuilder();
        for (int port : ports) {
            out.append(out.length() == 0 ? "" : ",").append("127.0.0.1:").append(port);
        }
        return out.toString();
    }

    @Test
    void theQuorumIsAMajorityForOddAndEvenCounts() {
        assertThat(RedlockSettings.parse(URI.create("redlock://" + hosts(1, 2, 3))).quorum()).isEqualTo(2);
        assertThat(RedlockSettings.parse(URI.create("redlock://" + hosts(1, 2, 3, 4))).quorum()).isEqualTo(3);
        assertThat(RedlockSettings.parse(URI.create("redlock://" + hosts(1, 2, 3, 4, 5))).quorum()).isEqualTo(3);
        RedlockSettings settings = RedlockSettings.parse(URI.create("redlock://:" + SECRET + "@" + hosts(1, 2, 3)
                + "/2?nodeTimeout=20&restartDelay=30000&poolSize=4"));
        assertThat(settings.nodeTimeout()).isEqualTo(Duration.ofMillis(20));
        assertThat(settings.restartDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.poolSize()).isEqualTo(4);
        assertThat(settings.nodes()).allSatisfy(node -> {
            assertThat(node.password()).isEqualTo(SECRET);
            assertThat(node.database()).isEqualTo(2);
        });
        assertThat(settings.toString()).doesNotContain(SECRET);
        assertThat(RedlockSettings.parse(URI.create("redlock://" + hosts(1, 2, 3))).nodeTimeout())
                .isEqualTo(Duration.ofMillis(RedlockSettings.DEFAULT_NODE_TIMEOUT_MILLIS));
    }

    @Test
    void fewerThanThreeNodesAreRefused() {
        assertThatThrownBy(() -> Locks.connect("redlock://:" + SECRET + "@" + hosts(nodes.proxy(0).port(), nodes.proxy(1).port())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 3 independent Redis nodes")
                .hasMessageContaining("redis://")
                .hasMessageNotContaining(SECRET);
    }

    @Test
    void aNodeListedTwiceIsRefused() {
        int p = nodes.proxy(0).port();
        assertThatThrownBy(() -> Locks.connect("redlock://:" + SECRET + "@" + hosts(p, nodes.proxy(1).port(), p)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("twice")
                .hasMessageNotContaining(SECRET);
        // The same server under two names is found by its run_id.
        String sameServer = "redlock://localhost:" + nodes.server(0).port() + ",127.0.0.1:" + nodes.server(0).port()
                + ",127.0.0.1:" + nodes.server(1).port();
        assertThatThrownBy(() -> Locks.connect(sameServer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("are the same Redis server");
    }

    @Test
    void aReplicaIsRefused() {
        try (RedisServer replica = RedisServer.builder()
                .arg("--replicaof", nodes.server(0).host(), Integer.toString(nodes.server(0).port())).start()) {
            String uri = "redlock://" + hosts(nodes.server(0).port(), replica.port(), nodes.server(1).port());
            assertThatThrownBy(() -> Locks.connect(uri))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is a replica");
        }
    }

    @Test
    void aLeaseShorterThanTwicheThePerNodeTimeoutIsRefused() {
        try (LockClient client = Locks.connect(nodes.uri("redlock") + "?nodeTimeout=100")) {
            assertThatThrownBy(() -> client.lock("short").tryAcquire(Duration.ofMillis(150)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("shorter than twice the per-node timeout (nodeTimeout=100 ms)");
            Lease lease = client.lock("short").tryAcquire(Duration.ofMillis(200)).orElseThrow();
            assertThatThrownBy(() -> lease.extend(Duration.ofMillis(150))).isInstanceOf(IllegalArgumentException.class);
            assertThat(lease.isValid()).isTrue();
            lease.release();
        }
    }

    @Test
    void badOptionValuesAreRefusedWithoutThePassword() {
        String base = "redlock://:" + SECRET + "@" + hosts(1, 2, 3);
        for (String bad : new String[] {"?nodeTimeout=0", "?nodeTimeout=abc", "?restartDelay=-5", "?poolSize=100",
                "?what=" + SECRET}) {
            assertThatThrownBy(() -> Locks.connect(base + bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageNotContaining(SECRET);
        }
    }

    @Test
    void aPasswordProtectedQuorumWorks() {
        try (RedisNodes secured = RedisNodes.start(3, SECRET);
             LockClient client = Locks.connect(secured.uri("redlock"))) {
            Lease lease = client.lock("secured").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(lease.extend(Duration.ofSeconds(5))).isTrue();
            lease.release();
        }
        try (RedisNodes secured = RedisNodes.start(3, SECRET)) {
            String wrong = secured.uri("redlock").replace(SECRET, "wrong-one");
            assertThatThrownBy(() -> Locks.connect(wrong)).hasMessageNotContaining("wrong-one");
        }
    }
}
