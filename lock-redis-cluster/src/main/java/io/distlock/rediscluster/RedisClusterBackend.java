package io.distlock.rediscluster;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.redis.support.LateWrites;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.Revocations;
import io.distlock.redis.support.WaitConfirmedDriver;
import io.distlock.rediscluster.internal.ClusterKeyspace;
import io.distlock.rediscluster.internal.ClusterSettings;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * The Redis Cluster backend, for
 * {@code redis-cluster://[user:password@]host:port[,host:port...][?poolSize=n&clientName=s&natMap=...&tls=true...]}:
 * the single-Redis lock on a sharded cluster (ElastiCache, Memorystore, Azure Cache in cluster
 * mode, or {@code redis-server --cluster-enabled yes}). The hosts are seeds; the client learns the
 * slot map from them and sends each call to the primary of its lock's hash slot.
 *
 * <p><b>One slot per lock.</b> Every key of a lock, a read-write lock or a semaphore — the lock,
 * its fence counter, its owner record, its waiters' channel — carries the hash tag
 * {@code {<name>}}, so each script touches one slot. Redis takes the tag up to the name's first
 * {@code }}: a name with braces of its own is fine (its keys still share a slot), but one that
 * starts with {@code }} would leave the keys untagged and is refused with an
 * {@link IllegalArgumentException}.
 *
 * <p><b>Wake-ups</b> use sharded pub/sub ({@code SSUBSCRIBE}/{@code SPUBLISH}, Redis 7.0+): a
 * release notifies the lock's shard only. Slot migrations ({@code MOVED}, {@code ASK},
 * {@code TRYAGAIN}) and failovers are followed within each operation's timeout.
 *
 * <p><b>Guarantee: {@link Guarantee#EFFICIENCY}</b>, without fencing tokens. Replication to a
 * slot's replicas is asynchronous: a primary that fails before its replica received a grant loses
 * the lock, and the promoted replica can grant it again — two holders at once. The fence counter
 * goes back in the same failover, so it is not offered as a fencing token.
 *
 * <p><b>{@code ?replicas=N}</b> (with {@code waitTimeout}, ms, default 50) sends {@code WAIT N
 * waitTimeout} right behind each grant and extension on the slot's primary, as
 * {@code redis-wait://} does ({@link WaitConfirmedDriver}): one that fewer replicas acknowledged is
 * withdrawn and reported unknown, never granted. It narrows the failover window; it does not close
 * it (a replica that acknowledged may still not be the one promoted), so the guarantee stays
 * EFFICIENCY. A cluster none of whose primaries has N replicas is refused at connect; while a
 * shard is short of replicas (one down, a failover under way), grants on its slots are unknown.
 *
 * <p>Options: {@code poolSize} (connections per primary, 1..64, default 8), {@code clientName},
 * {@code natMap} (announced {@code host:port} = reachable {@code host:port}, comma-separated),
 * {@code replicas} and {@code waitTimeout}, and {@code tls=true} with the TLS store options of
 * every Redis-family backend. Credentials come from
 * the URI's user info or from {@link LockOptions#credentials()} (never both), the same on every
 * node. Instantiating this class does no I/O.
 */
public final class RedisClusterBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("redis-cluster", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION, Feature.WAIT_NOTIFICATION,
                    Feature.INSPECTION, Feature.REVOCATION, Feature.READ_WRITE, Feature.SEMAPHORE));

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public RedisClusterBackend() {
        super(DESCRIPTOR);
    }

    /**
     * Reads the slot map from the first seed that answers.
     *
     * @throws IllegalArgumentException                 if the URI is malformed, a seed is a Redis server not in
     *                                                  cluster mode, or (with {@code replicas}) no primary has
     *                                                  that many replicas (no message shows the password)
     * @throws io.distlock.BackendUnavailableException if no seed answers within {@link LockOptions#connectTimeout()}
     * @throws io.distlock.AuthenticationException     if a seed refuses the credentials, or the TLS handshake fails
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        ClusterSettings settings = ClusterSettings.parse(uri, options);
        ClusterKeyspace keyspace = ClusterKeyspace.connect(settings, options);
        if (settings.replicas() == 0) {
            // No fencing tokens: a failover to a replica that had not received the latest increments resets the counter.
            return new RedisLockDriver(keyspace, context, false);
        }
        try {
            keyspace.requireReplicas(settings.replicas());
        } catch (RuntimeException e) {
            keyspace.close();
            throw e;
        }
        // A write given up after the operation timeout plus WAIT's may still be on its way that long.
        LateWrites lateWrites = new LateWrites(options.operationTimeout().plus(settings.waitTimeout()));
        Revocations revocations = new Revocations(context);
        return new WaitConfirmedDriver(WaitConfirmedDriver.Primaries.of(new RedisLockDriver(keyspace, lateWrites, revocations)),
                lateWrites, revocations, settings.replicas(), settings.waitTimeout(), options.operationTimeout());
    }
}
