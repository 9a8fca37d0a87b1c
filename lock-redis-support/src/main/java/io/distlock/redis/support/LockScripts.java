package io.distlock.redis.support;

/**
 * The Redis keys of a lock and the Lua scripts that act on them atomically. Shared by every
 * Redis-family backend so that they agree on the layout.
 *
 * <p>Layout for lock {@code <name>}: the lock key {@code distlock:{<name>}} holds the owner token
 * of the current lease with a {@code PX} expiry; the fence counter {@code distlock:{<name>}:fence}
 * is {@code INCR}ed on every grant; a release is announced on the channel
 * {@code distlock:released:{<name>}}. The {@code {...}} hash tag keeps both keys in one cluster slot.
 */
public final class LockScripts {

    /**
     * Takes the lock. KEYS: lock key, fence key, {@linkplain #abandonedKey abandoned marker} of
     * this request. ARGV: owner token, lease time in ms.
     * Replies {@code {1, fence}} when granted, {@code {0, holder's PTTL}} when busy (PTTL
     * {@code -2} when the request was abandoned: see {@link #ABANDON}), or an error when a key has
     * the wrong type. The common case costs three commands ({@code EXISTS} of the marker,
     * {@code SET NX PX}, {@code INCR}) and nothing else: no helper function is created and type
     * checks run only once something has failed. A fence that cannot be incremented undoes the
     * {@code SET} before the error is returned: a grant nobody knows of would stay held until it
     * expired. A request whose token already holds the lock (its earlier reply was lost) is granted
     * again, with a new fence; its expiry only ever moves later ({@code GT}), as with {@link #EXTEND}.
     */
    public static final RedisScript ACQUIRE = new RedisScript("acquire", String.join("\n",
            "if redis.call('EXISTS', KEYS[3]) == 1 then return {0, -2} end",
            "local granted = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
            "if granted then",
            "  local ok, value = pcall(redis.call, 'INCR', KEYS[2])",
            "  if ok then return {1, value} end",
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
            "  return {1, value}",
            "end",
            "return {0, redis.call('PTTL', KEYS[1])}"));

    /**
     * Compare-and-extend, monotone. KEYS: lock key. ARGV: owner token, lease time in ms.
     * Replies 1 if the token holds the lock — its expiry is then at least the lease time from now:
     * set to it, or left where it was if that is later ({@code PEXPIRE ... GT}, Redis 7.0+) — else
     * 0 (also when the key holds another type: {@code redis.pcall} turns {@code GET}'s WRONGTYPE
     * into a value that equals no token, so no separate {@code TYPE} command is paid on every
     * renewal).
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
            "  return 1",
            "end",
            "return 0"));

    /**
     * Compare-and-delete, announcing the release. KEYS: lock key. ARGV: owner token, channel.
     * Replies 1 if the token held the lock and it was deleted, else 0 (also for a key of another
     * type, as in {@link #EXTEND}).
     */
    public static final RedisScript RELEASE = new RedisScript("release", String.join("\n",
            "if redis.pcall('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('DEL', KEYS[1])",
            "  redis.call('PUBLISH', ARGV[2], 'released')",
            "  return 1",
            "end",
            "return 0"));

    /**
     * Withdraws a request whose outcome is unknown (its reply was lost: its write may have landed,
     * or may still be on its way). KEYS: lock key, the request's {@linkplain #abandonedKey
     * abandoned marker}. ARGV: owner token, how long the marker lives in ms, channel. Sets the
     * marker first — {@link #ACQUIRE} refuses a request whose marker exists, so a write of this
     * request that reaches the server after this script (held in the network, delivered on a
     * connection the client gave up) takes nothing — then compare-and-deletes what an earlier
     * write of it may hold, announcing the release. Replies 1 if it deleted the lock, else 0.
     */
    public static final RedisScript ABANDON = new RedisScript("abandon", String.join("\n",
            "redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])",
            "if redis.pcall('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('DEL', KEYS[1])",
            "  redis.call('PUBLISH', ARGV[3], 'released')",
            "  return 1",
            "end",
            "return 0"));

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
     * @param name the lock name
     * @return {@code distlock:released:{<name>}}, where releases of the lock are published
     */
    public static String releaseChannel(String name) {
        return "distlock:released:{" + name + "}";
    }
}
