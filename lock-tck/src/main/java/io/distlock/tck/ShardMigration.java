package io.distlock.tck;

/**
 * A whitebox hook over a sharded deployment, where each lock lives on one shard of several (a
 * Redis Cluster: the primary that serves the hash slot of the lock's keys), and an operator moves
 * what a shard serves to another while clients run (rule 4.23: a slot migration, as a resharding
 * or a scale-out does). Supply it through {@link LockVerification#shardMigration()}.
 */
@FunctionalInterface
public interface ShardMigration {

    /**
     * Moves the part of the keyspace that keeps {@code lockName} — every key of it — to another
     * shard, the way the deployment's own tools do (a Redis Cluster: {@code CLUSTER SETSLOT ...
     * IMPORTING/MIGRATING}, {@code MIGRATE} of every key, {@code CLUSTER SETSLOT ... NODE}), and
     * returns once the other shard serves it and every node says so.
     *
     * @param lockName the lock whose shard moves
     * @return what moved where, for the rule's messages (for example {@code "slot 5061 from node 0 to node 1"})
     */
    String move(String lockName);
}
