package io.distlock.bench;

import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.RedisNode;
import io.distlock.redis.support.RedisScript;

import java.util.List;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * A diagnostic row: distlock's own acquire and release scripts, sent on one plain Jedis connection
 * with a counter for the owner token — no engine, no connection pool. Set against the floor pair
 * it shows what the scripts cost on the server; set against the full distlock row, what the
 * client side (engine, pool, Jedis per call) costs.
 */
final class ScriptsOnly extends LoopScenario {

    /** The lock name of the single-Redis row; the cluster row sends to the primary of its slot. */
    static final String NAME = "scripts-only";

    private final Jedis jedis;
    private final boolean sharded;
    /** Replicas each acquire's {@code WAIT} asks for, pipelined with it (as {@code redis-wait://} does); 0: no {@code WAIT}. */
    private final int replicas;
    private long token;

    ScriptsOnly(String host, int port) {
        this("diagnostic: distlock's scripts on one raw Jedis connection (no engine, no pool)", host, port, false);
    }

    /**
     * @param label   the row's name
     * @param host    the server (on a cluster, the primary of {@link #NAME}'s slot)
     * @param port    its port
     * @param sharded true to send the scripts' sharded twins, as {@code redis-cluster://} does
     */
    ScriptsOnly(String label, String host, int port, boolean sharded) {
        this(label, host, port, sharded, 0);
    }

    /**
     * @param replicas the acquire script is sent with {@code WAIT replicas 1000} pipelined after it,
     *                 as {@code redis-wait://} sends them; 0 for none
     */
    ScriptsOnly(String label, String host, int port, boolean sharded, int replicas) {
        super(label);
        this.jedis = Floor.connect(host, port);
        this.sharded = sharded;
        this.replicas = replicas;
        script(LockScripts.ACQUIRE).load(jedis);
        script(LockScripts.RELEASE).load(jedis);
    }

    private RedisScript script(RedisScript script) {
        return sharded ? script.sharded() : script;
    }

    @Override
    void op() {
        String ownerToken = Long.toString(++token);
        // The very calls the backend sends (its keys and arguments, the owner record included).
        PendingReply.ScriptCall acquire = RedisNode.acquireCall(NAME, ownerToken, 10_000, "bench scripts-only");
        List<?> acquired;
        if (replicas == 0) {
            acquired = (List<?>) jedis.evalsha(script(acquire.script()).sha1(), acquire.keys(), acquire.args());
        } else {
            Response<Object> reply;
            Response<Long> acknowledged;
            try (Pipeline pipeline = jedis.pipelined()) {
                reply = pipeline.evalsha(script(acquire.script()).sha1(), acquire.keys(), acquire.args());
                acknowledged = pipeline.waitReplicas(replicas, 1_000);
                pipeline.sync();
            }
            if (acknowledged.get() < replicas) {
                throw new IllegalStateException("WAIT " + replicas + ": the grant was not acknowledged within 1 s");
            }
            acquired = (List<?>) reply.get();
        }
        if (!Long.valueOf(1).equals(acquired.get(0))) {
            throw new IllegalStateException("scripts-only was held by someone else");
        }
        PendingReply.ScriptCall release = RedisNode.releaseCall(NAME, ownerToken);
        Object released = jedis.evalsha(script(release.script()).sha1(), release.keys(), release.args());
        if (!Long.valueOf(1).equals(released)) {
            throw new IllegalStateException("release of scripts-only answered " + released);
        }
    }

    @Override
    public void close() {
        jedis.close();
    }
}
