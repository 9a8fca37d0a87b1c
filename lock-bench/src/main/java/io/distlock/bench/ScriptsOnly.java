package io.distlock.bench;

import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.RedisNode;

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
    private long token;

    ScriptsOnly(String host, int port) {
        super("diagnostic: distlock's scripts on one raw Jedis connection (no engine, no pool)");
        this.jedis = Floor.connect(host, port);
        LockScripts.ACQUIRE.load(jedis);
        LockScripts.RELEASE.load(jedis);
    }

    @Override
    void op() {
        String ownerToken = Long.toString(++token);
        // The very calls the backend sends (its keys and arguments, the owner record included).
        PendingReply.ScriptCall acquire = RedisNode.acquireCall("scripts-only", ownerToken, 10_000, "bench scripts-only");
        List<?> acquired = (List<?>) jedis.evalsha(acquire.script().sha1(), acquire.keys(), acquire.args());
        if (!Long.valueOf(1).equals(acquired.get(0))) {
            throw new IllegalStateException("scripts-only was held by someone else");
        }
        PendingReply.ScriptCall release = RedisNode.releaseCall("scripts-only", ownerToken);
        Object released = jedis.evalsha(release.script().sha1(), release.keys(), release.args());
        if (!Long.valueOf(1).equals(released)) {
            throw new IllegalStateException("release of scripts-only answered " + released);
        }
    }

    @Override
    public void close() {
        jedis.close();
    }
}
