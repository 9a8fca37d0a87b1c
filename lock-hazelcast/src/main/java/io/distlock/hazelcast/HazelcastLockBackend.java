package io.distlock.hazelcast;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.hazelcast.internal.CpLockDriver;
import io.distlock.hazelcast.internal.HazelcastEndpoint;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * The Hazelcast CP backend, for {@code hazelcast://host:port[,host:port...][/cluster-name][?smartRouting=false]}
 * (port 5701 by default, cluster name {@code dev} by default): the CP Subsystem's {@code FencedLock}.
 *
 * <p><b>Guarantee: {@link Guarantee#CORRECTNESS}</b> with {@link Feature#FENCING_TOKENS}: each lock is
 * a {@code FencedLock} in the CP group {@code default}, replicated by Raft over the CP members; its
 * fencing token is the lock's fence (the Raft log index of the acquire), which only grows. It needs
 * a cluster with a CP Subsystem of at least 3 CP members: {@link #connect} refuses a cluster without
 * one (Hazelcast Community 5.5 and later: CP is an Enterprise feature there) and one in unsafe mode,
 * saying so and naming the alternatives.
 *
 * <p><b>Owners and sessions.</b> A {@code FencedLock} belongs to a CP session and a thread; here each
 * request is an owner of its own (so any thread may extend or release a lease, and a second lease of
 * a held name is refused, never re-entered), and every hold is bound to the client's CP session.
 * The CP group closes a session it has not heard from for its TTL (the members'
 * {@code session-time-to-live-seconds}, 300 s by default), and every lock with it: a crashed
 * holder's lock is free after that. {@code remaining()} never over-promises: no lease is valid past
 * the last answered session heartbeat plus the TTL, and a session the group closed ends every lease
 * bound to it ({@code lost()} with {@code BACKEND_LOST}).
 *
 * <p><b>Lease time on a session store.</b> A {@code FencedLock} has no lease on the server: at the end
 * of a lease's validity the engine unlocks it, so that {@code leaseTime} means what it means on every
 * backend. Waiters poll (on the engine's back-off): a {@code FencedLock} tells no one when it is released.
 *
 * <p>Instantiating this class does no I/O; {@link #connect} connects within
 * {@link LockOptions#connectTimeout()}, checks the CP Subsystem and opens the client's CP session.
 */
public final class HazelcastLockBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("hazelcast", Guarantee.CORRECTNESS,
            EnumSet.of(Feature.FENCING_TOKENS, Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION,
                    Feature.QUORUM));

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public HazelcastLockBackend() {
        super(DESCRIPTOR);
    }

    /**
     * @throws IllegalArgumentException                 if the URI is malformed or carries a user or password,
     *                                                  credentials are given in the options (Hazelcast Community
     *                                                  has no client authentication), or the cluster has no CP
     *                                                  Subsystem (Community 5.5+) or runs it in unsafe mode
     * @throws io.distlock.BackendUnavailableException if no member lets the client in within
     *                                                  {@link LockOptions#connectTimeout()} (the message names the
     *                                                  members and whether any answered: then the cluster name is
     *                                                  likely wrong), or the CP group does not answer
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        return CpLockDriver.connect(HazelcastEndpoint.parse(uri, false), options, context);
    }
}
