package io.distlock.redis.support;

import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.redis.support.PendingReply.CommandCall;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A lock as one server showed it at one moment: the lock key's owner token and {@code PTTL}, its
 * owner record and its fence counter, read in one {@code MULTI}/{@code EXEC} ({@link #calls}) so
 * that the four belong together. Read-only commands only ({@code GET}, {@code PTTL}), no script:
 * an inspector's ACL needs no script rights, and Tair, which has no Lua, reads the same way.
 *
 * @param name       the lock name
 * @param ownerToken the token the lock key holds, or null if the lock is free
 * @param pttlMillis the lock key's {@code PTTL} ({@code -1}: no expiry; {@code -2}: free)
 * @param record     the owner record if it describes the lease the lock key holds (same owner token), else null
 * @param counter    the fence counter's value, if it has one
 * @param wrongType  true if the lock key holds another type than a string: not a distlock lock
 */
public record LockSnapshot(String name, String ownerToken, long pttlMillis, OwnerRecord record, OptionalLong counter,
                           boolean wrongType) {

    /** How many calls {@link #calls} returns per lock. */
    static final int CALLS = 6;

    private static final CommandCall MULTI = new CommandCall("MULTI", List.of());
    private static final CommandCall EXEC = new CommandCall("EXEC", List.of());

    /**
     * @throws NullPointerException if {@code name} or {@code counter} is null
     */
    public LockSnapshot {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(counter, "counter");
    }

    /**
     * @param name the lock name
     * @return {@code MULTI; GET lock; PTTL lock; GET owner record; GET fence; EXEC}: {@value #CALLS} calls
     */
    public static List<CommandCall> calls(String name) {
        String lockKey = LockScripts.lockKey(name);
        return List.of(MULTI, new CommandCall("GET", List.of(lockKey)), new CommandCall("PTTL", List.of(lockKey)),
                new CommandCall("GET", List.of(LockScripts.ownerKey(name))),
                new CommandCall("GET", List.of(LockScripts.fenceKey(name))), EXEC);
    }

    /**
     * Reads the replies of {@link #calls}.
     *
     * @param name    the lock name
     * @param replies the replies
     * @param offset  where the calls of this lock start in them
     * @param node    the server, for messages
     * @return the snapshot
     * @throws LockException (an {@link io.distlock.AccessDeniedException} for an ACL refusal) if the
     *                       server refused a command
     */
    public static LockSnapshot parse(String name, PendingReply.Replies replies, int offset, RedisEndpoint node) {
        for (int i = offset; i < offset + CALLS - 1; i++) {
            replies.value(i); // MULTI's OK and the QUEUED answers: a refused command (NOPERM) throws here, before EXECABORT
        }
        Object exec = replies.value(offset + CALLS - 1);
        if (!(exec instanceof List<?> values) || values.size() != 4) {
            throw new LockException("Redis at " + node + " answered the read of lock '" + name + "' with " + exec);
        }
        if (values.get(0) instanceof Exception) {
            return new LockSnapshot(name, null, -2, null, OptionalLong.empty(), true); // WRONGTYPE: not a distlock lock
        }
        String token = text(values.get(0));
        long pttl = values.get(1) instanceof Long value ? value : -2;
        OwnerRecord record = values.get(2) instanceof Exception ? null : OwnerRecord.parse(text(values.get(2)));
        if (record != null && !record.ownerToken().equals(token)) {
            record = null; // left behind by an earlier lease: not this holder's
        }
        OptionalLong counter = OptionalLong.empty();
        if (!(values.get(3) instanceof Exception) && text(values.get(3)) != null) {
            try {
                counter = OptionalLong.of(Long.parseLong(text(values.get(3))));
            } catch (NumberFormatException e) {
                // not a counter: no fence to show
            }
        }
        return new LockSnapshot(name, token, token == null ? -2 : pttl, record, counter, false);
    }

    /** @return true if someone holds the lock */
    public boolean held() {
        return ownerToken != null;
    }

    /**
     * What the snapshot shows as {@link LockInfo}: the owner record's owner, fence and time; the
     * remaining time is the key's {@code PTTL}; the detail the lock key. A lease of a client of the
     * layout before owner records has none: no owner, no time, and as its fence the counter's value
     * when {@code counterIsLastGrant} (a counter only grants increment, so its value is the latest
     * grant's: the holder's).
     *
     * @param fencingTokens      true if the backend offers fencing tokens (else no token is shown)
     * @param counterIsLastGrant true if only grants increment the counter (the Lua acquire; not
     *                           Tair's, whose busy attempts increment it too)
     * @return the info
     * @throws IllegalStateException if the lock is not held
     */
    public LockInfo info(boolean fencingTokens, boolean counterIsLastGrant) {
        if (!held()) {
            throw new IllegalStateException("lock '" + name + "' is not held");
        }
        LockInfo.Builder info = LockInfo.builder(name).detail(LockScripts.lockKey(name));
        if (record != null) {
            info.owner(record.owner());
            if (record.acquiredAt() != null) {
                info.acquiredAt(record.acquiredAt(), LockInfo.Clock.SERVER);
            }
        }
        if (fencingTokens) {
            OptionalLong fence = record != null ? record.fence() : counterIsLastGrant ? counter : OptionalLong.empty();
            fence.ifPresent(info::fencingToken);
        }
        if (pttlMillis >= 0) {
            info.remaining(Duration.ofMillis(pttlMillis));
        }
        return info.build();
    }

    /** Leaves the owner token out: it is the lease's secret. */
    @Override
    public String toString() {
        return "LockSnapshot['" + name + "', " + (held() ? "held, pttl " + pttlMillis + ", " + record : wrongType ? "wrong type" : "free")
                + "]";
    }

    static String text(Object reply) {
        if (reply == null) {
            return null;
        }
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : reply.toString();
    }
}
