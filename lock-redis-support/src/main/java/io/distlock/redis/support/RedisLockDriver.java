package io.distlock.redis.support;

import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
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
 * The Redis-family {@link LockDriver}: every operation is one script on the server that holds the
 * lock's keys — one {@link RedisNode}, or the primary of the keys' slot in a Redis Cluster (a
 * {@link RedisKeyspace} either way).
 * Waiting, validity and renewal scheduling are the engine's. Every kind of hold goes the same way:
 * {@link HoldCalls} picks the script and keys of a lock ({@link LockScripts}), a read or write hold
 * of a read-write lock ({@link ReadWriteScripts}) or a semaphore's permit ({@link SemaphoreScripts}),
 * and the pipelined batches, the abandoned marker and the release notifications apply to them all.
 *
 * <p>The fencing token is the lock's {@code INCR} counter (a read-write lock's one counter for its
 * readers and writers; a semaphore's for its permits). It is best effort: it increases only as
 * long as Redis keeps the counter (a restart without persistence, a failover before replication or
 * an eviction resets it), which is why this backend promises {@link io.distlock.Guarantee#EFFICIENCY}.
 *
 * <p>It lives in the support module, not with the {@code redis://} provider, because the other
 * Redis-family backends run it too (the cluster's, and {@link WaitConfirmedDriver}'s, one per
 * primary it follows): none of them then brings another's scheme.
 */
public final class RedisLockDriver implements LockDriver {

    private final RedisKeyspace node;
    private final LateWrites lateWrites;
    private final Revocations revocations;
    private final boolean ownsRevocations;
    /** Whether grants and inspections carry the fence counter as a fencing token (not where a failover resets it). */
    private final boolean fencingTokens;

    /**
     * @param node    the connected server or cluster; closed with this driver
     * @param context the engine: the owner description every grant records, and where revocations
     *                this client learns of go
     */
    public RedisLockDriver(RedisKeyspace node, DriverContext context) {
        this(node, context, true);
    }

    /**
     * @param node          the connected server or cluster; closed with this driver
     * @param context       the engine: the owner description every grant records, and where
     *                      revocations this client learns of go
     * @param fencingTokens true to hand out the fence counter as each grant's fencing token (and
     *                      show it in inspections); false for a deployment whose failover resets the
     *                      counter (a Redis Cluster's asynchronous replicas), which then declares none
     */
    public RedisLockDriver(RedisKeyspace node, DriverContext context, boolean fencingTokens) {
        this(node, new LateWrites(node.operationTimeout()), new Revocations(context), true, fencingTokens);
    }

    /**
     * For a {@link WaitConfirmedDriver}, whose targets may change (a primary followed across
     * failovers): each target's driver shares the one record of requests whose writes may still
     * land, so that a request that met an unknown outcome on one is still withdrawn with its marker
     * on the next, and the one record of held leases whose revocations it listens for.
     *
     * @param node        the connected server or cluster; closed with this driver
     * @param lateWrites  the requests whose writes may still land, shared
     * @param revocations the held leases and their revocations, shared (closed by its owner, not here)
     */
    public RedisLockDriver(RedisKeyspace node, LateWrites lateWrites, Revocations revocations) {
        this(node, lateWrites, revocations, false, false);
    }

    private RedisLockDriver(RedisKeyspace node, LateWrites lateWrites, Revocations revocations, boolean ownsRevocations,
                            boolean fencingTokens) {
        this.node = node;
        this.lateWrites = lateWrites;
        this.revocations = revocations;
        this.ownsRevocations = ownsRevocations;
        this.fencingTokens = fencingTokens;
    }

    /** A name whose keys the keyspace cannot keep together is refused ({@link RedisKeyspace#checkName}). */
    @Override
    public void checkName(String name) {
        node.checkName(name);
    }

    /**
     * One script for any kind of hold ({@link HoldCalls#acquire}); a permit whose semaphore's holders
     * use another count is refused with {@link io.distlock.PermitCountMismatchException}, nothing
     * written.
     */
    @Override
    public Attempt tryAcquire(LockRequest request) {
        acquiring(request); // subscribed, and its token listened for, while the acquire is on its way
        RedisNode.Acquired acquired;
        try {
            acquired = HoldCalls.acquired(request, node.eval(operation("acquire", request),
                    HoldCalls.acquire(request, revocations.owner())));
        } catch (BackendUnavailableException e) {
            lateWrites.outcomeUnknown(request.ownerToken());
            throw e;
        }
        if (acquired.granted()) {
            granted(request);
            return Attempt.granted(new Grant(request, fencingTokens ? OptionalLong.of(acquired.fence()) : OptionalLong.empty(), null));
        }
        busy(request);
        if (acquired.refused()) {
            lateWrites.refused(request.ownerToken());
            throw HoldCalls.mismatch(request, acquired);
        }
        return acquired.holderPttlMillis() >= 0
                ? Attempt.busy(Duration.ofMillis(acquired.holderPttlMillis()))
                : Attempt.busy();
    }

    /**
     * Records a grant, for revocation notices: its token is listened for on this server from now on,
     * and the first grant on it waits (briefly) for the subscription's confirmation
     * ({@link Revocations#awaitListening}). For a backend that takes the lock with its own call
     * (Redis + {@code WAIT}'s pipelined acquire), after {@link #acquiring}. Every kind of hold is
     * listened for: a lock, a reader, the writer and a permit can each be revoked.
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
     * Records that an attempt was refused with nothing written (a permit count mismatch), for a
     * backend that takes the hold with its own call: its abandonment then removes nothing.
     *
     * @param request the refused request
     */
    public void refused(LockRequest request) {
        revocations.ended(request.ownerToken());
        lateWrites.refused(request.ownerToken());
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
        ExtendOutcome outcome = HoldCalls.extendOutcome(grant.request().hold(),
                node.eval(operation("extend", grant.request()), HoldCalls.extend(grant, millis(leaseTime))));
        extended(grant, leaseTime, outcome);
        return outcome;
    }

    /** Every compare-and-extend pipelined, whatever its kind of hold: one round trip per {@value RedisNode#PIPELINE_CHUNK}. */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        List<PendingReply.ScriptCall> calls = new ArrayList<>(renewals.size());
        for (Renewal renewal : renewals) {
            calls.add(HoldCalls.extend(renewal.grant(), millis(renewal.leaseTime())));
        }
        List<Object> replies = node.runAll("renew " + renewals.size() + " leases", calls);
        List<ExtendOutcome> outcomes = new ArrayList<>(renewals.size());
        for (int i = 0; i < replies.size(); i++) {
            Renewal renewal = renewals.get(i);
            ExtendOutcome outcome = HoldCalls.extendOutcome(renewal.grant().request().hold(), replies.get(i));
            extended(renewal.grant(), renewal.leaseTime(), outcome);
            outcomes.add(outcome);
        }
        return outcomes;
    }

    /**
     * Compare-and-delete; for a grant of a request that had an attempt with an unknown outcome
     * (retried, then granted), also the abandoned marker, since that attempt's write may still land.
     * A release whose announcement reached a waiter says so to the engine, with its round trip
     * ({@link DriverContext#releaseWokeWaiters}).
     */
    @Override
    public boolean release(Grant grant) {
        revocations.ended(grant.ownerToken());
        if (!lateWrites.mayLand(grant.ownerToken())) {
            long sent = System.nanoTime();
            Object reply = node.eval(operation("release", grant.request()), HoldCalls.release(grant.request()));
            if (HoldCalls.wokeWaiters(reply)) {
                revocations.context().releaseWokeWaiters(grant.name(), Duration.ofNanos(System.nanoTime() - sent));
            }
            return HoldCalls.one(reply);
        }
        return withdraw(grant.request());
    }

    /**
     * A busy attempt wrote nothing — but a write's, which registered it as a waiting writer — so
     * only an attempt whose reply was lost can have left a hold of this request's token, or may
     * still do so: its write can be on its way (held in the network, on a connection the client
     * gave up) and land after this call. So after an unknown outcome this deletes what the token
     * holds and leaves a marker that the acquire scripts check ({@link LockScripts#ABANDON}): a late
     * write of the request then takes nothing. The marker lives the request's lease time plus the
     * operation timeout ({@link LateWrites#markerMillis}). Markers exist only after unknown
     * outcomes, so a server that answers costs one {@code EXISTS} per acquire and no memory. A write
     * request whose outcomes were all known withdraws its waiting entry (one round trip), so that
     * readers held back by it come in at once.
     */
    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        revocations.ended(request.ownerToken());
        boolean refused = lateWrites.takeRefused(request.ownerToken());
        if ((outcomeUnknown && !refused) || lateWrites.mayLand(request.ownerToken())) {
            withdraw(request);
        } else if (HoldCalls.leavesWaitingEntry(request)) {
            node.eval(operation("withdraw", request), HoldCalls.abandon(request, 0));
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
                    ? HoldCalls.abandon(request, lateWrites.markerMillis(millis(request.leaseTime())))
                    : HoldCalls.release(request));
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
        boolean deleted = HoldCalls.one(node.eval(operation("clean up after an acquire of", request),
                HoldCalls.abandon(request, lateWrites.markerMillis(millis(request.leaseTime())))));
        lateWrites.settled(request.ownerToken());
        return deleted;
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        return node.watch(name, onChange);
    }

    /** The channel that announces what the request waits for ({@link HoldCalls#channel}). */
    @Override
    public Watch watch(LockRequest request, Runnable onChange) {
        return node.subscribe(HoldCalls.channel(request), onChange);
    }

    /** One round trip: a {@code MULTI} of reads ({@link LockSnapshot}). */
    @Override
    public Optional<LockInfo> inspect(String name) {
        LockSnapshot snapshot = node.inspect(name);
        if (snapshot.wrongType()) {
            throw new LockException("Redis at " + node.describe() + ": lock key " + LockScripts.lockKey(name)
                    + " holds another type than a string: it is not a distlock lock");
        }
        return snapshot.held() ? Optional.of(snapshot.info(fencingTokens, true)) : Optional.empty();
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
                holders.add(snapshot.info(fencingTokens, true));
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
        return Optional.of(new Revoked(revocation.snapshot().info(fencingTokens, true), revocation.snapshot().ownerToken()));
    }

    /**
     * One round trip: a {@code MULTI} of reads with the server's {@code TIME} ({@link HoldSnapshot}).
     * Each hold's id is its grant's fence; the fencing token shown is the same number.
     */
    @Override
    public List<LockInfo> holds(String name, Feature primitive) {
        return node.holds(name, primitive).infos(fencingTokens);
    }

    /**
     * One script ({@link ReadWriteScripts#REVOKE}, {@link SemaphoreScripts#REVOKE}): the hold found
     * by its id, marker, fence, removal, notices, atomically. An id this backend never gives (not a
     * grant's number) is answered empty without asking the server.
     */
    @Override
    public Optional<Revoked> revokeHold(String name, Feature primitive, String holdId, String reason) {
        OptionalLong id = HoldSnapshot.holdId(holdId);
        if (id.isEmpty()) {
            return Optional.empty();
        }
        return HoldSnapshot.revoked(name, primitive, node.eval("revoke the hold " + holdId + " of " + HoldSnapshot.what(name, primitive),
                HoldCalls.revoke(name, primitive, id.getAsLong(), reason)), fencingTokens);
    }

    /**
     * @param verb    what is done
     * @param request to what
     * @return {@code <verb> '<name>'} for a lock, {@code <verb> the <hold> '<name>'} for the other holds
     */
    public static String operation(String verb, LockRequest request) {
        return request.hold().kind() == Hold.Kind.EXCLUSIVE ? verb + " '" + request.name() + "'"
                : verb + " the " + request.hold().describe() + " '" + request.name() + "'";
    }

    /** @return the server or cluster this driver runs on */
    public RedisKeyspace keyspace() {
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
        return "RedisLockDriver[" + node.describe() + "]";
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
