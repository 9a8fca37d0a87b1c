package io.distlock.redis.support;

/**
 * The Redis keys of a lock and the Lua scripts that act on them atomically. Shared by every
 * Redis-family backend so that they agree on the layout.
 *
 * <p>Layout for lock {@code <name>}: the lock key {@code distlock:{<name>}} holds the owner token
 * of the current lease — only the token, so that a client of the layout before owner records
 * still compares, extends and deletes its own locks, and its {@code SET NX} still finds a lock of
 * this layout taken — with a {@code PX} expiry; the {@linkplain #ownerKey owner record}
 * {@code distlock:{<name>}:owner}, written in the same script with the same expiry, says who holds
 * it (fence, server time, owner token, owner description; see {@link OwnerRecord}); the fence
 * counter {@code distlock:{<name>}:fence} is {@code INCR}ed on every grant; a release is
 * announced on the channel {@code distlock:released:{<name>}}. An operator's revoke
 * ({@link #REVOKE}) leaves a {@linkplain #revokedKey revocation marker} under the operator-only
 * prefix {@code distlock-revoked:} and announces the revocation on {@value #REVOKED_CHANNEL}. The
 * {@code {...}} hash tag keeps every key of a lock in one cluster slot, the marker included.
 */
public final class LockScripts {

    /** Where revocations are announced: {@code <owner token> <lock name>} per revoke. */
    public static final String REVOKED_CHANNEL = "distlock:revoked";

    /** The prefix of revocation markers: outside {@code distlock:*}, so that ACLs can keep it the operators'. */
    public static final String REVOKED_PREFIX = "distlock-revoked:";

    /**
     * How much longer than the revoked lease had left its marker lives: the holder's client reads
     * it when the notification arrives, and at its next extension at the latest, which comes within
     * the lease it still counts on (plus an operation timeout or two for a slow reply). A minute
     * covers that with room for a renewal retried after a timeout.
     */
    public static final long REVOKED_MARKER_GRACE_MILLIS = 60_000;

    /**
     * Writes the owner record, as the grants of {@link #ACQUIRE} and {@link #ACQUIRE_UNFENCED}
     * do: {@code <fence> <server time in ms> <owner token> <owner>}, with the expiry {@code PX}.
     * {@code TIME} goes through {@code redis.pcall}: a user whose ACL line predates owner records
     * (no {@code +time}) still takes locks, with the time shown as unknown ({@code -}).
     */
    private static final String WRITE_OWNER_RECORD = String.join("\n",
            "local function ownerRecord(fence, token, owner)",
            "  local t = redis.pcall('TIME')",
            "  local at = '-'",
            "  if type(t) == 'table' and t[1] then",
            "    at = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))",
            "  end",
            "  return fence .. ' ' .. at .. ' ' .. token .. ' ' .. owner",
            "end");

    /**
     * Takes the lock. KEYS: lock key, fence key, {@linkplain #abandonedKey abandoned marker} of
     * this request, {@linkplain #ownerKey owner record}. ARGV: owner token, lease time in ms, owner
     * description.
     * Replies {@code {1, fence}} when granted, {@code {0, holder's PTTL}} when busy (PTTL
     * {@code -2} when the request was abandoned: see {@link #ABANDON}), or an error when a key has
     * the wrong type. The common case costs five commands ({@code EXISTS} of the marker,
     * {@code SET NX PX}, {@code INCR}, {@code TIME}, the owner record's {@code SET PX}) and nothing
     * else: type checks run only once something has failed. A fence that cannot be incremented
     * undoes the {@code SET} before the error is returned: a grant nobody knows of would stay held
     * until it expired. A request whose token already holds the lock (its earlier reply was lost)
     * is granted again, with a new fence and owner record; its expiry only ever moves later
     * ({@code GT}), as with {@link #EXTEND}, and the record gets the lock key's expiry.
     */
    public static final RedisScript ACQUIRE = new RedisScript("acquire", String.join("\n",
            WRITE_OWNER_RECORD,
            "if redis.call('EXISTS', KEYS[3]) == 1 then return {0, -2} end",
            "local granted = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
            "if granted then",
            "  local ok, value = pcall(redis.call, 'INCR', KEYS[2])",
            "  if ok then",
            "    redis.call('SET', KEYS[4], ownerRecord(value, ARGV[1], ARGV[3]), 'PX', ARGV[2])",
            "    return {1, value}",
            "  end",
            "  redis.call('DEL', KEYS[1])",
            "end",
            "local function fenceError()",
            "  local fenceType = redis.call('TYPE', KEYS[2])['ok']",
            "  local what = fenceType == 'string' and 'a string that is not a counter' or ('a ' .. fenceType)",
            "  return redis.error_reply('WRONGTYPE distlock: fence key ' .. KEYS[2] .. ' holds ' .. what",
            "    .. ', not a counter; nothing was written')",
            "end",
            "if granted then return fenceError() end",
            "local lockType = redis.call('TYPE', KEYS[1])['ok']",
            "if lockType ~= 'string' then",
            "  return redis.error_reply('WRONGTYPE distlock: lock key ' .. KEYS[1] .. ' holds a '",
            "    .. lockType .. ', not a distlock lock; nothing was written')",
            "end",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  local ok, value = pcall(redis.call, 'INCR', KEYS[2])",
            "  if not ok then return fenceError() end",
            "  redis.call('PEXPIRE', KEYS[1], ARGV[2], 'GT')",
            "  redis.call('SET', KEYS[4], ownerRecord(value, ARGV[1], ARGV[3]), 'PX', redis.call('PTTL', KEYS[1]))",
            "  return {1, value}",
            "end",
            "return {0, redis.call('PTTL', KEYS[1])}"));

    /**
     * Takes the lock without a fence, for a backend that offers no fencing token (Redlock): the
     * plain {@code SET NX PX GET} it sent before owner records, plus the owner record (fence
     * {@code -}) when it took. KEYS: lock key, owner record. ARGV: owner token, lease time in ms,
     * owner description. Replies what {@code SET ... NX GET} replies: nil if the lock was free (and
     * is now this token's), else the holder's token ({@code WRONGTYPE} for a key of another type,
     * nothing written). A request whose token already holds the lock gets its token back: the
     * caller decides (Redlock counts it as no vote and takes it back).
     */
    public static final RedisScript ACQUIRE_UNFENCED = new RedisScript("acquire-unfenced", String.join("\n",
            WRITE_OWNER_RECORD,
            "local holder = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2], 'GET')",
            "if holder then return holder end",
            "redis.call('SET', KEYS[2], ownerRecord('-', ARGV[1], ARGV[3]), 'PX', ARGV[2])",
            "return false"));

    /**
     * Compare-and-extend, monotone. KEYS: lock key, owner record. ARGV: owner token, lease time in
     * ms, the token's {@linkplain #revokedKey revocation marker} (an argument, not a key: Redis
     * checks a script's declared keys for write rights, and a locker may only read the markers;
     * it shares the lock's hash tag, so it lives in the lock's cluster slot).
     * Replies 1 if the token holds the lock — its expiry, and its owner record's, is then at least
     * the lease time from now: set to it, or left where it was if that is later
     * ({@code PEXPIRE ... GT}, Redis 7.0+) — else the revocation's reason if an operator revoked
     * this token's lease (the marker, read with {@code redis.pcall}: a user without read rights on
     * the markers gets 0), else 0 (also when the key holds another type: {@code redis.pcall}
     * turns {@code GET}'s WRONGTYPE into a value that equals no token, so no separate {@code TYPE}
     * command is paid on every renewal).
     *
     * <p>Why never earlier: an extension whose reply was lost can still reach the server late, on
     * a connection the client gave up, after a newer extension was confirmed. Were it applied, the
     * key would die before the validity the newer reply let the engine promise, and another client
     * could take the lock from a holder that still counts itself valid. With {@code GT} the late
     * one changes nothing. The price: asking for a shorter lease than the key has left shortens
     * only what the engine promises (it counts from the request's own lease time), not the key;
     * the lock is then held on the server longer than promised, which costs contenders time, never
     * safety, and a release ends it at once.
     */
    public static final RedisScript EXTEND = new RedisScript("extend", String.join("\n",
            "if redis.pcall('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('PEXPIRE', KEYS[1], ARGV[2], 'GT')",
            "  redis.call('PEXPIRE', KEYS[2], ARGV[2], 'GT')",
            "  return 1",
            "end",
            "local reason = redis.pcall('GET', ARGV[3])",
            "if type(reason) == 'string' then return reason end",
            "return 0"));

    /**
     * Compare-and-delete, announcing the release. KEYS: lock key, owner record. ARGV: owner token,
     * channel. Replies 1 if the token held the lock and it was deleted (with its owner record), 2 if
     * so and the announcement reached a waiter ({@link #WOKE_WAITERS}), else 0 (also for a key of
     * another type, as in {@link #EXTEND}).
     */
    public static final RedisScript RELEASE = new RedisScript("release", String.join("\n",
            "if redis.pcall('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('DEL', KEYS[1], KEYS[2])",
            "  if notify(ARGV[2], 'released') > 0 then return 2 end",
            "  return 1",
            "end",
            "return 0"));

    /** {@link #RELEASE}'s reply when it deleted the lock and its announcement reached a subscriber. */
    public static final long WOKE_WAITERS = 2;

    /**
     * Withdraws a request whose outcome is unknown (its reply was lost: its write may have landed,
     * or may still be on its way). KEYS: lock key, the request's {@linkplain #abandonedKey
     * abandoned marker}, owner record. ARGV: owner token, how long the marker lives in ms, channel.
     * Sets the marker first — {@link #ACQUIRE} refuses a request whose marker exists, so a write of
     * this request that reaches the server after this script (held in the network, delivered on a
     * connection the client gave up) takes nothing — then compare-and-deletes what an earlier
     * write of it may hold, announcing the release. Replies 1 if it deleted the lock, else 0.
     */
    public static final RedisScript ABANDON = new RedisScript("abandon", String.join("\n",
            "redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])",
            "if redis.pcall('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('DEL', KEYS[1], KEYS[3])",
            "  notify(ARGV[3], 'released')",
            "  return 1",
            "end",
            "return 0"));

    /**
     * An operator's revoke, atomic. KEYS: lock key, owner record, fence key. ARGV: the lock's
     * {@linkplain #revokedPrefix revocation marker prefix}, reason, the marker's grace in ms
     * ({@link #REVOKED_MARKER_GRACE_MILLIS}), {@code 1} to move the fence (a backend with fencing
     * tokens) or {@code 0}, the revocation channel ({@value #REVOKED_CHANNEL}), the lock's release
     * channel, the lock name.
     *
     * <p>If nobody holds the lock it changes nothing and replies nil. Otherwise, in this order:
     * writes the holder's revocation marker ({@code <prefix><token>} = reason, living what the lease
     * had left plus the grace) — <em>first</em>, because a script is not rolled back when a command
     * fails: the markers' prefix is writable by operators only, so a principal without the right to
     * revoke is refused here ({@code NOPERM}) before anything changed; then {@code INCR}s the fence
     * (every later grant's token is above the evicted holder's; the grant's {@code INCR} alone would
     * do that too, but moving it here keeps the promise even for a counter whose grants skipped
     * it); deletes the lock key and the owner record; announces {@code <token> <name>} on the
     * revocation channel (holders check the marker before they believe it: anyone who may publish
     * could forge it) and wakes the lock's waiters. Replies {@code {token, owner record or nil,
     * PTTL the lease had left, fence before the revoke or nil}}.
     */
    public static final RedisScript REVOKE = new RedisScript("revoke", String.join("\n",
            "local token = redis.call('GET', KEYS[1])",
            "if not token then return false end",
            "local pttl = redis.call('PTTL', KEYS[1])",
            "local record = redis.pcall('GET', KEYS[2])",
            "if type(record) ~= 'string' then record = false end",
            "local fence = false",
            "if ARGV[4] == '1' then",
            "  fence = redis.pcall('GET', KEYS[3])",
            "  if type(fence) ~= 'string' then fence = false end",
            "end",
            "local left = pttl",
            "if left < 0 then left = 0 end",
            "redis.call('SET', ARGV[1] .. token, ARGV[2], 'PX', left + tonumber(ARGV[3]))",
            "if ARGV[4] == '1' then redis.call('INCR', KEYS[3]) end",
            "redis.call('DEL', KEYS[1], KEYS[2])",
            "redis.call('PUBLISH', ARGV[5], token .. ' ' .. ARGV[7])",
            "notify(ARGV[6], 'revoked')",
            "return {token, record, pttl, fence}"));

    private LockScripts() {
    }

    /**
     * @param name the lock name
     * @return {@code distlock:{<name>}}
     */
    public static String lockKey(String name) {
        return "distlock:{" + name + "}";
    }

    /**
     * @param name the lock name
     * @return {@code distlock:{<name>}:fence}
     */
    public static String fenceKey(String name) {
        return "distlock:{" + name + "}:fence";
    }

    /**
     * The marker {@link #ABANDON} leaves for a withdrawn request, checked by {@link #ACQUIRE}. Only
     * requests whose outcome was unknown get one, so it costs nothing unless the server failed to
     * answer; it lives a bounded time (see {@code ABANDON}'s caller) and is never read otherwise.
     *
     * @param name       the lock name
     * @param ownerToken the withdrawn request's owner token
     * @return {@code distlock:{<name>}:abandoned:<ownerToken>}, in the lock's cluster slot
     */
    public static String abandonedKey(String name, String ownerToken) {
        return "distlock:{" + name + "}:abandoned:" + ownerToken;
    }

    /**
     * The owner record of the current lease ({@link OwnerRecord}): written with the grant, with
     * the lock key's expiry, deleted with it.
     *
     * @param name the lock name
     * @return {@code distlock:{<name>}:owner}
     */
    public static String ownerKey(String name) {
        return "distlock:{" + name + "}:owner";
    }

    /**
     * @param name the lock name
     * @return {@code distlock-revoked:{<name>}:}, the prefix of the lock's revocation markers (the
     *         revoked owner token follows)
     */
    public static String revokedPrefix(String name) {
        return REVOKED_PREFIX + "{" + name + "}:";
    }

    /**
     * The marker {@link #REVOKE} leaves for the lease it ended, read by {@link #EXTEND} and by a
     * holder's client told of the revocation. Its hash tag is the lock's, so it lives in the lock's
     * cluster slot.
     *
     * @param name       the lock name
     * @param ownerToken the revoked lease's owner token
     * @return {@code distlock-revoked:{<name>}:<ownerToken>}
     */
    public static String revokedKey(String name, String ownerToken) {
        return revokedPrefix(name) + ownerToken;
    }

    /**
     * The {@code SCAN MATCH} pattern that finds the lock keys of names starting with
     * {@code prefix} (and, with them, their fence counters, owner records and abandoned markers,
     * which {@link #nameOfLockKey} tells apart): the prefix's glob characters escaped.
     *
     * @param prefix the names' prefix, possibly empty
     * @return <code>distlock:{&lt;escaped prefix&gt;*</code>
     */
    public static String scanPattern(String prefix) {
        StringBuilder pattern = new StringBuilder("distlock:{");
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                pattern.append('\\');
            }
            pattern.append(c);
        }
        return pattern.append('*').toString();
    }

    /**
     * Tells a lock key from the lock's other keys: only a lock key ends in <code>}</code> (a fence
     * counter ends in {@code :fence}, an owner record in {@code :owner}, an abandoned marker in an
     * owner token, which is URL-safe base64).
     *
     * @param key a key found under <code>distlock:{</code>
     * @return the lock's name if {@code key} is a lock key, else null
     */
    public static String nameOfLockKey(String key) {
        if (key.length() <= 11 || !key.startsWith("distlock:{") || key.charAt(key.length() - 1) != '}') {
            return null;
        }
        return key.substring(10, key.length() - 1);
    }

    /**
     * @param name the lock name
     * @return {@code distlock:released:{<name>}}, where releases of the lock are published
     */
    public static String releaseChannel(String name) {
        return "distlock:released:{" + name + "}";
    }
}
