package io.distlock.hazelcast;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.hazelcast.internal.HazelcastEndpoint;
import io.distlock.hazelcast.internal.MapLockDriver;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * The Hazelcast map backend, for
 * {@code hazelcast-map://host:port[,host:port...][/cluster-name][?map=name][&smartRouting=false]} (port
 * 5701, cluster name {@code dev} and map {@code distlock} by default): {@code IMap.lock} on the entry
 * named after the lock, with a lease the member ends by itself — what Hazelcast Community 5.5 and
 * later offer (they have no CP Subsystem), and what ShedLock's Hazelcast provider stands on.
 *
 * <p><b>Guarantee: {@link Guarantee#EFFICIENCY}</b>, no fencing token: the lock lives on the key's
 * partition owner and its backup, with no consensus, so a split brain — or a member lost with its
 * backup — can give it to two holders. Use it where a double grant only duplicates work; for a lock
 * the protected resource can check, use {@code hazelcast://} on a cluster with a CP Subsystem.
 *
 * <p>Each request is an owner of its own (any thread may extend or release a lease; a second lease
 * of a held name is refused). An extension checks, on the member, that the lock is still the grant's
 * before it sets the new lease. Waiters poll on the engine's back-off.
 *
 * <p>Instantiating this class does no I/O; {@link #connect} connects within {@link LockOptions#connectTimeout()}.
 */
public final class HazelcastMapLockBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("hazelcast-map", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION));

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public HazelcastMapLockBackend() {
        super(DESCRIPTOR);
    }

    /**
     * @throws IllegalArgumentException                 if the URI is malformed or carries a user or password,
     *                                                  or credentials are given in the options (Hazelcast
     *                                                  Community has no client authentication)
     * @throws io.distlock.BackendUnavailableException if no member lets the client in within
     *                                                  {@link LockOptions#connectTimeout()} (the message names the
     *                                                  members and whether any answered: then the cluster name is
     *                                                  likely wrong)
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        return MapLockDriver.connect(HazelcastEndpoint.parse(uri, true), options, context);
    }
}
