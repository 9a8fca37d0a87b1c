package io.distlock.tck;

import io.distlock.LockClient;

import java.util.Objects;
import java.util.Optional;

/**
 * A whitebox hook over a primary with replicas (rule 4.5): it cuts a replica's replication link,
 * fails the primary over to a chosen replica, and opens clients of the deployment, the way a
 * Sentinel-managed Redis is run. Replicas are numbered {@code 0 .. replicas() - 1} among the
 * replicas of the primary of the moment. Supply it through {@link LockVerification#replicaFailover()}.
 *
 * <p>What rule 4.5 shows with it: a write the primary acknowledged but no replica had yet, or only
 * a replica that is not the one promoted, is gone after the failover; whether the lock then goes to
 * a second client while the first still holds it is what the backend's acquire waited for.
 */
public interface ReplicaFailover {

    /**
     * Opens a fresh, independent client of the deployment that reaches its primary of the moment
     * (through Sentinel discovery, a virtual address, or the primary's own address).
     *
     * @return a connected client; the TCK closes it
     */
    LockClient connect();

    /**
     * @return how many replicas the primary has; rule 4.5 needs two
     */
    int replicas();

    /**
     * The hook over the primary that keeps {@code lockName}: on a sharded deployment (a Redis
     * Cluster) each lock lives on the primary of its shard, and rule 4.5 fails over the one its lock
     * is on. Rule 4.5 calls this with its lock's name before anything else, and uses only what it
     * returns. The default, for a deployment with one primary, is this hook.
     *
     * @param lockName the name of the lock the rule takes
     * @return the hook over that lock's primary
     */
    default ReplicaFailover forLock(String lockName) {
        return this;
    }

    /**
     * Holds replica {@code replica}'s replication link: writes on the primary no longer reach it,
     * and it acknowledges nothing, until {@link #restore()}.
     *
     * @param replica a replica index
     */
    void cutReplication(int replica);

    /**
     * Fails the primary over to replica {@code replica} (a Sentinel failover, or a forced one);
     * returns once it is the primary and clients made by {@link #connect()} reach it.
     *
     * @param replica a replica index, among the replicas of the primary before the failover
     */
    void promote(int replica);

    /**
     * Heals every cut link and returns once every replica replicates from the primary again, for
     * the next scenario.
     */
    void restore();

    /**
     * @return why this backend has no replicas to fail over to, if it has none (see
     *         {@link #impossible(String)}); empty by default
     */
    default Optional<String> impossibleBecause() {
        return Optional.empty();
    }

    /**
     * The hook of a backend with no asynchronous replicas to fail over to (independent nodes; a
     * consensus store, whose writes are acknowledged only once a quorum has them): rule 4.5 does not
     * apply, and its row and the verdict say why.
     *
     * @param reason why, in the terms of the backend's replication model
     * @return a hook that fails nothing over
     */
    static ReplicaFailover impossible(String reason) {
        Objects.requireNonNull(reason, "reason");
        return new ReplicaFailover() {
            @Override
            public LockClient connect() {
                throw new UnsupportedOperationException(reason);
            }

            @Override
            public int replicas() {
                return 0;
            }

            @Override
            public void cutReplication(int replica) {
                throw new UnsupportedOperationException(reason);
            }

            @Override
            public void promote(int replica) {
                throw new UnsupportedOperationException(reason);
            }

            @Override
            public void restore() {
            }

            @Override
            public Optional<String> impossibleBecause() {
                return Optional.of(reason);
            }
        };
    }
}
