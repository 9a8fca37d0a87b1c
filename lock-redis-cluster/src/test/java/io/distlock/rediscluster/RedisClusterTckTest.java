package io.distlock.rediscluster;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.ShardMigration;
import io.distlock.tck.fixtures.HookChecks;
import io.distlock.tck.fixtures.RedisCluster;
import io.distlock.tck.fixtures.RedisFamilyHooks;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TCK against a real Redis Cluster of {@code redis-server} processes on free loopback ports:
 * 3 primaries with 2 replicas each ({@link SharedCluster}). Clients name every primary as a seed
 * and learn the slot map; rule 4.5 fails over the primary of its lock's slot, rule 4.23 migrates
 * that slot to another primary, and partitioned clients reach every node through proxies of their
 * own ({@code natMap}).
 */
class RedisClusterTckTest extends LockVerification {

    private static RedisCluster cluster;
    private static ClusterHooks hooks;

    @BeforeAll
    static void startCluster() {
        cluster = SharedCluster.get();
        hooks = new ClusterHooks(cluster);
    }

    // The hooks in the order of the rules that use them.

    @Override
    protected LockClient newClient() {
        return Locks.connect(SharedCluster.uri(""));
    }

    /** Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does. */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(SharedCluster.uri("")));
    }

    /** Rule 1.10: the lock key's PTTL on the primary of its slot. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /** Rule 4.4: every primary's clock jumps. */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(hooks.clockJump());
    }

    /** Rule 4.5: the primary of the rule's lock fails over to a replica its write had not reached. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        return Optional.of(hooks.replicaFailover(this::newClient));
    }

    /** Rules 4.8 and 4.13: the lock key is deleted on its primary. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of(hooks.leaseRevocation());
    }

    /** Rules 4.9–4.12, 4.14, 4.16, 4.17 and 4.20–4.22: a proxy per node for each client, with 500 ms timeouts (scaled). */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(hooks.clientPartition(environment().scaled(Duration.ofMillis(500))));
    }

    /** Rule 4.23: the lock's slot migrates to another primary. */
    @Override
    protected Optional<ShardMigration> shardMigration() {
        return Optional.of(hooks.shardMigration());
    }

    @Override
    protected List<String> malformedUris() {
        String auth = "alice:" + SECRET + "@";
        String seeds = String.join(",", cluster.seedEndpoints());
        return List.of(
                "redis-cluster://" + auth,
                "redis-cluster://" + auth + "127.0.0.1:notaport",
                "redis-cluster://" + auth + seeds + "/1",
                "redis-cluster://" + auth + seeds + "?noSuchOption=" + SECRET,
                "redis-cluster://" + auth + seeds + "?poolSize=0",
                "redis-cluster://" + auth + seeds + "?natMap=" + SECRET,
                "redis-cluster://" + auth + cluster.seedEndpoints().get(0) + "," + cluster.seedEndpoints().get(0));
    }

    /** Rule 5.8: the silent endpoint first in the list of seeds. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.of(SharedCluster.uri("").replaceFirst("://", "://" + silentEndpoint + ","));
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(RedisFamilyHooks.unreachableUri("redis-cluster", 3, SECRET, ""));
    }

    // ---- the whitebox hooks above do what their Javadoc says -------------------------------------

    @Test
    void theProbeTellsHowLongThePrimaryOfTheSlotHoldsTheLock() {
        HookChecks.checkProbe(lockProbe().orElseThrow(), this::newClient);
    }

    @Test
    void aPartitionedClientIsCutOffByItsOwnLinksAndHealsWithThem() throws InterruptedException {
        HookChecks.checkPartition(clientPartition().orElseThrow(), this::newClient, cluster.size());
    }
}
