package io.distlock.redis.support;

import java.util.List;

/**
 * The Redis keys of a semaphore and the Lua scripts that act on them atomically, shared by the
 * single-Redis and Redis + {@code WAIT} backends.
 *
 * <p>Layout for semaphore {@code <name>}, all under {@code distlock:semaphore:{<name>}} — a prefix
 * no lock name can produce (every key of a lock starts with <code>distlock:{</code>) and that
 * {@code holders()}'s scan never matches:
 * <ul>
 * <li>{@code :holders}, a sorted set: member = a permit's owner token, score = when its lease ends
 * (server time, ms);</li>
 * <li>{@code :owners}, a hash: owner token → the permit's owner record
 * ({@code <fence> <server time> <token> <owner>}, as {@link OwnerRecord} reads it);</li>
 * <li>{@code :permits}, the permit count the holders use;</li>
 * <li>{@code :fence}, the counter the permits' fencing tokens come from ({@code INCR} per grant;
 * never expires);</li>
 * <li>{@code :abandoned:<token>}, a withdrawn request's marker (see {@link LockScripts#ABANDON}).</li>
 * </ul>
 * The holders, records and count expire with the furthest holder ({@code keepFor}, see
 * {@link HoldLua}); the last release deletes them. A release wakes waiters on {@link #channel}. The
 * <code>{&lt;name&gt;}</code> hash tag keeps every key of the semaphore in one cluster slot.
 *
 * <p><b>The count</b> is checked against the live holders only: once every permit is released or
 * has passed its lease, the next grant stores its own count.
 */
public final class SemaphoreScripts {

    /**
     * Takes a permit. KEYS: holders, owners, permits, fence, the request's abandoned marker. ARGV:
     * owner token, lease time in ms, owner description, the permit count. Drops the holders whose
     * lease has passed, then replies {@code {2, stored count}} if the live holders use another count
     * (nothing is granted or stored), {@code {1, fence}} when granted (fewer live holders than the
     * count, or the token already holds: its end moves only later), {@code {0, ms}} when every
     * permit is held (until the first of them ends), or {@code {0, -2}} for an abandoned request.
     */
    public static final RedisScript ACQUIRE = new RedisScript("semaphore-acquire", String.join("\n",
            HoldLua.FUNCTIONS,
            "if redis.call('EXISTS', KEYS[5]) == 1 then return {0, -2} end",
            "local now = nowMillis()",
            "local lease = tonumber(ARGV[2])",
            "local permits = tonumber(ARGV[4])",
            "prune(KEYS[1], KEYS[2], now)",
            "local held = redis.call('ZCARD', KEYS[1])",
            "local stored = false",
            "if held > 0 then",
            "  stored = tonumber(redis.call('GET', KEYS[3]))",
            "  if stored and stored ~= permits then return {2, stored} end",
            "end",
            "if held >= permits and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then",
            "  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')",
            "  return {0, tonumber(first[2]) - now}",
            "end",
            "local ok, fence = pcall(redis.call, 'INCR', KEYS[4])",
            "if not ok then return fenceError(KEYS[4]) end",
            "redis.call('ZADD', KEYS[1], 'GT', now + lease, ARGV[1])",
            "redis.call('HSET', KEYS[2], ARGV[1], record(fence, now, ARGV[1], ARGV[3]))",
            "if not stored then redis.call('SET', KEYS[3], ARGV[4]) end",
            "keepFor(KEYS[1], lease)",
            "keepFor(KEYS[2], lease)",
            "keepFor(KEYS[3], redis.call('PTTL', KEYS[1]))",
            "return {1, fence}"));

    /** Removes a holder (its record too; the count with the last one) and wakes the waiters. */
    private static final String LEAVE = String.join("\n",
            "local function leave(holders, owners, permits, token, channel)",
            "  local removed = redis.pcall('ZREM', holders, token)",
            "  if removed ~= 1 then return 0 end",
            "  redis.call('HDEL', owners, token)",
            "  if redis.call('ZCARD', holders) == 0 then redis.call('DEL', owners, permits) end",
            "  notify(channel, 'released')",
            "  return 1",
            "end");

    /**
     * Compare-and-delete of a permit. KEYS: holders, owners, permits. ARGV: owner token, channel.
     * Replies 1 if the token held a permit (and no longer does), else 0.
     */
    public static final RedisScript RELEASE = new RedisScript("semaphore-release", String.join("\n",
            LEAVE,
            "return leave(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2])"));

    /**
     * Withdraws a request whose outcome is unknown: sets its marker (which {@link #ACQUIRE} checks
     * first), then as {@link #RELEASE}. KEYS: holders, owners, permits, the request's abandoned
     * marker. ARGV: owner token, how long the marker lives in ms, channel.
     */
    public static final RedisScript ABANDON = new RedisScript("semaphore-abandon", String.join("\n",
            LEAVE,
            "redis.call('SET', KEYS[4], '1', 'PX', ARGV[2])",
            "return leave(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[3])"));

    /**
     * An operator's revoke of one permit, atomic, as {@link LockScripts#REVOKE} is a lock's. KEYS:
     * holders, owners, permits, fence. ARGV: the hold's id (its grant's fence, see
     * {@link HoldSnapshot}), the semaphore's {@linkplain LockScripts#revokedPrefix revocation marker
     * prefix}, reason, the marker's grace in ms ({@link LockScripts#REVOKED_MARKER_GRACE_MILLIS}), the
     * revocation channel ({@value LockScripts#REVOKED_CHANNEL}), the semaphore's {@linkplain #channel
     * release channel}, the semaphore's name.
     *
     * <p>Finds the permit by its id in the owner records ({@code findRecord}, see
     * {@link HoldLua#REVOKE_FUNCTIONS}); if no live permit has it — none ever had, or it was
     * released, revoked, or its lease has passed — it changes nothing and replies nil. Otherwise, in
     * the lock's order: the holder's marker first ({@code <prefix><token>} = reason, living what the
     * lease had left plus the grace: only an operator may write there, so anyone else is refused with
     * {@code NOPERM} before anything changed); the fence {@code INCR}ed (every later grant's token is
     * above the revoked one's, as the grants' own {@code INCR} already makes it: so a counter that
     * cannot be incremented is passed over, {@code redis.pcall}, rather than leave the revoke half
     * done); the permit removed with its record (the count with the last one), so the next acquire
     * gets it at once; then
     * {@code <token> <name>} announced on the revocation channel and a wake-up on the release
     * channel, for the waiters. Replies {@code {'PERMIT', token, record, ms the lease had left,
     * stored count or nil}}.
     */
    public static final RedisScript REVOKE = new RedisScript("semaphore-revoke", String.join("\n",
            HoldLua.FUNCTIONS,
            HoldLua.REVOKE_FUNCTIONS,
            "local now = nowMillis()",
            "local token, record = findRecord(KEYS[2], ARGV[1])",
            "if not token then return false end",
            "local score = redis.call('ZSCORE', KEYS[1], token)",
            "if not score or tonumber(score) <= now then return false end",
            "local left = tonumber(score) - now",
            "local permits = redis.call('GET', KEYS[3])",
            "redis.call('SET', ARGV[2] .. token, ARGV[3], 'PX', left + tonumber(ARGV[4]))",
            "redis.pcall('INCR', KEYS[4])",
            "redis.call('ZREM', KEYS[1], token)",
            "redis.call('HDEL', KEYS[2], token)",
            "if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('DEL', KEYS[2], KEYS[3]) end",
            "redis.call('PUBLISH', ARGV[5], token .. ' ' .. ARGV[7])",
            "notify(ARGV[6], 'revoked')",
            "return {'PERMIT', token, record, left, permits}"));

    private SemaphoreScripts() {
    }

    /**
     * @param name the semaphore's name
     * @return {@code distlock:semaphore:{<name>}}, the prefix of every key of it
     */
    public static String prefix(String name) {
        return "distlock:semaphore:{" + name + "}";
    }

    /** @return {@code distlock:semaphore:{<name>}:holders} */
    public static String holdersKey(String name) {
        return prefix(name) + ":holders";
    }

    /** @return {@code distlock:semaphore:{<name>}:owners} */
    public static String ownersKey(String name) {
        return prefix(name) + ":owners";
    }

    /** @return {@code distlock:semaphore:{<name>}:permits} */
    public static String permitsKey(String name) {
        return prefix(name) + ":permits";
    }

    /** @return {@code distlock:semaphore:{<name>}:fence} */
    public static String fenceKey(String name) {
        return prefix(name) + ":fence";
    }

    /** @return {@code distlock:semaphore:{<name>}:abandoned:<ownerToken>} */
    public static String abandonedKey(String name, String ownerToken) {
        return prefix(name) + ":abandoned:" + ownerToken;
    }

    /**
     * @param name the semaphore's name
     * @return {@code distlock:released:semaphore:{<name>}}, where a released permit is announced
     */
    public static String channel(String name) {
        return "distlock:released:semaphore:{" + name + "}";
    }

    /** @return the keys a permit lives in: holders, owners, permits (those {@link HoldLua#EXTEND_MEMBER} keeps) */
    static List<String> holdKeys(String name) {
        return List.of(holdersKey(name), ownersKey(name), permitsKey(name));
    }
}
