package io.distlock.redis.support;

import io.distlock.Feature;
import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.redis.support.PendingReply.CommandCall;
import io.distlock.spi.Revoked;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The holds of a read-write lock or a semaphore as one server showed them at one moment: every
 * reader, the writer, or every permit, with its owner record, read in one {@code MULTI}/{@code EXEC}
 * ({@link #calls}) together with the server's {@code TIME}, so that "has this lease passed?" is
 * answered by the clock that scores the holders. Read-only commands only ({@code TIME},
 * {@code ZRANGE}, {@code HGETALL}, {@code GET}, {@code PTTL}), no script: as for a lock
 * ({@link LockSnapshot}), an inspector needs no script rights.
 *
 * <p><b>The hold id</b> is the grant's fence — the number the primitive's {@code :fence} counter
 * gave the grant, kept first in its owner record ({@link OwnerRecord}) — in decimal. Every grant
 * {@code INCR}s that counter in the same script that records it, so no two holds of one primitive
 * have the same id while the counter lives, and the revoke scripts find a hold again by it
 * ({@link ReadWriteScripts#REVOKE}, {@link SemaphoreScripts#REVOKE}). It is never the owner token,
 * which is the lease's secret (whoever knows it may release or extend the hold): the token stays in
 * this class and in {@link Revoked}, for the engine, and is never part of a {@link LockInfo}.
 *
 * <p>A holder whose lease has passed by the server's clock is not shown (the next acquire drops it;
 * until then it is not held, whatever the sorted set still contains). A member without an owner
 * record of its own token is not shown either: the scripts write both in one step, so only a key
 * written by something else has one, and such a hold could not be revoked by id.
 *
 * @param name      the primitive's name
 * @param primitive {@link Feature#READ_WRITE} or {@link Feature#SEMAPHORE}
 * @param holds     the live holds, oldest grant (lowest fence) first
 */
public record HoldSnapshot(String name, Feature primitive, List<Held> holds) {

    /**
     * One hold.
     *
     * @param kind            {@link LockInfo.Kind#READ}, {@link LockInfo.Kind#WRITE} or {@link LockInfo.Kind#PERMIT}
     * @param ownerToken      the lease's owner token (never shown: see {@link #toString()})
     * @param record          its owner record (fence, server time at the grant, owner description)
     * @param remainingMillis what the server still keeps of it, in ms; {@code -1} if it has no expiry
     * @param permits         for a permit, the count the semaphore's server stores
     */
    public record Held(LockInfo.Kind kind, String ownerToken, OwnerRecord record, long remainingMillis, OptionalInt permits) {

        /**
         * @throws NullPointerException if an argument is null
         */
        public Held {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(ownerToken, "ownerToken");
            Objects.requireNonNull(record, "record");
            Objects.requireNonNull(permits, "permits");
        }

        /** @return the hold id: the grant's fence */
        public long id() {
            return record.fence().getAsLong();
        }

        /** Leaves the owner token out: it is the lease's secret. */
        @Override
        public String toString() {
            return "Held[" + kind + " " + id() + ", " + record + ", remaining " + remainingMillis + " ms]";
        }
    }

    private static final CommandCall MULTI = new CommandCall("MULTI", List.of());
    private static final CommandCall EXEC = new CommandCall("EXEC", List.of());
    private static final CommandCall TIME = new CommandCall("TIME", List.of());

    /**
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code primitive} is neither of the two
     */
    public HoldSnapshot {
        Objects.requireNonNull(name, "name");
        check(primitive);
        holds = List.copyOf(holds);
    }

    /**
     * The reads of one snapshot, in one transaction: for a semaphore {@code MULTI; TIME; ZRANGE holders
     * 0 -1 WITHSCORES; HGETALL owners; GET permits; EXEC}; for a read-write lock {@code MULTI; TIME;
     * ZRANGE readers 0 -1 WITHSCORES; HGETALL reader-owners; GET writer; PTTL writer; GET writer-owner;
     * EXEC}. The sorted set and the hash hold one entry per holder: bounded by the permit count (or the
     * readers), plus holders whose lease has passed and that no acquire has dropped yet.
     *
     * @param name      the primitive's name
     * @param primitive {@link Feature#READ_WRITE} or {@link Feature#SEMAPHORE}
     * @return the calls, for a pipeline
     */
    public static List<CommandCall> calls(String name, Feature primitive) {
        if (check(primitive) == Feature.SEMAPHORE) {
            return List.of(MULTI, TIME,
                    new CommandCall("ZRANGE", List.of(SemaphoreScripts.holdersKey(name), "0", "-1", "WITHSCORES")),
                    new CommandCall("HGETALL", List.of(SemaphoreScripts.ownersKey(name))),
                    new CommandCall("GET", List.of(SemaphoreScripts.permitsKey(name))), EXEC);
        }
        return List.of(MULTI, TIME,
                new CommandCall("ZRANGE", List.of(ReadWriteScripts.readersKey(name), "0", "-1", "WITHSCORES")),
                new CommandCall("HGETALL", List.of(ReadWriteScripts.readerOwnersKey(name))),
                new CommandCall("GET", List.of(ReadWriteScripts.writerKey(name))),
                new CommandCall("PTTL", List.of(ReadWriteScripts.writerKey(name))),
                new CommandCall("GET", List.of(ReadWriteScripts.writerOwnerKey(name))), EXEC);
    }

    /**
     * Reads the replies of {@link #calls}.
     *
     * @param name      the primitive's name
     * @param primitive {@link Feature#READ_WRITE} or {@link Feature#SEMAPHORE}
     * @param replies   the replies, {@link #calls} from index 0
     * @param node      the server, for messages
     * @return the snapshot
     * @throws LockException (an {@link io.distlock.AccessDeniedException} for an ACL refusal) if the
     *                       server refused a command, or a key holds another type than the layout's
     */
    public static HoldSnapshot parse(String name, Feature primitive, PendingReply.Replies replies, RedisEndpoint node) {
        int count = calls(name, primitive).size();
        for (int i = 0; i < count - 1; i++) {
            replies.value(i); // MULTI's OK and the QUEUED answers: a refused command (NOPERM) throws here, before EXECABORT
        }
        Object exec = replies.value(count - 1);
        int reads = count - 2;
        if (!(exec instanceof List<?> values) || values.size() != reads) {
            throw new LockException("Redis at " + node + " answered the read of " + what(name, primitive) + " with " + exec);
        }
        for (Object value : values) {
            if (value instanceof Exception) {
                throw new LockException("Redis at " + node + ": a key of " + what(name, primitive) + " (" + prefix(name, primitive)
                        + ":*) holds another type than distlock's layout: it is not a distlock " + noun(primitive));
            }
        }
        long now = serverMillis(values.get(0));
        List<Held> holds = new ArrayList<>();
        boolean semaphore = primitive == Feature.SEMAPHORE;
        OptionalInt permits = semaphore ? count(values.get(3)) : OptionalInt.empty();
        Map<String, String> records = pairs(values.get(2));
        List<?> members = (List<?>) values.get(1);
        for (int i = 0; i + 1 < members.size(); i += 2) {
            String token = LockSnapshot.text(members.get(i));
            long end = (long) Double.parseDouble(LockSnapshot.text(members.get(i + 1)));
            OwnerRecord record = recordOf(token, records.get(token));
            if (end > now && record != null) {
                holds.add(new Held(semaphore ? LockInfo.Kind.PERMIT : LockInfo.Kind.READ, token, record, end - now, permits));
            }
        }
        if (!semaphore) {
            String writer = LockSnapshot.text(values.get(3));
            long pttl = values.get(4) instanceof Long value ? value : -2;
            OwnerRecord record = recordOf(writer, LockSnapshot.text(values.get(5)));
            if (writer != null && pttl != -2 && record != null) {
                holds.add(new Held(LockInfo.Kind.WRITE, writer, record, pttl, OptionalInt.empty()));
            }
        }
        holds.sort(Comparator.comparingLong(Held::id));
        return new HoldSnapshot(name, primitive, holds);
    }

    /**
     * What the snapshot shows as {@link LockInfo}s, oldest grant first.
     *
     * @param fencingTokens true if the backend offers fencing tokens (else no token is shown; the
     *                      hold id, the same number, is shown either way)
     * @return one per hold
     */
    public List<LockInfo> infos(boolean fencingTokens) {
        List<LockInfo> infos = new ArrayList<>(holds.size());
        for (Held held : holds) {
            infos.add(info(name, held, fencingTokens));
        }
        return infos;
    }

    /**
     * A hold id as {@link io.distlock.DistributedSemaphore#revoke} and
     * {@link io.distlock.DistributedReadWriteLock#revoke} take it: the decimal fence of the grant,
     * exactly as {@link #infos} shows it (no sign, no leading zero).
     *
     * @param holdId what the operator gave
     * @return the fence, or empty if {@code holdId} is no id this backend gives (no hold has it)
     */
    public static OptionalLong holdId(String holdId) {
        if (holdId == null || holdId.isEmpty() || holdId.length() > 18 || holdId.charAt(0) == '0') {
            return OptionalLong.empty();
        }
        for (int i = 0; i < holdId.length(); i++) {
            if (holdId.charAt(i) < '0' || holdId.charAt(i) > '9') {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(Long.parseLong(holdId));
    }

    /**
     * Reads the reply of a revoke script ({@link HoldCalls#revoke}).
     *
     * @param name          the primitive's name
     * @param primitive     {@link Feature#READ_WRITE} or {@link Feature#SEMAPHORE}
     * @param reply         the script's reply: nil if no such hold was held
     * @param fencingTokens true if the backend offers fencing tokens
     * @return the revoked hold as {@link #infos} would have shown it just before, with its owner token;
     *         empty if nothing was held (nothing changed)
     */
    public static Optional<Revoked> revoked(String name, Feature primitive, Object reply, boolean fencingTokens) {
        check(primitive);
        if (!(reply instanceof List<?> values) || values.size() < 5) {
            return Optional.empty();
        }
        LockInfo.Kind kind = LockInfo.Kind.valueOf(LockSnapshot.text(values.get(0)));
        String token = LockSnapshot.text(values.get(1));
        OwnerRecord record = recordOf(token, LockSnapshot.text(values.get(2)));
        if (record == null) {
            // The script found the hold by this record's fence, so it parses: anything else is a defect here.
            throw new IllegalStateException("the revoke of " + what(name, primitive) + " answered an unreadable owner record");
        }
        long left = values.get(3) instanceof Long value ? value : -1;
        OptionalInt permits = kind == LockInfo.Kind.PERMIT ? count(values.get(4)) : OptionalInt.empty();
        Held held = new Held(kind, token, record, left, permits);
        return Optional.of(new Revoked(info(name, held, fencingTokens), token));
    }

    private static LockInfo info(String name, Held held, boolean fencingTokens) {
        LockInfo.Builder info = LockInfo.builder(name).hold(held.kind(), Long.toString(held.id())).owner(held.record().owner())
                .detail(switch (held.kind()) {
                    case PERMIT -> SemaphoreScripts.holdersKey(name);
                    case READ -> ReadWriteScripts.readersKey(name);
                    default -> ReadWriteScripts.writerKey(name);
                });
        held.permits().ifPresent(info::permits);
        if (held.record().acquiredAt() != null) {
            info.acquiredAt(held.record().acquiredAt(), LockInfo.Clock.SERVER);
        }
        if (fencingTokens) {
            info.fencingToken(held.id());
        }
        if (held.remainingMillis() >= 0) {
            info.remaining(Duration.ofMillis(held.remainingMillis()));
        }
        return info.build();
    }

    /** The record if it is one of {@code token}'s with a fence (a hold id), else null. */
    private static OwnerRecord recordOf(String token, String value) {
        OwnerRecord record = OwnerRecord.parse(value);
        if (token == null || record == null || !record.ownerToken().equals(token) || record.fence().isEmpty()) {
            return null;
        }
        return record;
    }

    private static Map<String, String> pairs(Object reply) {
        List<?> flat = (List<?>) reply;
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(LockSnapshot.text(flat.get(i)), LockSnapshot.text(flat.get(i + 1)));
        }
        return map;
    }

    private static long serverMillis(Object time) {
        List<?> parts = (List<?>) time;
        return Long.parseLong(LockSnapshot.text(parts.get(0))) * 1000 + Long.parseLong(LockSnapshot.text(parts.get(1))) / 1000;
    }

    private static OptionalInt count(Object reply) {
        String text = LockSnapshot.text(reply);
        try {
            int value = text == null ? 0 : Integer.parseInt(text);
            return value > 0 ? OptionalInt.of(value) : OptionalInt.empty();
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    private static Feature check(Feature primitive) {
        if (primitive != Feature.SEMAPHORE && primitive != Feature.READ_WRITE) {
            throw new IllegalArgumentException("no holds to read of a " + primitive + ": only of a read-write lock or a semaphore");
        }
        return primitive;
    }

    private static String prefix(String name, Feature primitive) {
        return primitive == Feature.SEMAPHORE ? SemaphoreScripts.prefix(name) : ReadWriteScripts.prefix(name);
    }

    private static String noun(Feature primitive) {
        return primitive == Feature.SEMAPHORE ? "semaphore" : "read-write lock";
    }

    /**
     * @param name      the primitive's name
     * @param primitive {@link Feature#READ_WRITE} or {@link Feature#SEMAPHORE}
     * @return {@code semaphore '<name>'} or {@code read-write lock '<name>'}, for messages
     */
    public static String what(String name, Feature primitive) {
        return noun(primitive) + " '" + name + "'";
    }

    /** Leaves the owner tokens out: they are the leases' secrets. */
    @Override
    public String toString() {
        return "HoldSnapshot[" + what(name, primitive) + ", " + holds + "]";
    }
}
