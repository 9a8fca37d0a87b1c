package io.distlock.rediswait.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.redis.support.HoldCalls;
import io.distlock.redis.support.HoldSnapshot;
import io.distlock.redis.support.LateWrites;
import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.LockSnapshot;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.PendingReply.CommandCall;
import io.distlock.redis.support.PendingReply.ScriptCall;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.redis.support.Revocations;
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
 * The Redis + {@code WAIT} {@link LockDriver}: the single-Redis lock ({@link LockScripts}) on a
 * primary, where a grant or an extension counts only once {@code WAIT replicas waitTimeout}, sent
 * on the same connection right behind it, says that many replicas acknowledged it.
 *
 * <p><b>One round trip.</b> The script and the {@code WAIT} are pipelined ({@link RedisNode#send}):
 * {@code WAIT} counts the acknowledgements of the writes its own connection sent before it, so the
 * two must share a connection, and pipelining them costs the uncontended acquire one round trip,
 * as on a single server, plus the replicas' acknowledgement. The reply is awaited up to the
 * operation timeout plus {@code waitTimeout} (the server holds {@code WAIT}'s reply that long).
 *
 * <p><b>Fewer acknowledgements than {@code replicas}</b> mean the write is on the primary but may
 * not survive its failover: the outcome is unknown. A grant is then withdrawn at once by owner
 * token (compare-and-delete, which also wakes waiters) and reported unknown, so a single attempt
 * throws {@link BackendUnavailableException} and a waiting acquire tries again with the same
 * request; the request is recorded as one whose write may still land ({@link LateWrites}), so
 * however it ends, its removal leaves the abandoned marker. An extension is reported unknown,
 * never lost (the key may still be ours): the engine keeps the validity the last confirmed
 * extension gave and retries a renewal until then.
 *
 * <p><b>Validity</b> is the engine's: counted from the moment the attempt (or extension) was sent,
 * so the time {@code WAIT} took is already spent. <b>Release</b> sends no {@code WAIT}: a release
 * that reaches a replica late never lets two clients hold the lock, it only keeps it taken a little
 * longer on a replica that becomes primary.
 *
 * <p><b>Every kind of hold</b> — a lock, a read or write hold of a read-write lock, a semaphore's
 * permit — goes the same way: {@link HoldCalls} gives the single-Redis script of each, and this
 * driver pipelines it with the {@code WAIT}; release, withdrawal and the abandoned marker are the
 * single-Redis driver's ({@link RedisLockDriver}). A busy write attempt registers its writer as
 * waiting (write preference) without waiting for replicas: a failover that loses that entry only
 * lets readers in ahead of the writer, never two holders at once.
 *
 * <p>No fencing token: the acquire script's counter is replicated by the same best-effort
 * {@code WAIT}, so it too goes back after a failover to a replica that had not received its latest
 * increments.
 */
public final class RedisWaitDriver implements LockDriver {

    /** Renewals per pipeline, each pipeline followed by one {@code WAIT}. */
    private static final int PIPELINE_CHUNK = 4096;

    private final Primary primary;
    private final LateWrites lateWrites;
    private final Revocations revocations;
    private final int replicas;
    private final Duration waitTimeout;
    private final CommandCall waitCall;
    private final long replyBoundNanos;

    private RedisWaitDriver(Primary primary, LateWrites lateWrites, Revocations revocations, RedisWaitSettings settings,
                            LockOptions options) {
        this.primary = primary;
        this.lateWrites = lateWrites;
        this.revocations = revocations;
        this.replicas = settings.replicas();
        this.waitTimeout = settings.waitTimeout();
        this.waitCall = new CommandCall("WAIT", List.of(Integer.toString(replicas), Long.toString(waitTimeout.toMillis())));
        this.replyBoundNanos = options.operationTimeout().plus(waitTimeout).toNanos();
    }

    /**
     * Connects to the primary (fixed, or found through the Sentinels) and checks that it reports
     * at least {@code replicas} connected replicas.
     *
     * @param settings the parsed URI
     * @param options  the client's options
     * @param context  the engine: the owner description grants record, and where revocations go
     * @return the connected driver
     * @throws IllegalArgumentException                 if the primary reports fewer connected replicas than
     *                                                  {@code replicas}, the named node is not a primary, or no
     *                                                  Sentinel knows the master name
     * @throws BackendUnavailableException             if the primary (or every Sentinel) cannot be reached
     *                                                  within the connect timeout
     * @throws io.distlock.LockException                if the primary refuses the credentials
     */
    public static RedisWaitDriver connect(RedisWaitSettings settings, LockOptions options, DriverContext context) {
        // A write given up after the operation timeout plus WAIT's may still be on its way that long.
        LateWrites lateWrites = new LateWrites(options.operationTimeout().plus(settings.waitTimeout()));
        Revocations revocations = new Revocations(context);
        Primary primary;
        try {
            primary = settings.viaSentinel()
                    ? SentinelPrimary.connect(settings, options, lateWrites, revocations)
                    : FixedPrimary.connect(settings, options, lateWrites, revocations);
        } catch (RuntimeException e) {
            revocations.close();
            throw e;
        }
        try {
            Primary.Target target = primary.current();
            int connected = target.check().connectedReplicas();
            if (connected < settings.replicas()) {
                throw new IllegalArgumentException("redis-wait URI '" + settings + "' asks for replicas=" + settings.replicas()
                        + ", but the primary at " + target + " reports " + Math.max(0, connected) + " connected replica(s)"
                        + " (INFO replication, connected_slaves): no grant could be confirmed. Lower replicas, or connect"
                        + " once the replicas are up");
            }
            return new RedisWaitDriver(primary, lateWrites, revocations, settings, options);
        } catch (RuntimeException e) {
            primary.close();
            revocations.close();
            throw e;
        }
    }

    /**
     * The acquire script of the request's hold ({@link HoldCalls#acquire}) and {@code WAIT},
     * pipelined; granted only with enough acknowledgements. A permit whose semaphore's holders use
     * another count is refused ({@link io.distlock.PermitCountMismatchException}, nothing written).
     *
     * @throws IllegalArgumentException if the lease time is not longer than {@code waitTimeout}
     */
    @Override
    public Attempt tryAcquire(LockRequest request) {
        String operation = RedisLockDriver.operation("acquire", request);
        checkLeaseTime(request.leaseTime(), operation);
        ScriptCall acquire = HoldCalls.acquire(request, revocations.owner());
        Primary.Target target = primary.current();
        target.locks().acquiring(request); // subscribed to revocations, and its token listened for, while on its way
        RedisNode.Acquired acquired;
        PendingReply.Replies replies;
        try {
            replies = roundTrip(target, operation, List.of(acquire, waitCall));
            acquired = HoldCalls.acquired(request, value(target, replies, 0));
        } catch (BackendUnavailableException e) {
            lateWrites.outcomeUnknown(request.ownerToken()); // the write may have landed, or may still land
            return Attempt.unknown(e);
        }
        if (acquired.refused()) {
            target.locks().refused(request);
            throw HoldCalls.mismatch(request, acquired);
        }
        if (!acquired.granted()) {
            target.locks().busy(request);
            long holderPttl = acquired.holderPttlMillis();
            return holderPttl >= 0 ? Attempt.busy(Duration.ofMillis(holderPttl)) : Attempt.busy();
        }
        long acknowledged = acknowledgements(replies, 1);
        if (acknowledged >= replicas) {
            target.locks().granted(request);
            return Attempt.granted(new Grant(request, OptionalLong.empty(), null));
        }
        // Granted on the primary only: it may not survive a failover, so it does not count. A
        // waiting acquire retries this request, so it is withdrawn without the marker that would
        // refuse that retry; the marker comes with whatever ends the request (see LateWrites).
        lateWrites.outcomeUnknown(request.ownerToken());
        String withdrawn;
        try {
            target.node().eval(RedisLockDriver.operation("release", request), HoldCalls.release(request));
            withdrawn = "the grant was withdrawn";
        } catch (RuntimeException e) {
            withdrawn = "withdrawing the grant got no answer either (it is retried by owner token): " + e.getMessage();
        }
        return Attempt.unknown(new BackendUnavailableException(target.toString(), "Redis at " + target + " "
                + RedisLockDriver.operation("granted", request) + ", but " + acknowledged + " of " + replicas
                + " replicas acknowledged within waitTimeout (" + waitTimeout.toMillis() + " ms): not confirmed, as a"
                + " failover could lose it; " + withdrawn, null));
    }

    /**
     * Compare-and-extend and {@code WAIT}, pipelined: lost if the primary no longer holds the
     * grant's token, unknown if too few replicas acknowledged.
     *
     * @throws IllegalArgumentException if the lease time is not longer than {@code waitTimeout}
     */
    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        String operation = RedisLockDriver.operation("extend", grant.request());
        checkLeaseTime(leaseTime, operation);
        Primary.Target target = primary.current();
        PendingReply.Replies replies = roundTrip(target, operation,
                List.of(HoldCalls.extend(grant, RedisLockDriver.millis(leaseTime)), waitCall));
        ExtendOutcome answered = HoldCalls.extendOutcome(grant.request().hold(), value(target, replies, 0));
        long acknowledged = acknowledgements(replies, 1);
        ExtendOutcome outcome = !answered.isExtended() || acknowledged >= replicas ? answered
                : ExtendOutcome.unknown(unconfirmedExtension(target, "the extension of '" + grant.name() + "'", acknowledged));
        target.locks().extended(grant, leaseTime, outcome);
        return outcome;
    }

    /**
     * Every renewal pipelined on one connection and one {@code WAIT} after them (per
     * {@value #PIPELINE_CHUNK}): one acknowledgement count confirms them all, or none.
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        List<ExtendOutcome> outcomes = new ArrayList<>(renewals.size());
        Primary.Target target = primary.current();
        for (int from = 0; from < renewals.size(); from += PIPELINE_CHUNK) {
            List<Renewal> chunk = renewals.subList(from, Math.min(renewals.size(), from + PIPELINE_CHUNK));
            List<PendingReply.Call> calls = new ArrayList<>(chunk.size() + 1);
            for (Renewal renewal : chunk) {
                calls.add(HoldCalls.extend(renewal.grant(), RedisLockDriver.millis(renewal.leaseTime())));
            }
            calls.add(waitCall);
            PendingReply.Replies replies = roundTrip(target, "renew " + chunk.size() + " leases", calls);
            long acknowledged = acknowledgements(replies, chunk.size());
            BackendUnavailableException unconfirmed = acknowledged >= replicas ? null
                    : unconfirmedExtension(target, "the renewal of " + chunk.size() + " lease(s)", acknowledged);
            for (int i = 0; i < chunk.size(); i++) {
                ExtendOutcome answered = HoldCalls.extendOutcome(chunk.get(i).grant().request().hold(), value(target, replies, i));
                ExtendOutcome outcome = !answered.isExtended() || unconfirmed == null ? answered : ExtendOutcome.unknown(unconfirmed);
                target.locks().extended(chunk.get(i).grant(), chunk.get(i).leaseTime(), outcome);
                outcomes.add(outcome);
            }
        }
        return outcomes;
    }

    /** Compare-and-delete on the primary, without {@code WAIT} (a late release never lets two hold the lock). */
    @Override
    public boolean release(Grant grant) {
        Primary.Target target = primary.current();
        try {
            return target.locks().release(grant);
        } catch (RuntimeException e) {
            throw unanswered(target, e, "release '" + grant.name() + "'");
        }
    }

    @Override
    public List<Grant> releaseAll(List<Grant> grants) {
        Primary.Target target = primary.current();
        List<Grant> unconfirmed;
        try {
            unconfirmed = target.locks().releaseAll(grants);
        } catch (IllegalStateException e) {
            if (primary.retired(target)) {
                return List.copyOf(grants); // moved meanwhile: the engine sends them again, to the new primary
            }
            throw e;
        }
        if (!unconfirmed.isEmpty()) {
            primary.suspect(target);
        }
        return unconfirmed;
    }

    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        Primary.Target target = primary.current();
        try {
            target.locks().abandon(request, outcomeUnknown);
        } catch (RuntimeException e) {
            throw unanswered(target, e, "clean up after an acquire of '" + request.name() + "'");
        }
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        return primary.watch(LockScripts.releaseChannel(name), onChange);
    }

    /** The channel that announces what the request waits for ({@link HoldCalls#channel}), on the primary. */
    @Override
    public Watch watch(LockRequest request, Runnable onChange) {
        return primary.watch(HoldCalls.channel(request), onChange);
    }

    /** One round trip on the primary: a {@code MULTI} of reads, no {@code WAIT} (nothing is written). */
    @Override
    public Optional<LockInfo> inspect(String name) {
        Primary.Target target = primary.current();
        LockSnapshot snapshot;
        try {
            snapshot = target.node().inspect(name);
        } catch (RuntimeException e) {
            throw unanswered(target, e, "inspect '" + name + "'");
        }
        if (snapshot.wrongType()) {
            throw new LockException("Redis at " + target + ": lock key " + LockScripts.lockKey(name)
                    + " holds another type than a string: it is not a distlock lock");
        }
        return snapshot.held() ? Optional.of(snapshot.info(false, false)) : Optional.empty();
    }

    /** {@code SCAN} of the primary's whole keyspace in batches, then the first {@code limit} locks read pipelined. */
    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        Primary.Target target = primary.current();
        List<LockSnapshot> snapshots;
        try {
            snapshots = target.node().inspectAll(target.node().scanLockNames(prefix, limit));
        } catch (RuntimeException e) {
            throw unanswered(target, e, "list the locks under '" + prefix + "'");
        }
        List<LockInfo> holders = new ArrayList<>(snapshots.size());
        for (LockSnapshot snapshot : snapshots) {
            if (snapshot.held() && !snapshot.wrongType()) {
                holders.add(snapshot.info(false, false));
            }
        }
        return holders;
    }

    /**
     * The revoke script ({@link LockScripts#REVOKE}) and {@code WAIT}, pipelined, like every write
     * that must survive a failover: with fewer acknowledgements than {@code replicas} the revoke
     * happened on the primary, but a failover could undo it (the lock would come back to its holder
     * on the promoted replica), so its outcome is unknown: {@link BackendUnavailableException}, and
     * a repeated revoke is harmless. The holder learns of it on the primary either way.
     */
    @Override
    public Optional<Revoked> revoke(String name, String reason) {
        Primary.Target target = primary.current();
        PendingReply.Replies replies = roundTrip(target, "revoke '" + name + "'",
                List.of(RedisNode.revokeCall(name, reason, true), waitCall));
        RedisNode.Revocation revocation = RedisNode.revocation(name, value(target, replies, 0));
        if (revocation == null) {
            return Optional.empty();
        }
        long acknowledged = acknowledgements(replies, 1);
        if (acknowledged < replicas) {
            throw new BackendUnavailableException(target.toString(), "Redis at " + target + " revoked '" + name + "', but "
                    + acknowledged + " of " + replicas + " replicas acknowledged within waitTimeout (" + waitTimeout.toMillis()
                    + " ms): a failover could undo it; inspect tells whether it holds, and revoking again is harmless", null);
        }
        return Optional.of(new Revoked(revocation.snapshot().info(false, false), revocation.snapshot().ownerToken()));
    }

    /**
     * One round trip on the primary: a {@code MULTI} of reads with its {@code TIME}
     * ({@link HoldSnapshot}), no {@code WAIT} (nothing is written). Each hold's id is its grant's
     * fence — the acquire scripts {@code INCR} the primitive's counter here too — but no fencing
     * token is shown: that counter goes back with a failover to a replica that missed increments.
     */
    @Override
    public List<LockInfo> holds(String name, Feature primitive) {
        Primary.Target target = primary.current();
        try {
            return target.node().holds(name, primitive).infos(false);
        } catch (RuntimeException e) {
            throw unanswered(target, e, "list the holds of " + HoldSnapshot.what(name, primitive));
        }
    }

    /**
     * The hold's revoke script ({@link HoldCalls#revoke}) and {@code WAIT}, pipelined, as the lock's
     * {@link #revoke}: with fewer acknowledgements than {@code replicas} the hold was revoked on the
     * primary, but a failover could bring it back to its holder on the promoted replica, so the
     * outcome is unknown ({@link BackendUnavailableException}; {@code holders()} tells, and a
     * repeated revoke is harmless). An id this backend never gives is answered empty without asking.
     */
    @Override
    public Optional<Revoked> revokeHold(String name, Feature primitive, String holdId, String reason) {
        OptionalLong id = HoldSnapshot.holdId(holdId);
        if (id.isEmpty()) {
            return Optional.empty();
        }
        String what = "the hold " + holdId + " of " + HoldSnapshot.what(name, primitive);
        Primary.Target target = primary.current();
        PendingReply.Replies replies = roundTrip(target, "revoke " + what,
                List.of(HoldCalls.revoke(name, primitive, id.getAsLong(), reason), waitCall));
        Optional<Revoked> revoked = HoldSnapshot.revoked(name, primitive, value(target, replies, 0), false);
        long acknowledged = acknowledgements(replies, 1);
        if (revoked.isPresent() && acknowledged < replicas) {
            throw new BackendUnavailableException(target.toString(), "Redis at " + target + " revoked " + what + ", but "
                    + acknowledged + " of " + replicas + " replicas acknowledged within waitTimeout (" + waitTimeout.toMillis()
                    + " ms): a failover could undo it; holders() tells whether it holds, and revoking again is harmless", null);
        }
        return revoked;
    }

    @Override
    public void close() {
        primary.close();
        revocations.close();
    }

    @Override
    public String toString() {
        return "RedisWaitDriver[" + primary + ", replicas=" + replicas + ", waitTimeout=" + waitTimeout.toMillis() + " ms]";
    }

    // ---- helpers -------------------------------------------------------------------------------

    /**
     * A lease no longer than {@code WAIT}'s bound could be spent waiting for acknowledgements
     * before it is granted: refused, as the engine refuses one shorter than its drift allowance.
     */
    private void checkLeaseTime(Duration leaseTime, String operation) {
        if (leaseTime.compareTo(waitTimeout) <= 0) {
            throw new IllegalArgumentException("cannot " + operation + " for " + leaseTime.toMillis() + " ms: the lease time"
                    + " must be longer than the URI's waitTimeout (" + waitTimeout.toMillis() + " ms), which WAIT may spend"
                    + " of it; use a longer lease or a shorter waitTimeout");
        }
    }

    /**
     * Sends the calls pipelined on one connection and reads every reply, within the operation
     * timeout plus {@code waitTimeout}.
     *
     * @throws BackendUnavailableException if the primary did not answer in time (it is then suspected)
     */
    private PendingReply.Replies roundTrip(Primary.Target target, String operation, List<? extends PendingReply.Call> calls) {
        long deadline = System.nanoTime() + replyBoundNanos;
        try {
            return target.node().send(operation, false, calls).await(deadline);
        } catch (RuntimeException e) {
            throw unanswered(target, e, operation);
        }
    }

    /** Reply {@code i}, suspecting the primary if it answered that it is not serving ({@code READONLY}, {@code LOADING}). */
    private Object value(Primary.Target target, PendingReply.Replies replies, int i) {
        try {
            return replies.value(i);
        } catch (BackendUnavailableException e) {
            primary.suspect(target);
            throw e;
        }
    }

    /** {@code WAIT}'s count; an error reply (a primary turning replica mid-pipeline) counts as none. */
    private static long acknowledgements(PendingReply.Replies replies, int i) {
        return replies.values().get(i) instanceof Long count ? count : 0;
    }

    /**
     * What a failed call to the primary becomes: no answer is reported as such, and the primary is
     * suspected (through Sentinel, it is looked up again); a call that found the node closed because
     * the client moved to a new primary meanwhile is no answer too, not a closed client.
     */
    private RuntimeException unanswered(Primary.Target target, RuntimeException e, String operation) {
        if (e instanceof BackendUnavailableException) {
            primary.suspect(target);
            return e;
        }
        if (e instanceof IllegalStateException && primary.retired(target)) {
            return new BackendUnavailableException(target.toString(), "the primary moved away from " + target + " during "
                    + operation + "; the next call goes to the new one", e);
        }
        return e;
    }

    private BackendUnavailableException unconfirmedExtension(Primary.Target target, String what, long acknowledged) {
        return new BackendUnavailableException(target.toString(), what + " on " + target + " is not confirmed: "
                + acknowledged + " of " + replicas + " replicas acknowledged within waitTimeout (" + waitTimeout.toMillis()
                + " ms); the lease keeps the validity its last confirmed extension gave", null);
    }
}
