package io.distlock.rediscluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.fixtures.RedisCluster;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ?replicas=N}: each grant and extension is followed by {@code WAIT N waitTimeout} on its
 * slot's primary, and counts only with that many acknowledgements. On the module's shared cluster
 * ({@link SharedCluster}: 2 replicas per primary); a test that freezes replicas lets them run again
 * and leaves the cluster settled.
 */
class RedisClusterWaitTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = SharedCluster.get();
    }

    @Test
    void aConfirmedGrantIsOnAReplicaOfItsSlotsPrimaryWhenItIsReturned() {
        String name = "wait-confirmed";
        try (LockClient client = Locks.connect(SharedCluster.uri("?replicas=2&waitTimeout=1000"));
             LockClient other = Locks.connect(SharedCluster.uri("?replicas=2&waitTimeout=1000"))) {
            Lease lease = client.lock(name).tryAcquire(LEASE).orElseThrow();
            int primary = cluster.primaryOf(cluster.slot(LockScripts.lockKey(name)));
            for (int replica : cluster.replicasOf(primary)) {
                assertThat(keysOn(replica, name)).as("the lock key on replica %s: WAIT 2 returned", replica)
                        .contains(LockScripts.lockKey(name));
            }
            assertThat(other.lock(name).tryAcquire(LEASE)).isEmpty();
            assertThat(lease.extend(LEASE)).isTrue();
            lease.release();
            assertThat(other.lock(name).tryAcquire(LEASE)).isPresent();
        }
    }

    @Test
    void aGrantNoReplicaAcknowledgedIsWithdrawnAndUnknownNeverGranted() {
        String name = "wait-unconfirmed";
        int primary = cluster.primaryOf(cluster.slot(LockScripts.lockKey(name)));
        List<Integer> replicas = cluster.replicasOf(primary);
        try (LockClient client = Locks.connect(SharedCluster.uri("?replicas=1&waitTimeout=200"));
             LockClient other = Locks.connect(SharedCluster.uri(""))) {
            replicas.forEach(cluster::pause);
            try {
                assertThatThrownBy(() -> client.lock(name).tryAcquire(LEASE))
                        .isInstanceOf(BackendUnavailableException.class)
                        .hasMessageContaining("0 of 1 replicas acknowledged within waitTimeout (200 ms)")
                        .hasMessageContaining("the grant was withdrawn");
                assertThat(cluster.call(primary, "EXISTS", LockScripts.lockKey(name)))
                        .as("the unconfirmed grant is no longer on the primary").isEqualTo(0L);
                assertThat(other.lock(name).tryAcquire(LEASE)).as("nobody holds it: a client without WAIT gets it")
                        .hasValueSatisfying(Lease::release);
            } finally {
                replicas.forEach(cluster::resume);
            }
            Lease lease = client.lock(name).tryAcquire(LEASE).orElseThrow();
            lease.release();
        }
    }

    @Test
    void aClusterWhosePrimariesHaveFewerReplicasThanAskedIsRefusedAtConnect() {
        assertThatThrownBy(() -> Locks.connect(SharedCluster.uri("?replicas=3")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("asks for replicas=3")
                .hasMessageContaining("no primary of the cluster has more than 2 replica(s)");
    }

    @Test
    void waitTimeoutWithoutReplicasIsRefusedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> Locks.connect("redis-cluster://127.0.0.1:1?waitTimeout=100"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTimeout without replicas");
    }

    @Test
    void aLeaseNotLongerThanWaitTimeoutIsRefusedWithNothingHeld() {
        try (LockClient client = Locks.connect(SharedCluster.uri("?replicas=1&waitTimeout=500"))) {
            assertThatThrownBy(() -> client.lock("wait-short").tryAcquire(Duration.ofMillis(400)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must be longer than the URI's waitTimeout (500 ms)");
            assertThat(client.inspect("wait-short")).isEmpty();
        }
    }

    /** The keys of the lock's hash tag on {@code node}: {@code SCAN} runs on a replica itself, without redirects. */
    private static List<String> keysOn(int node, String name) {
        Object reply = cluster.call(node, "SCAN", "0", "MATCH", "distlock:{" + name + "}*", "COUNT", "100000");
        return ((List<?>) ((List<?>) reply).get(1)).stream()
                .map(key -> key instanceof byte[] bytes ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : key.toString())
                .toList();
    }
}
