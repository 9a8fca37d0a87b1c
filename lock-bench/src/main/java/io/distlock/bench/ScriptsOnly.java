package io.distlock.bench;

import io.distlock.redis.support.LockScripts;

import java.util.List;

import redis.clients.jedis.Jedis;

/**
 * A diagnostic row: distlock's own acquire and release scripts, sent on one plain Jedis connection
 * with a counter for the owner token — no engine, no connection pool. Set against the floor pair
 * it shows what the scripts cost on the server; set against the full distlock row, what the
 * client side (engine, pool, Jedis per call) costs.
 */
final class ScriptsOnly extends LoopScenario {

    private final Jedis jedis;
    private final String lockKey = LockScripts.lockKey("scripts-only");
    private final String fenceKey = LockScripts.fenceKey("scripts-only");
    private final List<String> releaseKeys = List.of(LockScripts.lockKey("scripts-only"));
    private final String channel = LockScripts.releaseChannel("scripts-only");
    private long token;

    ScriptsOnly(String host, int port) {
        super("diagnostic: distlock's scripts on one raw Jedis connection (no engine, no pool)");
        this.jedis = Floor.connect(host, port);
        LockScripts.ACQUIRE.load(jedis);
        LockScripts.RELEASE.load(jedis);
    }

    @Override
    void op() {
        String owner = Long.toString(++token);
        List<?> acquired = (List<?>) jedis.evalsha(LockScripts.ACQUIRE.sha1(),
                List.of(lockKey, fenceKey, LockScripts.abandonedKey("scripts-only", owner)), List.of(owner, "10000"));
        if (!Long.valueOf(1).equals(acquired.get(0))) {
            throw new IllegalStateException("scripts-only was held by someone else");
        }
        Object released = jedis.evalsha(LockScripts.RELEASE.sha1(), releaseKeys, List.of(owner, channel));
        if (!Long.valueOf(1).equals(released)) {
            throw new IllegalStateException("release of scripts-only answered " + released);
        }
    }

    @Override
    public void close() {
        jedis.close();
    }
}
