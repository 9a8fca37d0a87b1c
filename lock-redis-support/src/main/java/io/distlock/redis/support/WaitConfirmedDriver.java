package io.distlock.redis.support;

import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.redis.support.PendingReply.CommandCall;
import io.distlock.redis.support.PendingReply.ScriptCall;
import io.distlock.spi.Attempt;
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
 * The Redis-family lock ({@link RedisLockDriver}'s scripts) where a grant or an extension counts
 * only once {@code WAIT replicas waitTimeout}, sent on the same connection right behind it, says
 * that many replicas acknowledged it: the {@code redis-wait://} backend on its primary, and
 * {@code redis-cluster://?replicas=N} on each slot's primary.
 *
 * <p><b>One round trip.</b> The script and the {@code WAIT} are pipelined
 * ({@link RedisKeyspace#sendTogether}): {@code WAIT} counts the acknowledgements of the writes its
 * own connection sent before it, so the two must share a connection, and pipelining them costs the
 * uncontended acquire one round trip, as on a single server, plus the replicas' acknowledgement. The
 * reply is awaited up to the operation timeout plus {@code waitTimeout} (the server holds
 * {@code WAIT}'s reply that long).
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
 * permit — goes the same way: {@link HoldCalls} gives the script of each, and this driver pipelines
 * it with the {@code WAIT}; release, withdrawal and the abandoned marker are
 * {@link RedisLockDriver}'s. A busy write attempt registers its writer as waiting (write
 * preference) without waiting for replicas: a failover that loses that entry only lets readers in
 * ahead of the writer, never two holders at once.
 *
 * <p>No fencing token: the acquire script's counter is replicated by the same best-effort
 * {@code WAIT}, so it too goes back after a failover to a replica that had not received its latest
 * increments.
 */
public final class WaitConfirmedDriver implements LockDriver {

    /** The most replicas a URI may ask to acknowledge. */
    public static final int MAX_REPLICAS = 64;
    /**
     * 50 ms: a replica on the same network acknowledges in well under a millisecond, and a lease is
     * typically seconds; the time {@code WAIT} takes is spent from the lease's validity, so a longer
     * bound mostly costs validity when a replica is away. Leases must be longer than it.
     */
    public static final int DEFAULT_WAIT_TIMEOUT_MILLIS = 50;
    /** The longest {@code waitTimeout} a URI may give. */
    public static final int MAX_WAIT_TIMEOUT_MILLIS = 60_000;

    /** Renewals per pipeline, each pipeline followed by one {@code WAIT}. */
    private static final int PIPELINE_CHUNK = 4096;

    /**
     * Where the writes go now: a primary (or a cluster's primaries) as this client talks to it.
     * Its {@code toString()} names it in messages, never with a password.
     */
    public interface Target {
        /** @return the server or cluster the scripts and {@code WAIT} are sent to */
        RedisKeyspace keyspace();

        /**
         * @return the lock driver on {@link #keyspace()}, for what needs no {@code WAIT}: release and
         *         withdrawal, sharing this client's record of writes that may still land
         */
        RedisLockDriver locks();
    }

    /** Which {@link Target} to send to now: a fixed one, or a primary followed across failovers. Thread-safe. */
    public interface Primaries extends AutoCloseable {

        /**
         * @return the target to send to now
         * @throws IllegalStateException if closed
         */
        Target current();

        /**
         * Reports that a call to {@code target} got no definite answer (a timeout, a refused or lost
         * connection, a node that answered {@code READONLY}): it may have failed or been demoted.
         *
         * @param target the target the call went to
         */
        void suspect(Target target);

        /**
         * @param target a target returned by {@link #current()}
         * @return true if this client no longer uses it (it followed a failover away from it): a call
         *         that found it closed was cut short by the move, not by the client closing
         */
        default boolean retired(Target target) {
            try {
                return current() != target;
            } catch (IllegalStateException closed) {
                return false;
            }
        }

        /**
         * Release notifications published on {@code channel} (a lock's, a read-write lock's or a
         * semaphore's), wherever its keys are served now.
         *
         * @param channel  the channel
         * @param onChange cheap, non-blocking listener
         * @return the handle that stops them
         */
        Watch watch(String channel, Runnable onChange);

        /** Closes every connection. Idempotent. */
        @Override
        void close();

        /**
         * @param locks the lock driver on a keyspace that follows its own topology (a Redis
         *              Cluster's slot map): the one target, named by its keyspace
         * @return primaries that always answer that target: nothing to suspect, and notifications
         *         subscribed through its keyspace; closing closes the lock driver
         */
        static Primaries of(RedisLockDriver locks) {
            Target target = new Target() {
                @Override
                public RedisKeyspace keyspace() {
                    return locks.keyspace();
                }

                @Override
                public RedisLockDriver locks() {
                    return locks;
                }

                @Override
                public String toString() {
                    return locks.keyspace().describe();
                }
            };
            return new Primaries() {
                @Override
                public Target current() {
                    return target;
                }

                @Override
                public void suspect(Target failed) {
                    // the keyspace reads its topology again itself on a failure
                }

                @Override
                public Watch watch(String channel, Runnable onChange) {
                    return target.keyspace().subscribe(channel, onChange);
                }

                @Override
                public void close() {
                    locks.close();
                }

                @Override
                public String toString() {
                    return target.toString();
                }
            };
        }
    }

    private final Primaries primaries;
    private final LateWrites lateWrites;
    private final Revocations revocations;
    private final int replicas;
    private final Duration waitTimeout;
    private final CommandCall waitCall;
    private final long replyBoundNanos;

    /**
     * @param primaries        where the writes go; closed with this driver
     * @param lateWrites       the record of requests whose writes may still land, shared with every
     *                         target's {@link RedisLockDriver} (its bound is the operation timeout
     *                         plus {@code waitTimeout})
     * @param revocations      the held leases and their revocations, shared with every target's
     *                         lock driver; closed with this driver
     * @param replicas         how many replicas must acknowledge a grant or an extension, at least 1
     * @param waitTimeout      how long {@code WAIT} may block; leases must be longer
     * @param operationTimeout the client's bound on each reply, to which {@code waitTimeout} is added
     */
    public WaitConfirmedDriver(Primaries primaries, LateWrites lateWrites, Revocations revocations, int replicas,
                               Duration waitTimeout, Duration operationTimeout) {
        this.primaries = primaries;
        this.lateWrites = lateWrites;
        this.revocations = revocations;
        this.replicas = replicas;
        this.waitTimeout = waitTimeout;
        this.waitCall = new CommandCall("WAIT", List.of(Integer.toString(replicas), Long.toString(waitTimeout.toMillis())));
        this.replyBoundNanos = operationTimeout.plus(waitTimeout).toNanos();
    }

    /** A name whose keys the keyspace cannot keep together is refused ({@link RedisKeyspace#checkName}). */
    @Override
    public void checkName(String name) {
        primaries.current().keyspace().checkName(name);
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
        Target target = primaries.current();
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
            target.keyspace().eval(RedisLockDriver.operation("release", request), HoldCalls.release(request));
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
        Target target = primaries.current();
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
     * The renewals of each server ({@link RedisKeyspace#byServer}: one primary, or each slot primary
     * of a cluster) pipelined on one connection and one {@code WAIT} after them (per
     * {@value #PIPELINE_CHUNK}): one acknowledgement count confirms them all, or none; a server that
     * does not answer leaves its renewals unknown, not the others'.
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        ExtendOutcome[] outcomes = new ExtendOutcome[renewals.size()];
        Target target = primaries.current();
        List<PendingReply.Call> extensions = new ArrayList<>(renewals.size());
        for (Renewal renewal : renewals) {
            extensions.add(HoldCalls.extend(renewal.grant(), RedisLockDriver.millis(renewal.leaseTime())));
        }
        // WAIT counts its own connection's writes on one server: each server's renewals go together.
        for (List<Integer> group : target.keyspace().byServer(extensions)) {
            for (int from = 0; from < group.size(); from += PIPELINE_CHUNK) {
                List<Integer> chunk = group.subList(from, Math.min(group.size(), from + PIPELINE_CHUNK));
                List<PendingReply.Call> calls = new ArrayList<>(chunk.size() + 1);
                for (int index : chunk) {
                    calls.add(extensions.get(index));
                }
                calls.add(waitCall);
                renewChunk(target, renewals, chunk, calls, outcomes);
            }
        }
        return List.of(outcomes);
    }

    /** One pipeline of renewals on one server and its {@code WAIT}: confirmed all at once, or none. */
    private void renewChunk(Target target, List<Renewal> renewals, List<Integer> chunk, List<PendingReply.Call> calls,
                            ExtendOutcome[] outcomes) {
        PendingReply.Replies replies;
        try {
            replies = roundTrip(target, "renew " + chunk.size() + " leases", calls);
        } catch (BackendUnavailableException e) {
            for (int index : chunk) {
                outcomes[index] = ExtendOutcome.unknown(e); // no answer: they may or may not be extended
            }
            return;
        }
        long acknowledged = acknowledgements(replies, chunk.size());
        BackendUnavailableException unconfirmed = acknowledged >= replicas ? null
                : unconfirmedExtension(target, "the renewal of " + chunk.size() + " lease(s)", acknowledged);
        for (int i = 0; i < chunk.size(); i++) {
            Renewal renewal = renewals.get(chunk.get(i));
            ExtendOutcome answered = HoldCalls.extendOutcome(renewal.grant().request().hold(), value(target, replies, i));
            ExtendOutcome outcome = !answered.isExtended() || unconfirmed == null ? answered : ExtendOutcome.unknown(unconfirmed);
            target.locks().extended(renewal.grant(), renewal.leaseTime(), outcome);
            outcomes[chunk.get(i)] = outcome;
        }
    }

    /** Compare-and-delete on the primary, without {@code WAIT} (a late release never lets two hold the lock). */
    @Override
    public boolean release(Grant grant) {
        Target target = primaries.current();
        try {
            return target.locks().release(grant);
        } catch (RuntimeException e) {
            throw unanswered(target, e, "release '" + grant.name() + "'");
        }
    }

    @Override
    public List<Grant> releaseAll(List<Grant> grants) {
        Target target = primaries.current();
        List<Grant> unconfirmed;
        try {
            unconfirmed = target.locks().releaseAll(grants);
        } catch (IllegalStateException e) {
            if (primaries.retired(target)) {
                return List.copyOf(grants); // moved meanwhile: the engine sends them again, to the new primary
            }
            throw e;
        }
        if (!unconfirmed.isEmpty()) {
            primaries.suspect(target);
        }
        return unconfirmed;
    }

    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        Target target = primaries.current();
        try {
            target.locks().abandon(request, outcomeUnknown);
        } catch (RuntimeException e) {
            throw unanswered(target, e, "clean up after an acquire of '" + request.name() + "'");
        }
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        return primaries.watch(LockScripts.releaseChannel(name), onChange);
    }

    /** The channel that announces what the request waits for ({@link HoldCalls#channel}), on the primaries. */
    @Override
    public Watch watch(LockRequest request, Runnable onChange) {
        return primaries.watch(HoldCalls.channel(request), onChange);
    }

    /** One round trip on the primary: a {@code MULTI} of reads, no {@code WAIT} (nothing is written). */
    @Override
    public Optional<LockInfo> inspect(String name) {
        Target target = primaries.current();
        LockSnapshot snapshot;
        try {
            snapshot = target.keyspace().inspect(name);
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
        Target target = primaries.current();
        List<LockSnapshot> snapshots;
        try {
            snapshots = target.keyspace().inspectAll(target.keyspace().scanLockNames(prefix, limit));
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
        Target target = primaries.current();
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
        Target target = primaries.current();
        try {
            return target.keyspace().holds(name, primitive).infos(false);
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
        Target target = primaries.current();
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
        primaries.close();
        revocations.close();
    }

    @Override
    public String toString() {
        return "WaitConfirmedDriver[" + primaries + ", replicas=" + replicas + ", waitTimeout=" + waitTimeout.toMillis() + " ms]";
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
    private PendingReply.Replies roundTrip(Target target, String operation, List<? extends PendingReply.Call> calls) {
        long deadline = System.nanoTime() + replyBoundNanos;
        try {
            return target.keyspace().sendTogether(operation, calls, deadline);
        } catch (RuntimeException e) {
            throw unanswered(target, e, operation);
        }
    }

    /** Reply {@code i}, suspecting the primary if it answered that it is not serving ({@code READONLY}, {@code LOADING}). */
    private Object value(Target target, PendingReply.Replies replies, int i) {
        try {
            return replies.value(i);
        } catch (BackendUnavailableException e) {
            primaries.suspect(target);
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
    private RuntimeException unanswered(Target target, RuntimeException e, String operation) {
        if (e instanceof BackendUnavailableException) {
            primaries.suspect(target);
            return e;
        }
        if (e instanceof IllegalStateException && primaries.retired(target)) {
            return new BackendUnavailableException(target.toString(), "the primary moved away from " + target + " during "
                    + operation + "; the next call goes to the new one", e);
        }
        return e;
    }

    private BackendUnavailableException unconfirmedExtension(Target target, String what, long acknowledged) {
        return new BackendUnavailableException(target.toString(), what + " on " + target + " is not confirmed: "
                + acknowledged + " of " + replicas + " replicas acknowledged within waitTimeout (" + waitTimeout.toMillis()
                + " ms); the lease keeps the validity its last confirmed extension gave", null);
    }
}
