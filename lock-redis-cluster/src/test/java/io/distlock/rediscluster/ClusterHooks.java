package io.distlock.rediscluster;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.ShardMigration;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.RedisCluster;
import io.distlock.tck.fixtures.RedisFamilyHooks;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.awaitility.Awaitility;

/**
 * The TCK's whitebox hooks over a {@link RedisCluster}: each finds where a lock lives by asking the
 * cluster which primary serves the hash slot of the lock's key ({@code CLUSTER KEYSLOT}, then the
 * slot map), at the moment it is used — a failover or a migration moves it.
 */
final class ClusterHooks {

    private final RedisCluster cluster;
    private final RedisFamilyHooks family;

    ClusterHooks(RedisCluster cluster) {
        this.cluster = cluster;
        this.family = RedisFamilyHooks.onCluster("redis-cluster", cluster, LockScripts::lockKey);
    }

    /** @return the family's hooks on this cluster (probe, revocation, clock jump, security) */
    RedisFamilyHooks family() {
        return family;
    }

    /** Rule 1.10: the lock key's PTTL on the primary of its slot ({@link RedisFamilyHooks#onCluster}). */
    LockProbe lockProbe() {
        return family.lockProbe();
    }

    /** Rules 4.8 and 4.13: the lock key is deleted on its primary, as an eviction or an operator would. */
    LeaseRevocation leaseRevocation() {
        return family.leaseRevocation();
    }

    /** Rule 4.4: every primary's clock jumps (each lock's primary among them). */
    ClockJump clockJump() {
        return family.clockJump();
    }

    /**
     * Rules 4.9–4.12, 4.14, 4.16, 4.17 and 4.20–4.22: each client reaches every node through a proxy
     * of its own: the nodes announce their own addresses, and the client's {@code natMap} maps each
     * to its proxy, as a client behind NAT would.
     */
    ClientPartition clientPartition(Duration timeout) {
        LockOptions options = LockOptions.builder().connectTimeout(timeout).operationTimeout(timeout).build();
        List<String> nodes = cluster.nodeEndpoints();
        return ClientPartition.of(() -> FaultProxy.partitionedClient(nodes, proxies -> Locks.connect(URI.create(
                "redis-cluster://" + proxies.get(cluster.primaries().get(0)).endpoint() + "?natMap="
                        + IntStream.range(0, nodes.size()).mapToObj(i -> nodes.get(i) + "=" + proxies.get(i).endpoint())
                        .collect(Collectors.joining(","))), options)), timeout, Duration.ZERO);
    }

    /** Rule 4.23: the lock's slot moves, with its keys, to the next primary. */
    ShardMigration shardMigration() {
        return name -> {
            int slot = cluster.slot(LockScripts.lockKey(name));
            int from = cluster.primaryOf(slot);
            List<Integer> primaries = cluster.primaries();
            int to = primaries.get((primaries.indexOf(from) + 1) % primaries.size());
            long keys = cluster.migrateSlot(slot, to);
            return "slot " + slot + " moved from node " + from + " to node " + to + " with its " + keys + " key(s)";
        };
    }

    /** @return how far a node's replication stream has come ({@code master_repl_offset} of {@code INFO replication}) */
    private long offset(int node) {
        Object info = cluster.call(node, "INFO", "replication");
        String text = info instanceof byte[] bytes ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(info);
        return text.lines().filter(line -> line.startsWith("master_repl_offset:"))
                .mapToLong(line -> Long.parseLong(line.substring("master_repl_offset:".length()).strip())).findFirst().orElse(-1);
    }

    /**
     * Rule 4.5 on the primary of the rule's lock: a replica's link is cut by freezing it
     * ({@code SIGSTOP}) and having the primary close its replication connection, so that it neither
     * receives nor acknowledges anything more; the failover to a chosen replica waits until the
     * shard's live replicas have what the primary wrote, kills the primary, freezes the shard's other
     * replicas, and lets the chosen one be elected by the cluster itself; {@link ReplicaFailover#restore()} thaws every frozen node and restarts the
     * killed primaries, which rejoin as replicas.
     */
    ReplicaFailover replicaFailover(Supplier<LockClient> connect) {
        List<Integer> frozen = new ArrayList<>();
        List<Integer> killed = new ArrayList<>();
        return new ReplicaFailover() {
            @Override
            public LockClient connect() {
                return connect.get();
            }

            @Override
            public int replicas() {
                return cluster.replicasOf(cluster.primaries().get(0)).size();
            }

            @Override
            public void cutReplication(int replica) {
                throw new UnsupportedOperationException("a Redis Cluster has a primary per shard: use forLock(name)");
            }

            @Override
            public void promote(int replica) {
                throw new UnsupportedOperationException("a Redis Cluster has a primary per shard: use forLock(name)");
            }

            @Override
            public ReplicaFailover forLock(String lockName) {
                int slot = cluster.slot(LockScripts.lockKey(lockName));
                int primary = cluster.primaryOf(slot);
                List<Integer> replicas = cluster.replicasOf(primary);
                ReplicaFailover deployment = this;
                return new ReplicaFailover() {
                    @Override
                    public LockClient connect() {
                        return connect.get();
                    }

                    @Override
                    public int replicas() {
                        return replicas.size();
                    }

                    @Override
                    public void cutReplication(int replica) {
                        // Frozen, and its link closed by the primary: a frozen process's socket would
                        // still take the stream into its kernel buffer and read it once thawed. The
                        // shard's live replicas reconnect at once and resync from the backlog.
                        cluster.pause(replicas.get(replica));
                        frozen.add(replicas.get(replica));
                        cluster.call(primary, "CLIENT", "KILL", "TYPE", "replica");
                    }

                    @Override
                    public void promote(int replica) {
                        int chosen = replicas.get(replica);
                        long written = offset(primary);
                        for (int live : replicas) {
                            if (!frozen.contains(live)) {
                                Awaitility.await("node " + live + " replicating what its primary wrote")
                                        .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).ignoreExceptions()
                                        .until(() -> offset(live) >= written);
                            }
                        }
                        for (int other : replicas) {
                            if (other != chosen && !frozen.contains(other)) {
                                cluster.pause(other);
                                frozen.add(other);
                            }
                        }
                        cluster.node(primary).kill();
                        killed.add(primary);
                        if (frozen.remove(Integer.valueOf(chosen))) {
                            cluster.resume(chosen);
                        }
                        Awaitility.await("node " + chosen + " elected primary of slot " + slot)
                                .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(25)).ignoreExceptions()
                                .until(() -> cluster.primaryOf(slot) == chosen);
                        // Elected: the shard's other replicas run again and follow the new primary, as
                        // they would after a real failover (a client that waits for a replica's
                        // acknowledgement, ?replicas=N, needs one).
                        for (int other : replicas) {
                            if (other != chosen && frozen.remove(Integer.valueOf(other))) {
                                cluster.resume(other);
                            }
                        }
                    }

                    @Override
                    public void restore() {
                        deployment.restore();
                    }
                };
            }

            @Override
            public void restore() {
                for (int node : List.copyOf(frozen)) {
                    cluster.resume(node);
                }
                frozen.clear();
                for (int node : List.copyOf(killed)) {
                    cluster.restart(node);
                }
                killed.clear();
                cluster.awaitSettled();
            }
        };
    }
}
