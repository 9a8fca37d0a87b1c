package io.distlock.redis.support;

import java.util.List;

/**
 * The Redis keys of a read-write lock and the Lua scripts that act on them atomically, shared by
 * the single-Redis and Redis + {@code WAIT} backends.
 *
 * <p>Layout for read-write lock {@code <name>}, all under {@code distlock:rw:{<name>}} — a prefix no
 * lock name can produce, since every key of a lock starts with <code>distlock:{</code> (see
 * {@link LockScripts}), so {@code lock(name)} and {@code readWriteLock(name)} never meet, and
 * {@code holders()}'s <code>SCAN MATCH distlock:{&lt;prefix&gt;*</code> never finds these keys:
 * <ul>
 * <li>{@code :readers}, a sorted set: member = a reader's owner token, score = when its lease ends
 * (server time, ms);</li>
 * <li>{@code :reader-owners}, a hash: owner token → the reader's owner record
 * ({@code <fence> <server time> <token> <owner>}, as {@link OwnerRecord} reads it);</li>
 * <li>{@code :writer}, the writer's owner token with a {@code PX} expiry, and {@code :writer-owner},
 * its owner record with the same expiry (as a lock's key and record);</li>
 * <li>{@code :waiting}, a sorted set of waiting writers: member = owner token, score = when the
 * entry lapses ({@link HoldCalls#waitingWriterMillis}); a writer whose attempt was busy writes it,
 * every later attempt of it refreshes it, its grant or its withdrawal removes it;</li>
 * <li>{@code :fence}, the one counter readers and writers draw their fencing tokens from
 * ({@code INCR} per grant; never expires, as a lock's);</li>
 * <li>{@code :abandoned:<token>}, a withdrawn request's marker (see {@link LockScripts#ABANDON}).</li>
 * </ul>
 * Every key but the fence expires with its furthest holder ({@code keepFor}, see {@link HoldLua}).
 * Waiting readers wake on {@link #readersChannel} (the writer left, or a waiting writer withdrew),
 * waiting writers on {@link #writersChannel} (the last live reader left, or the writer left). The
 * <code>{&lt;name&gt;}</code> hash tag keeps every key of the lock in one cluster slot.
 *
 * <p><b>Write preference.</b> A reader is granted only if no writer holds and no waiting writer's
 * entry is live; a writer only if no writer holds and no reader's lease is live. A dead waiting
 * writer holds new readers back until its entry lapses: its lease time, or
 * {@value HoldCalls#WAITING_WRITER_MIN_MILLIS} ms if that is longer.
 */
public final class ReadWriteScripts {

    /**
     * Takes a read hold. KEYS: readers, reader owners, writer, waiting writers, fence, the request's
     * abandoned marker. ARGV: owner token, lease time in ms, owner description. Replies
     * {@code {1, fence}} when granted (also again to a token that still reads: its end moves only
     * later, {@code GT}), {@code {0, ms}} when busy — the writer's {@code PTTL}, or until the last
     * waiting writer's entry lapses — or {@code {0, -2}} for an abandoned request.
     */
    public static final RedisScript ACQUIRE_READ = new RedisScript("rw-acquire-read", String.join("\n",
            HoldLua.FUNCTIONS,
            "if redis.call('EXISTS', KEYS[6]) == 1 then return {0, -2} end",
            "local now = nowMillis()",
            "local lease = tonumber(ARGV[2])",
            "prune(KEYS[1], KEYS[2], now)",
            "if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then",
            "  local writerLeft = redis.call('PTTL', KEYS[3])",
            "  if writerLeft ~= -2 then return {0, writerLeft} end",
            "  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)",
            "  local last = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')",
            "  if #last > 0 then return {0, tonumber(last[2]) - now} end",
            "end",
            "local ok, fence = pcall(redis.call, 'INCR', KEYS[5])",
            "if not ok then return fenceError(KEYS[5]) end",
            "redis.call('ZADD', KEYS[1], 'GT', now + lease, ARGV[1])",
            "redis.call('HSET', KEYS[2], ARGV[1], record(fence, now, ARGV[1], ARGV[3]))",
            "keepFor(KEYS[1], lease)",
            "keepFor(KEYS[2], lease)",
            "return {1, fence}"));

    /**
     * Takes the write hold. KEYS: readers, reader owners, writer, writer owner, waiting writers,
     * fence, the request's abandoned marker. ARGV: owner token, lease time in ms, owner description,
     * how long a waiting entry lives in ms. Replies {@code {1, fence}} when granted (no writer, no
     * live reader; or the token already writes: its expiry moves only later) and removes the token's
     * waiting entry; else writes or refreshes that entry ({@code ZADD GT}) and replies
     * {@code {0, ms}}: the writer's {@code PTTL}, or until the last reader's lease ends;
     * {@code {0, -2}} for an abandoned request, which writes nothing (no waiting entry either).
     */
    public static final RedisScript ACQUIRE_WRITE = new RedisScript("rw-acquire-write", String.join("\n",
            HoldLua.FUNCTIONS,
            "if redis.call('EXISTS', KEYS[7]) == 1 then return {0, -2} end",
            "local now = nowMillis()",
            "local lease = tonumber(ARGV[2])",
            "prune(KEYS[1], KEYS[2], now)",
            "redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)",
            "local holder = redis.call('GET', KEYS[3])",
            "if holder == ARGV[1] or (not holder and redis.call('ZCARD', KEYS[1]) == 0) then",
            "  local ok, fence = pcall(redis.call, 'INCR', KEYS[6])",
            "  if not ok then return fenceError(KEYS[6]) end",
            "  if holder then",
            "    redis.call('PEXPIRE', KEYS[3], lease, 'GT')",
            "  else",
            "    redis.call('SET', KEYS[3], ARGV[1], 'PX', lease)",
            "  end",
            "  redis.call('SET', KEYS[4], record(fence, now, ARGV[1], ARGV[3]), 'PX', redis.call('PTTL', KEYS[3]))",
            "  redis.call('ZREM', KEYS[5], ARGV[1])",
            "  return {1, fence}",
            "end",
            "local waiting = tonumber(ARGV[4])",
            "redis.call('ZADD', KEYS[5], 'GT', now + waiting, ARGV[1])",
            "keepFor(KEYS[5], waiting)",
            "if holder then return {0, redis.call('PTTL', KEYS[3])} end",
            "local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')",
            "return {0, tonumber(last[2]) - now}"));

    /**
     * Compare-and-extend of the write hold, monotone, as {@link LockScripts#EXTEND}. KEYS: writer,
     * writer owner. ARGV: owner token, lease time in ms, the token's {@linkplain LockScripts#revokedKey
     * revocation marker}. Replies 1 if the token writes (expiries then at least the lease time from
     * now), else the revocation's reason if an operator revoked this hold, else 0.
     */
    public static final RedisScript EXTEND_WRITE = new RedisScript("rw-extend-write", String.join("\n",
            "if redis.pcall('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('PEXPIRE', KEYS[1], ARGV[2], 'GT')",
            "  redis.call('PEXPIRE', KEYS[2], ARGV[2], 'GT')",
            "  return 1",
            "end",
            "local reason = redis.pcall('GET', ARGV[3])",
            "if type(reason) == 'string' then return reason end",
            "return 0"));

    /** Removes a reader (its owner record too), and wakes waiting writers if no live reader is left. */
    private static final String LEAVE_READ = String.join("\n",
            "local function leave(readers, owners, token, channel)",
            "  local removed = redis.pcall('ZREM', readers, token)",
            "  if removed ~= 1 then return 0 end",
            "  redis.call('HDEL', owners, token)",
            "  if redis.call('ZCOUNT', readers, string.format('(%d', nowMillis()), '+inf') == 0 then",
            "    notify(channel, 'released')",
            "  end",
            "  return 1",
            "end");

    /**
     * Compare-and-delete of a read hold. KEYS: readers, reader owners. ARGV: owner token, the
     * writers' channel. Replies 1 if the token read (and no longer does), else 0; announces it to
     * waiting writers when no live reader is left.
     */
    public static final RedisScript RELEASE_READ = new RedisScript("rw-release-read", String.join("\n",
            HoldLua.FUNCTIONS,
            LEAVE_READ,
            "return leave(KEYS[1], KEYS[2], ARGV[1], ARGV[2])"));

    /**
     * Withdraws a read request whose outcome is unknown: sets its marker (which {@link #ACQUIRE_READ}
     * checks first), then as {@link #RELEASE_READ}. KEYS: readers, reader owners, the request's
     * abandoned marker. ARGV: owner token, how long the marker lives in ms, the writers' channel.
     */
    public static final RedisScript ABANDON_READ = new RedisScript("rw-abandon-read", String.join("\n",
            HoldLua.FUNCTIONS,
            LEAVE_READ,
            "redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])",
            "return leave(KEYS[1], KEYS[2], ARGV[1], ARGV[3])"));

    /** Deletes the writer if the token writes, waking both kinds of waiters. */
    private static final String LEAVE_WRITE = String.join("\n",
            "local function leave(writer, owner, token, readersChannel, writersChannel)",
            "  if redis.pcall('GET', writer) ~= token then return 0 end",
            "  redis.call('DEL', writer, owner)",
            "  notify(readersChannel, 'released')",
            "  notify(writersChannel, 'released')",
            "  return 1",
            "end");

    /**
     * Compare-and-delete of the write hold. KEYS: writer, writer owner. ARGV: owner token, the
     * readers' channel, the writers' channel. Replies 1 if the token wrote (and no longer does).
     */
    public static final RedisScript RELEASE_WRITE = new RedisScript("rw-release-write", String.join("\n",
            LEAVE_WRITE,
            "return leave(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])"));

    /**
     * Withdraws a write request: removes its waiting entry (waking waiting readers, whom it held
     * back) and, as {@link #RELEASE_WRITE}, a write hold of its token; after an unknown outcome it
     * first sets the marker that {@link #ACQUIRE_WRITE} checks, so a late attempt of it writes
     * neither a hold nor a waiting entry. KEYS: writer, writer owner, waiting writers, the request's
     * abandoned marker. ARGV: owner token, how long the marker lives in ms ({@code 0}: no marker, the
     * outcomes were all known), the readers' channel, the writers' channel. Replies 1 if it deleted
     * a write hold.
     */
    public static final RedisScript ABANDON_WRITE = new RedisScript("rw-abandon-write", String.join("\n",
            LEAVE_WRITE,
            "if ARGV[2] ~= '0' then redis.call('SET', KEYS[4], '1', 'PX', ARGV[2]) end",
            "if redis.pcall('ZREM', KEYS[3], ARGV[1]) == 1 then notify(ARGV[3], 'withdrawn') end",
            "return leave(KEYS[1], KEYS[2], ARGV[1], ARGV[3], ARGV[4])"));

    /**
     * An operator's revoke of one hold — the writer's or one reader's — atomic, as
     * {@link LockScripts#REVOKE} is a lock's. KEYS: readers, reader owners, writer, writer owner,
     * fence. ARGV: the hold's id (its grant's fence, see {@link HoldSnapshot}), the read-write lock's
     * {@linkplain LockScripts#revokedPrefix revocation marker prefix}, reason, the marker's grace in ms
     * ({@link LockScripts#REVOKED_MARKER_GRACE_MILLIS}), the revocation channel
     * ({@value LockScripts#REVOKED_CHANNEL}), the {@linkplain #readersChannel readers'} and the
     * {@linkplain #writersChannel writers' channel}, the name.
     *
     * <p>The writer's record is looked at first (one key); a reader is found by its id in the
     * readers' records ({@code findRecord}, see {@link HoldLua#REVOKE_FUNCTIONS}). If no live hold
     * has the id — none ever had, or it was released, revoked, or its lease has passed — it changes
     * nothing and replies nil. Otherwise, in the lock's order: the holder's marker first
     * ({@code <prefix><token>} = reason, living what the lease had left plus the grace: only an
     * operator may write there, so anyone else is refused with {@code NOPERM} before anything
     * changed); the fence {@code INCR}ed (every later grant's token is above the revoked one's, as the
     * grants' own {@code INCR} already makes it: so a counter that cannot be incremented is passed
     * over, {@code redis.pcall}, rather than leave the revoke half done); the hold removed with its
     * record; then
     * {@code <token> <name>} announced on the revocation channel, and the waiters woken as a release
     * would wake them: for the writer both kinds (readers come in at once, unless a writer waits),
     * for a reader the writers, if no live reader is left. Replies {@code {'WRITE' or 'READ', token,
     * record, ms the lease had left, nil}}.
     */
    public static final RedisScript REVOKE = new RedisScript("rw-revoke", String.join("\n",
            HoldLua.FUNCTIONS,
            HoldLua.REVOKE_FUNCTIONS,
            "local now = nowMillis()",
            "local function mark(token, left)",
            "  redis.call('SET', ARGV[2] .. token, ARGV[3], 'PX', left + tonumber(ARGV[4]))",
            "  redis.pcall('INCR', KEYS[5])",
            "end",
            "local writerRecord = redis.call('GET', KEYS[4])",
            "if writerRecord and string.sub(writerRecord, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then",
            "  local token = redis.call('GET', KEYS[3])",
            "  if token and recordToken(writerRecord) == token then",
            "    local left = redis.call('PTTL', KEYS[3])",
            "    if left < 0 then left = 0 end",
            "    mark(token, left)",
            "    redis.call('DEL', KEYS[3], KEYS[4])",
            "    redis.call('PUBLISH', ARGV[5], token .. ' ' .. ARGV[8])",
            "    notify(ARGV[6], 'revoked')",
            "    notify(ARGV[7], 'revoked')",
            "    return {'WRITE', token, writerRecord, left, false}",
            "  end",
            "end",
            "local token, record = findRecord(KEYS[2], ARGV[1])",
            "if not token then return false end",
            "local score = redis.call('ZSCORE', KEYS[1], token)",
            "if not score or tonumber(score) <= now then return false end",
            "local left = tonumber(score) - now",
            "mark(token, left)",
            "redis.call('ZREM', KEYS[1], token)",
            "redis.call('HDEL', KEYS[2], token)",
            "redis.call('PUBLISH', ARGV[5], token .. ' ' .. ARGV[8])",
            "if redis.call('ZCOUNT', KEYS[1], string.format('(%d', now), '+inf') == 0 then",
            "  notify(ARGV[7], 'revoked')",
            "end",
            "return {'READ', token, record, left, false}"));

    private ReadWriteScripts() {
    }

    /**
     * @param name the read-write lock's name
     * @return {@code distlock:rw:{<name>}}, the prefix of every key of it
     */
    public static String prefix(String name) {
        return "distlock:rw:{" + name + "}";
    }

    /** @return {@code distlock:rw:{<name>}:readers} */
    public static String readersKey(String name) {
        return prefix(name) + ":readers";
    }

    /** @return {@code distlock:rw:{<name>}:reader-owners} */
    public static String readerOwnersKey(String name) {
        return prefix(name) + ":reader-owners";
    }

    /** @return {@code distlock:rw:{<name>}:writer} */
    public static String writerKey(String name) {
        return prefix(name) + ":writer";
    }

    /** @return {@code distlock:rw:{<name>}:writer-owner} */
    public static String writerOwnerKey(String name) {
        return prefix(name) + ":writer-owner";
    }

    /** @return {@code distlock:rw:{<name>}:waiting} */
    public static String waitingKey(String name) {
        return prefix(name) + ":waiting";
    }

    /** @return {@code distlock:rw:{<name>}:fence} */
    public static String fenceKey(String name) {
        return prefix(name) + ":fence";
    }

    /** @return {@code distlock:rw:{<name>}:abandoned:<ownerToken>} */
    public static String abandonedKey(String name, String ownerToken) {
        return prefix(name) + ":abandoned:" + ownerToken;
    }

    /**
     * @param name the read-write lock's name
     * @return {@code distlock:released:rw-readers:{<name>}}, where waiting readers are woken (a lock's
     *         channel has <code>{</code> right after {@code released:}, so they never meet)
     */
    public static String readersChannel(String name) {
        return "distlock:released:rw-readers:{" + name + "}";
    }

    /**
     * @param name the read-write lock's name
     * @return {@code distlock:released:rw-writers:{<name>}}, where waiting writers are woken
     */
    public static String writersChannel(String name) {
        return "distlock:released:rw-writers:{" + name + "}";
    }

    /** @return the keys of {@link #ACQUIRE_READ} */
    static List<String> acquireReadKeys(String name, String ownerToken) {
        return List.of(readersKey(name), readerOwnersKey(name), writerKey(name), waitingKey(name), fenceKey(name),
                abandonedKey(name, ownerToken));
    }

    /** @return the keys of {@link #ACQUIRE_WRITE} */
    static List<String> acquireWriteKeys(String name, String ownerToken) {
        return List.of(readersKey(name), readerOwnersKey(name), writerKey(name), writerOwnerKey(name), waitingKey(name),
                fenceKey(name), abandonedKey(name, ownerToken));
    }
}
