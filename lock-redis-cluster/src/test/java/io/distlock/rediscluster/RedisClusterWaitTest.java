package io.distlock.rediscluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.tck.fixtures.NoEngine;
import io.distlock.tck.fixtures.RedisCluster;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    /**
     * The engine's batched renewal on a cluster: each primary's renewals go together, with one
     * {@code WAIT} behind them; a primary whose replicas are frozen leaves its renewals unknown (never
     * lost: the keys are still theirs), and the other primaries' renewals are confirmed all the same.
     */
    @Test
    void renewalsGoAsOnePipelineAndOneWaitPerPrimaryAndAFrozenShardLeavesOnlyItsOwnUnknown() {
        List<Integer> primaries = cluster.primaries();
        List<String> names = new ArrayList<>();
        for (int primary : primaries) {
            for (int i = 0; names.size() < 2 * (primaries.indexOf(primary) + 1); i++) {
                String name = "wait-renew-" + i;
                if (!names.contains(name) && cluster.primaryOf(cluster.slot(LockScripts.lockKey(name))) == primary) {
                    names.add(name);
                }
            }
        }
        try (LockDriver driver = new RedisClusterBackend().open(URI.create(SharedCluster.uri("?replicas=1&waitTimeout=200")),
                LockOptions.defaults(), NoEngine.INSTANCE)) {
            List<Renewal> renewals = new ArrayList<>();
            for (String name : names) {
                Grant grant = driver.tryAcquire(new LockRequest(name, "owner-" + name, LEASE)).grant();
                renewals.add(new Renewal(grant, LEASE.multipliedBy(2)));
            }
            // The first round loads the extend script on each primary (a NOSCRIPT reply resends the pipeline).
            assertThat(driver.extendAll(renewals)).allMatch(ExtendOutcome::isExtended);
            Map<Integer, Long> waitsBefore = waitCalls(primaries);
            assertThat(driver.extendAll(renewals)).allMatch(ExtendOutcome::isExtended);
            Map<Integer, Long> waitsAfter = waitCalls(primaries);
            for (int primary : primaries) {
                assertThat(waitsAfter.get(primary) - waitsBefore.get(primary)).as("WAITs on primary %s", primary).isEqualTo(1L);
            }

            int frozen = primaries.get(0);
            List<Integer> replicas = cluster.replicasOf(frozen);
            replicas.forEach(cluster::pause);
            List<ExtendOutcome> outcomes;
            try {
                outcomes = driver.extendAll(renewals);
            } finally {
                replicas.forEach(cluster::resume);
            }
            for (int i = 0; i < names.size(); i++) {
                boolean onFrozen = cluster.primaryOf(cluster.slot(LockScripts.lockKey(names.get(i)))) == frozen;
                assertThat(outcomes.get(i).isExtended()).as("%s extended", names.get(i)).isEqualTo(!onFrozen);
                assertThat(outcomes.get(i).isLost()).as("%s lost", names.get(i)).isFalse();
            }
            assertThat(driver.releaseAll(renewals.stream().map(Renewal::grant).toList())).isEmpty();
        }
    }

    private static Map<Integer, Long> waitCalls(List<Integer> primaries) {
        Map<Integer, Long> calls = new HashMap<>();
        for (int primary : primaries) {
            Object stats = cluster.call(primary, "INFO", "commandstats");
            String text = stats instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(stats);
            calls.put(primary, text.lines().filter(line -> line.startsWith("cmdstat_wait:")).findFirst()
                    .map(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))).orElse(0L));
        }
        return calls;
    }

    /** The keys of the lock's hash tag on {@code node}: {@code SCAN} runs on a replica itself, without redirects. */
    private static List<String> keysOn(int node, String name) {
        Object reply = cluster.call(node, "SCAN", "0", "MATCH", "distlock:{" + name + "}*", "COUNT", "100000");
        return ((List<?>) ((List<?>) reply).get(1)).stream()
                .map(key -> key instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : key.toString())
                .toList();
    }
}
