package io.distlock.redis.support;

import io.distlock.Feature;
import io.distlock.PermitCountMismatchException;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;

import java.util.List;

/**
 * The script call for each operation on each kind of {@link Hold}, and what its reply says: the one
 * place that maps a request to its keys, so that the single-Redis driver and Redis + {@code WAIT}
 * (which pipelines the same calls with a {@code WAIT} behind them) send the same thing. A lock
 * ({@link Hold.Kind#EXCLUSIVE}) is {@link LockScripts}' layout; a read or write hold
 * {@link ReadWriteScripts}'; a permit {@link SemaphoreScripts}'.
 */
public final class HoldCalls {

    /**
     * The shortest a waiting writer's entry lives ({@link ReadWriteScripts#ACQUIRE_WRITE}), in ms: a
     * live waiting writer renews it at each attempt, and its attempts come at most a third of the
     * entry's life apart ({@link #busyHint}), so that a slow reply or a short pause of the writer's
     * process does not let readers in ahead of it. A dead one holds new readers back this long at
     * most, or its lease time if longer.
     */
    public static final long WAITING_WRITER_MIN_MILLIS = 2_000;

    private HoldCalls() {
    }

    /**
     * @param leaseMillis a write request's lease time in ms
     * @return how long its waiting entry lives after each busy attempt: its lease time, at least
     *         {@value #WAITING_WRITER_MIN_MILLIS} ms
     */
    public static long waitingWriterMillis(long leaseMillis) {
        return Math.max(leaseMillis, WAITING_WRITER_MIN_MILLIS);
    }

    /**
     * @param request the request
     * @param owner   the owner description its grant records
     * @return one attempt for it
     */
    public static PendingReply.ScriptCall acquire(LockRequest request, String owner) {
        String name = request.name();
        String token = request.ownerToken();
        long lease = RedisLockDriver.millis(request.leaseTime());
        switch (request.hold().kind()) {
            case READ:
                return new PendingReply.ScriptCall(ReadWriteScripts.ACQUIRE_READ, ReadWriteScripts.acquireReadKeys(name, token),
                        List.of(token, Long.toString(lease), owner));
            case WRITE:
                return new PendingReply.ScriptCall(ReadWriteScripts.ACQUIRE_WRITE, ReadWriteScripts.acquireWriteKeys(name, token),
                        List.of(token, Long.toString(lease), owner, Long.toString(waitingWriterMillis(lease))));
            case PERMIT:
                return new PendingReply.ScriptCall(SemaphoreScripts.ACQUIRE,
                        List.of(SemaphoreScripts.holdersKey(name), SemaphoreScripts.ownersKey(name),
                                SemaphoreScripts.permitsKey(name), SemaphoreScripts.fenceKey(name),
                                SemaphoreScripts.abandonedKey(name, token)),
                        List.of(token, Long.toString(lease), owner, Integer.toString(request.hold().permits())));
            default:
                return RedisNode.acquireCall(name, token, lease, owner);
        }
    }

    /**
     * Decodes an attempt's reply: granted with the fence, busy with how long until the state may
     * change ({@code -1}: unknown), or — for a permit — refused for another permit count.
     *
     * @param request the request
     * @param reply   its acquire script's reply
     * @return the outcome; {@link RedisNode.Acquired#refused()} for a count mismatch
     */
    public static RedisNode.Acquired acquired(LockRequest request, Object reply) {
        if (request.hold().kind() == Hold.Kind.EXCLUSIVE) {
            return RedisNode.acquired(reply);
        }
        List<?> values = (List<?>) reply;
        long code = (Long) values.get(0);
        long value = (Long) values.get(1);
        if (code == 1L) {
            return new RedisNode.Acquired(true, value, 0);
        }
        if (code == 2L) {
            return RedisNode.Acquired.refusedFor((int) value);
        }
        return new RedisNode.Acquired(false, 0, busyHint(request, value));
    }

    /**
     * How long a busy request may wait before its next attempt: what the server said (the holder's
     * remaining time), for a write at most a third of its waiting entry's life, so that a live
     * waiting writer refreshes its entry before it lapses whatever the client's poll interval.
     */
    private static long busyHint(LockRequest request, long serverHint) {
        if (request.hold().kind() != Hold.Kind.WRITE || serverHint == -2) {
            return serverHint;
        }
        long third = waitingWriterMillis(RedisLockDriver.millis(request.leaseTime())) / 3;
        return serverHint < 0 ? third : Math.min(serverHint, third);
    }

    /**
     * @param request the refused request
     * @param refused its attempt's outcome ({@link RedisNode.Acquired#refused()})
     * @return the exception the attempt throws
     */
    public static PermitCountMismatchException mismatch(LockRequest request, RedisNode.Acquired refused) {
        return new PermitCountMismatchException(request.name(), refused.storedPermits(), request.hold().permits());
    }

    /**
     * @param grant       the grant
     * @param leaseMillis the new lease time in ms
     * @return its compare-and-extend, monotone
     */
    public static PendingReply.ScriptCall extend(Grant grant, long leaseMillis) {
        String name = grant.name();
        String token = grant.ownerToken();
        String lease = Long.toString(leaseMillis);
        switch (grant.request().hold().kind()) {
            // The marker is the same key for every kind of hold: owner tokens are never reused.
            case READ:
                return new PendingReply.ScriptCall(HoldLua.EXTEND_MEMBER,
                        List.of(ReadWriteScripts.readersKey(name), ReadWriteScripts.readerOwnersKey(name)),
                        List.of(token, lease, LockScripts.revokedKey(name, token)));
            case WRITE:
                return new PendingReply.ScriptCall(ReadWriteScripts.EXTEND_WRITE,
                        List.of(ReadWriteScripts.writerKey(name), ReadWriteScripts.writerOwnerKey(name)),
                        List.of(token, lease, LockScripts.revokedKey(name, token)));
            case PERMIT:
                return new PendingReply.ScriptCall(HoldLua.EXTEND_MEMBER, SemaphoreScripts.holdKeys(name),
                        List.of(token, lease, LockScripts.revokedKey(name, token)));
            default:
                return RedisNode.extendCall(name, token, leaseMillis);
        }
    }

    /**
     * @param hold  the extended grant's hold
     * @param reply its extend script's reply
     * @return extended; or lost, revoked with the operator's reason if its marker was found (every
     *         kind's extend script answers it, as {@link LockScripts#EXTEND} does)
     */
    public static ExtendOutcome extendOutcome(Hold hold, Object reply) {
        return RedisNode.extendOutcome(reply);
    }

    /**
     * An operator's revoke of one hold of a read-write lock or a semaphore: {@link ReadWriteScripts#REVOKE}
     * or {@link SemaphoreScripts#REVOKE}, whose reply {@link HoldSnapshot#revoked} reads.
     *
     * @param name      the primitive's name
     * @param primitive {@link Feature#READ_WRITE} or {@link Feature#SEMAPHORE}
     * @param holdId    the hold's id, in the form {@link HoldSnapshot#holdId} accepts
     * @param reason    the operator's reason
     * @return the revoke
     */
    public static PendingReply.ScriptCall revoke(String name, Feature primitive, long holdId, String reason) {
        String id = Long.toString(holdId);
        String grace = Long.toString(LockScripts.REVOKED_MARKER_GRACE_MILLIS);
        if (primitive == Feature.SEMAPHORE) {
            return new PendingReply.ScriptCall(SemaphoreScripts.REVOKE,
                    List.of(SemaphoreScripts.holdersKey(name), SemaphoreScripts.ownersKey(name), SemaphoreScripts.permitsKey(name),
                            SemaphoreScripts.fenceKey(name)),
                    List.of(id, LockScripts.revokedPrefix(name), reason, grace, LockScripts.REVOKED_CHANNEL,
                            SemaphoreScripts.channel(name), name));
        }
        return new PendingReply.ScriptCall(ReadWriteScripts.REVOKE,
                List.of(ReadWriteScripts.readersKey(name), ReadWriteScripts.readerOwnersKey(name), ReadWriteScripts.writerKey(name),
                        ReadWriteScripts.writerOwnerKey(name), ReadWriteScripts.fenceKey(name)),
                List.of(id, LockScripts.revokedPrefix(name), reason, grace, LockScripts.REVOKED_CHANNEL,
                        ReadWriteScripts.readersChannel(name), ReadWriteScripts.writersChannel(name), name));
    }

    /**
     * @param request the granted request
     * @return its compare-and-delete, which wakes the waiters it may let in
     */
    public static PendingReply.ScriptCall release(LockRequest request) {
        String name = request.name();
        String token = request.ownerToken();
        switch (request.hold().kind()) {
            case READ:
                return new PendingReply.ScriptCall(ReadWriteScripts.RELEASE_READ,
                        List.of(ReadWriteScripts.readersKey(name), ReadWriteScripts.readerOwnersKey(name)),
                        List.of(token, ReadWriteScripts.writersChannel(name)));
            case WRITE:
                return new PendingReply.ScriptCall(ReadWriteScripts.RELEASE_WRITE,
                        List.of(ReadWriteScripts.writerKey(name), ReadWriteScripts.writerOwnerKey(name)),
                        List.of(token, ReadWriteScripts.readersChannel(name), ReadWriteScripts.writersChannel(name)));
            case PERMIT:
                return new PendingReply.ScriptCall(SemaphoreScripts.RELEASE, SemaphoreScripts.holdKeys(name),
                        List.of(token, SemaphoreScripts.channel(name)));
            default:
                return RedisNode.releaseCall(name, token);
        }
    }

    /**
     * The withdrawal of a request: what it holds is deleted by owner token, and with
     * {@code markerMillis} a marker makes a late attempt of it take nothing.
     *
     * @param request      the request
     * @param markerMillis how long a late write of it is refused, in ms; {@code 0} (only for a write
     *                     whose outcomes were all known) withdraws its waiting entry and sets no marker
     * @return the withdrawal
     */
    public static PendingReply.ScriptCall abandon(LockRequest request, long markerMillis) {
        String name = request.name();
        String token = request.ownerToken();
        String marker = Long.toString(markerMillis);
        switch (request.hold().kind()) {
            case READ:
                return new PendingReply.ScriptCall(ReadWriteScripts.ABANDON_READ,
                        List.of(ReadWriteScripts.readersKey(name), ReadWriteScripts.readerOwnersKey(name),
                                ReadWriteScripts.abandonedKey(name, token)),
                        List.of(token, marker, ReadWriteScripts.writersChannel(name)));
            case WRITE:
                return new PendingReply.ScriptCall(ReadWriteScripts.ABANDON_WRITE,
                        List.of(ReadWriteScripts.writerKey(name), ReadWriteScripts.writerOwnerKey(name),
                                ReadWriteScripts.waitingKey(name), ReadWriteScripts.abandonedKey(name, token)),
                        List.of(token, marker, ReadWriteScripts.readersChannel(name), ReadWriteScripts.writersChannel(name)));
            case PERMIT:
                return new PendingReply.ScriptCall(SemaphoreScripts.ABANDON,
                        List.of(SemaphoreScripts.holdersKey(name), SemaphoreScripts.ownersKey(name),
                                SemaphoreScripts.permitsKey(name), SemaphoreScripts.abandonedKey(name, token)),
                        List.of(token, marker, SemaphoreScripts.channel(name)));
            default:
                return RedisNode.abandonCall(name, token, markerMillis);
        }
    }

    /**
     * Whether ending a request whose outcomes were all known still has something to remove: only a
     * write's waiting entry (a busy attempt of any other kind writes nothing).
     *
     * @param request the request
     * @return true for a write request
     */
    public static boolean leavesWaitingEntry(LockRequest request) {
        return request.hold().kind() == Hold.Kind.WRITE;
    }

    /**
     * @param request a waiting request
     * @return the channel announcing what it waits for: for a reader, a writer leaving or a waiting
     *         writer withdrawing; for a writer, the last reader or the writer leaving; for a permit,
     *         any permit released; for a lock, its release
     */
    public static String channel(LockRequest request) {
        switch (request.hold().kind()) {
            case READ:
                return ReadWriteScripts.readersChannel(request.name());
            case WRITE:
                return ReadWriteScripts.writersChannel(request.name());
            case PERMIT:
                return SemaphoreScripts.channel(request.name());
            default:
                return LockScripts.releaseChannel(request.name());
        }
    }

    /**
     * @param reply a release or withdrawal's reply
     * @return true if it deleted a hold (1; or {@link LockScripts#WOKE_WAITERS}, a release that woke waiters too)
     */
    public static boolean one(Object reply) {
        return reply instanceof Long value && (value == 1L || value == LockScripts.WOKE_WAITERS);
    }

    /**
     * @param reply a release's reply
     * @return true if it deleted the lock and its announcement reached a waiter
     */
    public static boolean wokeWaiters(Object reply) {
        return reply instanceof Long value && value == LockScripts.WOKE_WAITERS;
    }
}
