package io.distlock.redis.support;

/**
 * What the scripts of the shared holds ({@link ReadWriteScripts}, {@link SemaphoreScripts}) have in
 * common: the server's clock, expiries that only move later, dropping holders whose lease has passed,
 * the owner record, and the compare-and-extend of a holder kept in a sorted set.
 *
 * <p>A shared hold is a member of a sorted set (member: owner token; score: when its lease ends, in
 * ms of the server's clock), not a key of its own, since Redis 7.0 cannot expire one member. So the
 * scripts read the time from the server ({@code TIME}, never the client's clock), a holder whose
 * score has passed counts as gone (and is removed by the next script that looks), and every key gets
 * a {@code PX} expiry at least as far as its furthest holder's end, so that the state of holders
 * that all stopped disappears by itself.
 */
final class HoldLua {

    /**
     * The helpers every shared-hold script starts with:
     * <ul>
     * <li>{@code nowMillis()}: the server's time in ms ({@code TIME}, which 7.0 allows in a script
     * that writes: scripts replicate their effects);</li>
     * <li>{@code keepFor(key, ms)}: the key lives at least {@code ms} from now: its expiry is set to
     * that, or left where it was if later. Not {@code PEXPIRE ... GT}, which treats a key without an
     * expiry as living forever and so would never give a new key one;</li>
     * <li>{@code prune(set, records, now)}: removes the members whose lease has passed, and their
     * owner records (field = owner token) from the hash {@code records} (in batches: Lua's
     * {@code unpack} is bounded);</li>
     * <li>{@code record(fence, now, token, owner)}: the owner record, as {@link OwnerRecord} reads it;</li>
     * <li>{@code fenceError(key)}: the error reply for a fence key that is not a counter.</li>
     * </ul>
     */
    static final String FUNCTIONS = String.join("\n",
            "local function nowMillis()",
            "  local t = redis.call('TIME')",
            "  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
            "end",
            "local function keepFor(key, ms)",
            "  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end",
            "end",
            "local function prune(set, records, now)",
            "  local gone = redis.call('ZRANGEBYSCORE', set, '-inf', now)",
            "  if #gone == 0 then return end",
            "  redis.call('ZREMRANGEBYSCORE', set, '-inf', now)",
            "  for i = 1, #gone, 1000 do",
            "    redis.call('HDEL', records, unpack(gone, i, math.min(i + 999, #gone)))",
            "  end",
            "end",
            "local function record(fence, now, token, owner)",
            "  return fence .. ' ' .. string.format('%d', now) .. ' ' .. token .. ' ' .. owner",
            "end",
            "local function fenceError(key)",
            "  local fenceType = redis.call('TYPE', key)['ok']",
            "  local what = fenceType == 'string' and 'a string that is not a counter' or ('a ' .. fenceType)",
            "  return redis.error_reply('WRONGTYPE distlock: fence key ' .. key .. ' holds ' .. what",
            "    .. ', not a counter; nothing was granted')",
            "end");

    /**
     * The helpers of the revoke scripts ({@link SemaphoreScripts#REVOKE}, {@link ReadWriteScripts#REVOKE}),
     * after {@link #FUNCTIONS}:
     * <ul>
     * <li>{@code findRecord(records, id)}: the owner token and owner record of the hold whose record
     * starts with the fence {@code id} (a hold's id, see {@link HoldSnapshot}), in the hash
     * {@code records}, or false. A scan of the hash — it holds one record per holder, so it is
     * bounded by the permit count (or the readers), plus the holders whose lease has passed and
     * that no acquire has dropped yet — since Redis has no index from a record's fence to its
     * holder, and keeping one would cost every grant a write;</li>
     * <li>{@code recordToken(record)}: the owner token a record names (its third field).</li>
     * </ul>
     * The revoke scripts read with {@code redis.call}, never {@code redis.pcall}: a read the ACL
     * refuses ({@code NOPERM}) must fail the revoke, not pass for "no such hold" — a principal that
     * may not revoke is told so, never that nothing was held.
     */
    static final String REVOKE_FUNCTIONS = String.join("\n",
            "local function findRecord(records, id)",
            "  local prefix = id .. ' '",
            "  local all = redis.call('HGETALL', records)",
            "  for i = 1, #all, 2 do",
            "    if string.sub(all[i + 1], 1, #prefix) == prefix then return all[i], all[i + 1] end",
            "  end",
            "  return false",
            "end",
            "local function recordToken(record)",
            "  return string.match(record, '^%S+ %S+ (%S+)')",
            "end");

    /**
     * Compare-and-extend of a holder kept in a sorted set, monotone. KEYS: the set, then every key
     * that must live as long as the holder (its owner records, a semaphore's count). ARGV: owner
     * token, lease time in ms, the token's {@linkplain LockScripts#revokedKey revocation marker} (an
     * argument, not a key, as in {@link LockScripts#EXTEND}: a locker may only read the markers).
     * Replies 1 if the token holds (a member whose lease has not passed: one that has counts as
     * gone, as another client's acquire may already have dropped it) — its end is then at least the
     * lease time from now ({@code ZADD XX GT}), and so is every key's expiry — else the revocation's
     * reason if an operator revoked this hold (the marker, read with {@code redis.pcall}: a user
     * without read rights on the markers gets 0), else 0 (also for a set of another type:
     * {@code redis.pcall}).
     */
    static final RedisScript EXTEND_MEMBER = new RedisScript("extend-member", String.join("\n",
            FUNCTIONS,
            "local now = nowMillis()",
            "local score = redis.pcall('ZSCORE', KEYS[1], ARGV[1])",
            "if type(score) ~= 'string' or tonumber(score) <= now then",
            "  local reason = redis.pcall('GET', ARGV[3])",
            "  if type(reason) == 'string' then return reason end",
            "  return 0",
            "end",
            "local lease = tonumber(ARGV[2])",
            "redis.call('ZADD', KEYS[1], 'XX', 'GT', now + lease, ARGV[1])",
            "for i = 1, #KEYS do keepFor(KEYS[i], lease) end",
            "return 1"));

    private HoldLua() {
    }
}
