package io.distlock.redis.support;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Revoked;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The single-Redis {@link LockDriver}: every operation is one script on one {@link RedisNode}.
 * Waiting, validity and renewal scheduling are the engine's.
 *
 * <p>The fencing token is the lock's {@code INCR} counter. It is best effort: it increases only as
 * long as Redis keeps the counter (a restart without persistence, a failover before replication or
 * an eviction resets it), which is why this backend promises {@link io.distlock.Guarantee#EFFICIENCY}.
 *
 * <p>It lives in the support module, not with the {@code redis://} provider, because the
 * Redis + {@code WAIT} backend runs it too, one per primary it follows: neither backend then brings
 * the other's scheme.
 */
public final class RedisLockDriver implements LockDriver {

    private final RedisNode node;
    private final LateWrites lateWrites;
    private final Revocations revocations;
    private final boolean ownsRevocations;

    /**
     * @param node    the connected node; closed with this driver
     * @param context the engine: the owner description every grant records, and where revocations
     *                this client learns of go
     */
    public RedisLockDriver(RedisNode node, DriverContext context) {
        this(node, new LateWrites(node.operationTimeout()), new Revocations(context), true);
    }

    /**
     * For a backend that moves from server to server (a primary followed across failovers): each
     * server's driver shares the one record of requests whose writes may still land, so that a
     * request that met an unknown outcome on one is still withdrawn with its marker on the next,
     * and the one record of held leases whose revocations it listens for.
     *
     * @param node        the connected node; closed with this driver
     * @param lateWrites  the requests whose writes may still land, shared
     * @param revocations the held leases and their revocations, shared (closed by its owner, not here)
     */
    public RedisLockDriver(RedisNode node, LateWrites lateWrites, Revocations revocations) {
        this(node, lateWrites, revocations, false);
    }

    private RedisLockDriver(RedisNode node, LateWrites lateWrites, Revocations revocations, boolean ownsRevocations) {
        this.node = node;
        this.lateWrites = lateWrites;
        this.revocations = revocations;
        this.ownsRevocations = ownsRevocations;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        acquiring(request); // subscribed, and its token listened for, while the acquire is on its way
        RedisNode.Acquired acquired;
        try {
            acquired = node.tryAcquire(request.name(), request.ownerToken(), millis(request.leaseTime()), revocations.owner());
        } catch (BackendUnavailableException e) {
            lateWrites.outcomeUnknown(request.ownerToken());
            throw e;
        }
        if (acquired.granted()) {
            granted(request);
            return Attempt.granted(new Grant(request, OptionalLong.of(acquired.fence()), null));
        }
        revocations.ended(request.ownerToken());
        return acquired.holderPttlMillis() >= 0
                ? Attempt.busy(Duration.ofMillis(acquired.holderPttlMillis()))
                : Attempt.busy();
    }

    /**
     * Records a grant, for revocation notices: its token is listened for on this server from now on,
     * and the first grant on it waits (briefly) for the subscription's confirmation
     * ({@link Revocations#awaitListening}). For a backend that takes the lock with its own call
     * (Redis + {@code WAIT}'s pipelined acquire), after {@link #acquiring}.
     *
     * @param request the granted request
     */
    public void granted(LockRequest request) {
        revocations.listenOn(node);
        revocations.granted(request.name(), request.ownerToken(), millis(request.leaseTime()));
        revocations.awaitListening(node);
    }

    /**
     * Starts listening for revocations on this server, and for the request's token, before an
     * acquire (for a backend that takes the lock with its own call, see {@link #granted}); a busy
     * answer is reported with {@link #busy}.
     *
     * @param request the request about to be sent
     */
    public void acquiring(LockRequest request) {
        revocations.listenOn(node);
        revocations.acquiring(request.name(), request.ownerToken(), millis(request.leaseTime()));
    }

    /**
     * Stops listening for the request's token: its attempt was busy.
     *
     * @param request the request
     */
    public void busy(LockRequest request) {
        revocations.ended(request.ownerToken());
    }

    /**
     * Records an extension's outcome, for revocation notices (for a backend that extends with its
     * own call, as {@link #granted} is for a grant).
     *
     * @param grant     the grant
     * @param leaseTime the extension's lease time
     * @param outcome   what the server answered
     */
    public void extended(Grant grant, Duration leaseTime, ExtendOutcome outcome) {
        if (outcome.isExtended()) {
            revocations.extended(grant.ownerToken(), millis(leaseTime));
        } else if (outcome.isLost()) {
            revocations.ended(grant.ownerToken());
        }
    }

    /** Compare-and-extend; a lease found gone because an operator revoked it is answered with the reason. */
    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        ExtendOutcome outcome = node.extend(grant.name(), grant.ownerToken(), millis(leaseTime));
        extended(grant, leaseTime, outcome);
        return outcome;
    }

    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        List<RedisNode.Extension> extensions = new ArrayList<>(renewals.size());
        for (Renewal renewal : renewals) {
            extensions.add(new RedisNode.Extension(renewal.grant().name(), renewal.grant().ownerToken(),
                    millis(renewal.leaseTime())));
        }
        List<ExtendOutcome> outcomes = node.extendAll(extensions);
        for (int i = 0; i < outcomes.size(); i++) {
            extended(renewals.get(i).grant(), renewals.get(i).leaseTime(), outcomes.get(i));
        }
        return outcomes;
    }

    /**
     * Compare-and-delete; for a grant of a request that had an attempt with an unknown outcome
     * (retried, then granted), also the abandoned marker, since that attempt's write may still land.
     */
    @Override
    public boolean release(Grant grant) {
        revocations.ended(grant.ownerToken());
        if (!lateWrites.mayLand(grant.ownerToken())) {
            return node.release(grant.name(), grant.ownerToken());
        }
        return withdraw(grant.request());
    }

    /**
     * A busy attempt wrote nothing, so only an attempt whose reply was lost can have left the lock
     * held by this request's token — or may still do so: its write can be on its way (held in the
     * network, on a connection the client gave up) and land after this call. So after an unknown
     * outcome this deletes what the token holds and leaves a marker that the acquire script checks
     * ({@link LockScripts#ABANDON}): a late write of the request then takes nothing. The marker
     * lives the request's lease time plus the operation timeout ({@link LateWrites#markerMillis}).
     * Markers exist only after unknown outcomes, so a server that answers costs one {@code EXISTS}
     * per acquire and no memory.
     */
    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        revocations.ended(request.ownerToken());
        if (outcomeUnknown || lateWrites.mayLand(request.ownerToken())) {
            withdraw(request);
        }
    }

    /**
     * Every release in pipelined batches on one connection ({@link RedisNode#runAll}): closing a
     * client with 10,000 leases costs a few round trips, not 10,000. Confirmed all at once: if a
     * batch gets no answer, every grant is reported unconfirmed (the engine retries; releasing
     * twice is harmless).
     */
    @Override
    public List<Grant> releaseAll(List<Grant> grants) {
        if (grants.isEmpty()) {
            return List.of();
        }
        List<PendingReply.ScriptCall> calls = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            revocations.ended(grant.ownerToken());
            LockRequest request = grant.request();
            calls.add(lateWrites.mayLand(request.ownerToken())
                    ? RedisNode.abandonCall(request.name(), request.ownerToken(), lateWrites.markerMillis(millis(request.leaseTime())))
                    : RedisNode.releaseCall(request.name(), request.ownerToken()));
        }
        try {
            node.runAll("release " + grants.size() + " leases", calls);
        } catch (BackendUnavailableException e) {
            return List.copyOf(grants);
        }
        grants.forEach(grant -> lateWrites.settled(grant.ownerToken()));
        return List.of();
    }

    private boolean withdraw(LockRequest request) {
        boolean deleted = node.abandon(request.name(), request.ownerToken(),
                lateWrites.markerMillis(millis(request.leaseTime())));
        lateWrites.settled(request.ownerToken());
        return deleted;
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        return node.watch(name, onChange);
    }

    /** One round trip: a {@code MULTI} of reads ({@link LockSnapshot}). */
    @Override
    public Optional<LockInfo> inspect(String name) {
        LockSnapshot snapshot = node.inspect(name);
        if (snapshot.wrongType()) {
            throw new LockException("Redis at " + node.endpoint() + ": lock key " + LockScripts.lockKey(name)
                    + " holds another type than a string: it is not a distlock lock");
        }
        return snapshot.held() ? Optional.of(snapshot.info(true, true)) : Optional.empty();
    }

    /**
     * {@code SCAN} of the whole keyspace in batches ({@link RedisNode#scanLockNames}), then the
     * first {@code limit} locks found inspected in pipelined round trips. A lock released between
     * the two is left out.
     */
    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        List<LockInfo> holders = new ArrayList<>();
        for (LockSnapshot snapshot : node.inspectAll(node.scanLockNames(prefix, limit))) {
            if (snapshot.held() && !snapshot.wrongType()) {
                holders.add(snapshot.info(true, true));
            }
        }
        return holders;
    }

    /** One script ({@link LockScripts#REVOKE}): marker, fence, delete, notices, atomically. */
    @Override
    public Optional<Revoked> revoke(String name, String reason) {
        RedisNode.Revocation revocation = node.revoke(name, reason, true);
        if (revocation == null) {
            return Optional.empty();
        }
        return Optional.of(new Revoked(revocation.snapshot().info(true, true), revocation.snapshot().ownerToken()));
    }

    /** @return the node this driver runs on */
    public RedisNode node() {
        return node;
    }

    @Override
    public void close() {
        if (ownsRevocations) {
            revocations.close();
        }
        node.close();
    }

    @Override
    public String toString() {
        return "RedisLockDriver[" + node.endpoint() + "]";
    }

    /**
     * Rounds up to whole milliseconds: the server then holds the lock at least as long as the
     * engine counts on it, never shorter.
     *
     * @param leaseTime a lease time
     * @return it in whole milliseconds, rounded up, at least 1
     */
    public static long millis(Duration leaseTime) {
        long millis = leaseTime.toMillis();
        return leaseTime.minusMillis(millis).isZero() ? Math.max(1, millis) : millis + 1;
    }
}
