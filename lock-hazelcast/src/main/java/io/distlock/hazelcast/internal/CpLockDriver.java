package io.distlock.hazelcast.internal;

import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.CPGroupCreateCPGroupCodec;
import com.hazelcast.client.impl.protocol.codec.FencedLockGetLockOwnershipCodec;
import com.hazelcast.client.impl.protocol.codec.FencedLockTryLockCodec;
import com.hazelcast.client.impl.protocol.codec.FencedLockUnlockCodec;
import com.hazelcast.cp.CPGroup;
import com.hazelcast.cp.exception.CPGroupDestroyedException;
import com.hazelcast.cp.internal.RaftGroupId;
import com.hazelcast.cp.internal.datastructures.exception.WaitKeyCancelledException;
import com.hazelcast.cp.internal.session.SessionExpiredException;
import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * {@code hazelcast://}: the CP Subsystem's {@code FencedLock}, one per lock name, in the CP group
 * {@code default}. A hold is bound to this client's {@link CpSession} and to the request's own owner
 * id ({@link Owners}); its fencing token is the lock's fence (the Raft log index of the acquire: it
 * only grows, and survives a leader change). The lock has no lease on the server: the engine ends a
 * lease at the end of its validity ({@link #serverExpiresLeases()} is false), and the session's TTL
 * bounds what a crashed or cut-off holder keeps.
 */
public final class CpLockDriver implements LockDriver {

    /** Where every lock lives: the CP group Hazelcast puts an object in when its name names none. */
    static final String GROUP = CPGroup.DEFAULT_GROUP_NAME;
    /** Re-entrant holds one release undoes at most (an answer lost, then the acquire repeated). */
    private static final int MAX_UNLOCKS = 64;
    /**
     * Ownership reads of one renewal tick unanswered at a time ({@link #extendAll}). Enough to keep the
     * CP group busy, few enough that a read does not wait at the members behind so many others that
     * its operation timeout passes first: with 1,000, a tick of 10,000 leases on members loaded by the
     * bench had thousands of reads unanswered within 2 s, and lost leases; with 200, none.
     */
    private static final int READS_IN_FLIGHT = 200;
    private static final long INVALID_FENCE = 0;
    private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * The {@code default} group's id, by cluster id, as this JVM's clients learnt it. Finding it is a
     * linearizable read of the METADATA group, which a member forwards to the leader it knows: while
     * that leader is frozen, no member answers it until the cluster drops the frozen member (and not
     * within a minute once, on 2 loaded cores). A client connecting then needs the default group only
     * (whose own leader may be healthy): one that another client of this JVM connected to before
     * asks nothing of METADATA. The id stays the group's until the CP Subsystem is reset; a session
     * opened with an id from before then is refused ({@code CPGroupDestroyedException}), and the id
     * is asked for again.
     */
    private static final Map<UUID, RaftGroupId> KNOWN_GROUPS = new ConcurrentHashMap<>();

    private final HazelcastConnection connection;
    private final RaftGroupId group;
    private final CpSession session;
    private final Owners owners = new Owners();

    private CpLockDriver(HazelcastConnection connection, RaftGroupId group, DriverContext context) {
        this.connection = connection;
        this.group = group;
        this.session = new CpSession(connection, group, context);
    }

    /**
     * Connects, checks that the cluster has a CP Subsystem that is not in unsafe mode, and opens the
     * client's CP session.
     *
     * @param endpoint the cluster
     * @param options  the client's options
     * @param context  the engine
     * @return the driver
     * @throws IllegalArgumentException    if the cluster has no CP Subsystem (Community 5.5+) or runs it in
     *                                     unsafe mode (fewer than 3 CP members), or credentials are given
     * @throws BackendUnavailableException if no member let the client in, or the CP group did not answer,
     *                                     within the connect timeout (each CP call of the connect is asked
     *                                     again until it passes)
     */
    public static CpLockDriver connect(HazelcastEndpoint endpoint, LockOptions options, DriverContext context) {
        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
        HazelcastConnection connection = HazelcastConnection.open(endpoint, options);
        try {
            Optional<UUID> cluster = connection.clusterId();
            RaftGroupId known = cluster.map(KNOWN_GROUPS::get).orElse(null);
            if (known != null) {
                try {
                    return withSession(connection, known, context, deadline);
                } catch (CPGroupDestroyedException stale) {
                    KNOWN_GROUPS.remove(cluster.get(), known); // the CP Subsystem was reset since: ask again
                }
            }
            RaftGroupId group = withinConnectTimeout(deadline, () -> defaultGroup(connection));
            CpLockDriver driver = withSession(connection, group, context, deadline);
            cluster.ifPresent(id -> KNOWN_GROUPS.put(id, group));
            return driver;
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private static CpLockDriver withSession(HazelcastConnection connection, RaftGroupId group, DriverContext context,
            long deadline) {
        CpLockDriver driver = new CpLockDriver(connection, group, context);
        withinConnectTimeout(deadline, driver.session::acquire);
        return driver;
    }

    /**
     * A CP call of the connect, asked again while the connect timeout lasts: a call that met a member
     * that stopped answering fails after the operation timeout, and is answered once the client has
     * moved off that member (its heartbeat timeout) or the group has elected a new leader.
     */
    private static <T> T withinConnectTimeout(long deadline, Supplier<T> call) {
        while (true) {
            try {
                return call.get();
            } catch (BackendUnavailableException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                LockSupport.parkNanos(RETRY_PAUSE_NANOS);
            }
        }
    }

    private static RaftGroupId defaultGroup(HazelcastConnection connection) {
        String alternatives = ": use hazelcast-map:// (IMap.lock: an EFFICIENCY lock, no fencing token), or a"
                + " CORRECTNESS lock elsewhere: zookeeper:// or etcd://";
        RaftGroupId group;
        try {
            group = CPGroupCreateCPGroupCodec.decodeResponse(connection.call(
                    CPGroupCreateCPGroupCodec.encodeRequest("distlock"), "distlock", -1));
        } catch (UnsupportedOperationException e) {
            throw new IllegalArgumentException("the Hazelcast cluster at " + connection.endpoint() + " has no CP"
                    + " Subsystem (\"" + e.getMessage() + "\"): Hazelcast Community 5.5 and later have none, it is an"
                    + " Enterprise feature" + alternatives, e);
        }
        if (!GROUP.equals(group.getName())) {
            throw new IllegalArgumentException("the CP Subsystem of the Hazelcast cluster at " + connection.endpoint()
                    + " runs in UNSAFE mode (cp-member-count is 0: fewer than 3 CP members), where a FencedLock lives"
                    + " on one member's partition, is not Raft-replicated and can be lost with that member; give the"
                    + " cluster cp-member-count >= 3" + alternatives);
        }
        return group;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        Owners.Owner owner = owners.of(request.ownerToken());
        // A session the group has closed (it expired while the client was cut off or paused, or an
        // operator closed it) refuses the try, which then holds nothing: the try is made once more at
        // once, on a new session, so that a free lock is not reported unavailable for that alone.
        for (int attempt = 1; ; attempt++) {
            CpSession.Live live = session.acquire();
            owner.session = live.id();
            // Never re-sent by the Hazelcast client past a member that did not answer (see MapLockDriver#tryLock):
            // an unanswered try is an unknown outcome, retried by the engine with the same invocation id.
            ClientMessage tryLock = FencedLockTryLockCodec.encodeRequest(group, request.name(), live.id(), owner.threadId,
                    owner.invocation, 0);
            tryLock.setRetryable(false);
            long fence;
            try {
                fence = FencedLockTryLockCodec.decodeResponse(connection.call(tryLock, request.name(), -1));
            } catch (SessionExpiredException e) {
                owner.answered();
                session.ended(live);
                if (attempt < 2) {
                    continue;
                }
                return Attempt.unknown(new BackendUnavailableException(connection.endpoint().toString(),
                        "the CP session expired on " + connection.endpoint() + " twice in a row; a new one is opened", e));
            } catch (WaitKeyCancelledException e) {
                owner.answered();
                return Attempt.busy();
            } catch (RuntimeException e) {
                owner.uncertain = true;
                throw e;
            }
            owner.answered();
            if (fence == INVALID_FENCE) {
                return Attempt.busy();
            }
            return Attempt.granted(new Grant(request, OptionalLong.of(fence), owner, live.id()));
        }
    }

    /**
     * Nothing to lengthen on the server (the lock has no lease there): confirms, in one linearizable
     * read of the CP group, that the lock is still this grant's — same session, same owner, same fence.
     * The session's heartbeats are what bound the lease's validity.
     */
    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        return owned(grant, connection.call(ownership(grant), grant.name(), -1));
    }

    /**
     * The reads of {@link #extend} for a whole renewal tick, {@value #READS_IN_FLIGHT} unanswered at
     * a time ({@link HazelcastConnection#pipelined}): one after another, a tick of 10,000 leases took
     * longer than their lease time (a round trip each), and they were lost.
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        record Read(CompletableFuture<ClientMessage> answer, long deadline) {
        }
        ExtendOutcome[] results = new ExtendOutcome[renewals.size()];
        HazelcastConnection.pipelined(renewals.size(), READS_IN_FLIGHT, i -> {
            Grant grant = renewals.get(i).grant();
            long deadline = connection.deadline();
            return new Read(connection.send(ownership(grant), grant.name(), -1), deadline);
        }, (read, i) -> {
            try {
                results[i] = owned(renewals.get(i).grant(), connection.await(read.answer(), read.deadline()));
            } catch (BackendUnavailableException e) {
                results[i] = ExtendOutcome.unknown(e);
            }
        });
        return Arrays.asList(results);
    }

    private ClientMessage ownership(Grant grant) {
        return FencedLockGetLockOwnershipCodec.encodeRequest(group, grant.name());
    }

    /** @return whether the ownership read says the lock is still the grant's: same fence, session and owner */
    private static ExtendOutcome owned(Grant grant, ClientMessage answer) {
        FencedLockGetLockOwnershipCodec.ResponseParameters state = FencedLockGetLockOwnershipCodec.decodeResponse(answer);
        return ExtendOutcome.of(state.fence == grant.fencingToken().getAsLong() && state.sessionId == (Long) grant.session()
                && state.threadId == ((Owners.Owner) grant.handle()).threadId);
    }

    @Override
    public boolean release(Grant grant) {
        Owners.Owner owner = (Owners.Owner) grant.handle();
        boolean released;
        try {
            released = unlock(grant.name(), (Long) grant.session(), owner.threadId);
        } catch (RuntimeException e) {
            owner.uncertain = true; // an unlock may still land: this owner's id is not reused
            throw e;
        }
        if (!owner.uncertain) {
            owners.forget(grant.ownerToken());
        }
        return released;
    }

    /**
     * Undoes every hold of the owner (a repeated acquire whose first answer was lost can have left two
     * of a re-entrant lock) until the group says none is left.
     *
     * @return true if there was a hold to undo
     */
    private boolean unlock(String name, long sessionId, long threadId) {
        for (int i = 0; i < MAX_UNLOCKS; i++) {
            boolean stillHeld;
            try {
                ClientMessage unlock = FencedLockUnlockCodec.encodeRequest(group, name, sessionId, threadId, UUID.randomUUID());
                unlock.setRetryable(false); // never re-sent by the Hazelcast client: see Owners on reused ids
                stillHeld = FencedLockUnlockCodec.decodeResponse(connection.call(unlock, name, -1));
            } catch (IllegalMonitorStateException | SessionExpiredException e) {
                // Not this owner's (any more), or its session is gone, and every lock with it.
                return i > 0;
            }
            if (!stillHeld) {
                return true;
            }
        }
        throw new BackendUnavailableException(connection.endpoint().toString(), "'" + name + "' was still held by"
                + " the same owner after " + MAX_UNLOCKS + " unlocks on " + connection.endpoint(), null);
    }

    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        Owners.Owner owner = owners.find(request.ownerToken());
        if (owner == null) {
            return;
        }
        if (outcomeUnknown && owner.session >= 0) {
            // Kept while the engine repeats this (late writes): a repeat must still know the owner.
            unlock(request.name(), owner.session, owner.threadId);
        } else if (!outcomeUnknown) {
            // Every attempt was answered "busy": a try with no wait leaves nothing on the server.
            owners.forget(request.ownerToken());
        }
    }

    /**
     * An acquire sent with no answer can still reach the CP group after {@link #abandon} has looked
     * (it is queued on a member, or re-sent by the client): the engine repeats the abandon for the
     * request's lease time.
     */
    @Override
    public boolean lateWritesPossible() {
        return true;
    }

    /** The lock has no lease on the server: the engine ends each lease ({@link #leaseExpired}). */
    @Override
    public boolean serverExpiresLeases() {
        return false;
    }

    @Override
    public void leaseExpired(Grant grant) {
        release(grant);
    }

    @Override
    public void close() {
        try {
            session.close();
        } finally {
            connection.close();
        }
    }
}
