package io.distlock.redis.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A Lua script run by its SHA-1 ({@code EVALSHA}), loaded into the server's script cache on
 * demand: a server that answers {@code NOSCRIPT} (restarted, {@code SCRIPT FLUSH}ed, a failover to
 * a replica that never saw it) gets {@code SCRIPT LOAD} and the call is retried once. The digest
 * is computed here, so the hot path never pays for a load up front.
 *
 * <p><b>Notices to waiters</b> are sent with {@code notify(channel, message)}, a local function
 * each script gets in front of it: {@code PUBLISH} in the script itself, and in its
 * {@linkplain #sharded() sharded twin}, which a Redis Cluster runs, {@code SPUBLISH} — and only if
 * the node has a subscriber of the channel. A plain {@code PUBLISH} in a cluster is broadcast over
 * the cluster bus to every node, whoever listens; {@code SPUBLISH} goes only to the shard that
 * serves the channel's slot (the lock's own, as the channel carries the lock's hash tag), and a
 * distlock waiter subscribes on the slot's primary, so where that primary has no subscriber nobody
 * is told anything and the shard's replicas are spared the message. A notice every client must hear
 * wherever it listens (a revocation's, on {@value LockScripts#REVOKED_CHANNEL}) stays a plain
 * {@code PUBLISH}. {@code notify} returns how many subscribers the notice reached (0 where nobody
 * listens), so that a release can tell its caller it woke waiters.
 */
public final class RedisScript {

    /** What a script that notifies waiters calls. */
    private static final String NOTIFY = "notify(";
    private static final String PLAIN_NOTIFY = "local function notify(channel, message) return redis.call('PUBLISH', channel, message) end\n";
    private static final String SHARDED_NOTIFY = "local function notify(channel, message)"
            + " if redis.call('PUBSUB', 'SHARDNUMSUB', channel)[2] > 0 then return redis.call('SPUBLISH', channel, message) end return 0 end\n";

    private final String name;
    private final String source;
    private final String sha1;
    /** The twin that notifies with {@code SPUBLISH}; this script itself if it notifies no one. */
    private final RedisScript sharded;

    /**
     * @param name   a short name for messages
     * @param source the Lua source; it may notify waiters with {@code notify(channel, message)}
     */
    public RedisScript(String name, String source) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        if (source.contains(NOTIFY)) {
            this.name = name;
            this.source = PLAIN_NOTIFY + source;
            this.sha1 = sha1(this.source);
            this.sharded = new RedisScript(this, SHARDED_NOTIFY + source);
        } else {
            this.name = name;
            this.source = source;
            this.sha1 = sha1(source);
            this.sharded = this;
        }
    }

    /** The sharded twin of {@code plain} (named after it), which is its own sharded form. */
    private RedisScript(RedisScript plain, String source) {
        this.name = plain.name + " (sharded)";
        this.source = source;
        this.sha1 = sha1(source);
        this.sharded = this;
    }

    /**
     * @return the same script notifying waiters with {@code SPUBLISH} (for a Redis Cluster); this
     *         script if it notifies no one, or is the twin already
     */
    public RedisScript sharded() {
        return sharded;
    }

    /** @return the script's name, for messages */
    public String name() {
        return name;
    }

    /** @return the Lua source, for {@code EVAL} */
    public String source() {
        return source;
    }

    /** @return the hex SHA-1 of the source, as {@code EVALSHA} wants it */
    public String sha1() {
        return sha1;
    }

    /**
     * Runs the script on {@code jedis}, loading it first if the server does not know it.
     *
     * @param jedis a connection
     * @param keys  the keys it touches
     * @param args  its arguments
     * @return the script's reply
     * @throws JedisDataException if the script answers an error (for example {@code WRONGTYPE})
     */
    public Object eval(Jedis jedis, List<String> keys, List<String> args) {
        try {
            return jedis.evalsha(sha1, keys, args);
        } catch (JedisNoScriptException e) {
            load(jedis);
            return jedis.evalsha(sha1, keys, args);
        }
    }

    /**
     * Puts the script into the server's cache ({@code SCRIPT LOAD}).
     *
     * @param jedis a connection
     * @throws IllegalStateException if the server computes another digest (a different Lua or hash)
     */
    public void load(Jedis jedis) {
        String loaded = jedis.scriptLoad(source);
        if (!sha1.equalsIgnoreCase(loaded)) {
            throw new IllegalStateException("Redis loaded script " + name + " as " + loaded + ", expected " + sha1);
        }
    }

    @Override
    public String toString() {
        return "RedisScript[" + name + ", " + sha1 + "]";
    }

    private static String sha1(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }
}
