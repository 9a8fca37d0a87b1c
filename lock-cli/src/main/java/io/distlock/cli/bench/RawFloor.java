package io.distlock.cli.bench;

import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The raw floor's client: one plain Jedis connection, no pool, sending the least a correct lock on a
 * Redis server sends — {@code SET key token NX PX lease}, then a compare-and-delete script by
 * {@code EVALSHA} (so that a release never frees someone else's lock). On {@code redis-wait} the
 * {@code SET} is pipelined with the backend's {@code WAIT}, as the backend pipelines its grant with it.
 * Not thread-safe: one thread runs the loop; {@link #removeKey()} uses a connection of its own.
 */
final class RawFloor implements AutoCloseable {

    static final String COMPARE_AND_DELETE =
            "if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end";

    /** The server would not run the floor's commands for this user (an ACL that allows distlock's keys only). */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    private final FloorPlan.At at;
    private final JedisClientConfig config;
    private final String key;
    private final Jedis jedis;
    private final String sha;
    private final SetParams nxPx;
    private final List<String> keys;
    // A random prefix and a counter: unique per operation, and costs the floor nothing it would not send.
    private final String tokenPrefix = Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";
    private long token;

    private RawFloor(FloorPlan.At at, JedisClientConfig config, String key, Duration lease) {
        this.at = at;
        this.config = config;
        this.key = key;
        this.keys = List.of(key);
        this.nxPx = SetParams.setParams().nx().px(lease.toMillis());
        this.jedis = new Jedis(new HostAndPort(at.host(), at.port()), config);
        try {
            this.sha = jedis.scriptLoad(COMPARE_AND_DELETE);
        } catch (RuntimeException e) {
            jedis.close();
            throw e;
        }
    }

    /**
     * Connects, loads the script and runs one operation, so that a user the server does not allow the
     * floor's key or commands shows up here, as a refusal, rather than as a failed row.
     *
     * @throws Refused if the server answered {@code NOPERM}
     */
    static RawFloor open(FloorPlan.At at, String key, Duration lease, Duration connectTimeout, Duration operationTimeout)
            throws Refused {
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(Math.toIntExact(connectTimeout.toMillis()))
                // A WAIT blocks up to its timeout on top of the reply's own time.
                .socketTimeoutMillis(Math.toIntExact(operationTimeout.toMillis() + at.waitTimeoutMillis()))
                .database(at.database())
                // No HELLO or CLIENT SETINFO at connect: the floor pays for nothing but its commands.
                .autoNegotiateProtocol(false)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED);
        if (at.user() != null) {
            builder.user(at.user());
        }
        if (at.password() != null) {
            builder.password(at.password());
        }
        JedisClientConfig config = builder.build();
        RawFloor floor;
        try {
            floor = new RawFloor(at, config, key, lease);
        } catch (JedisDataException e) {
            throw refusedOr(e);
        }
        try {
            floor.acquireAndRelease();
        } catch (JedisDataException e) {
            floor.close();
            throw refusedOr(e);
        } catch (RuntimeException e) {
            floor.close();
            throw e;
        }
        return floor;
    }

    private static Refused refusedOr(JedisDataException e) {
        if (e.getMessage() != null && e.getMessage().startsWith("NOPERM")) {
            return new Refused(e.getMessage());
        }
        throw e;
    }

    /**
     * Takes the key and gives it back.
     *
     * @return {@link System#nanoTime()} when the grant's reply arrived, for the acquire-alone figures
     * @throws IllegalStateException if the key was held or the compare-and-delete did not delete it
     */
    long acquireAndRelease() {
        String value = tokenPrefix + (++token);
        String set;
        if (at.waitReplicas() > 0) {
            Pipeline pipeline = jedis.pipelined();
            Response<String> reply = pipeline.set(key, value, nxPx);
            Response<Long> acknowledged = pipeline.waitReplicas(at.waitReplicas(), at.waitTimeoutMillis());
            pipeline.sync();
            set = reply.get();
            if ("OK".equals(set) && acknowledged.get() < at.waitReplicas()) {
                jedis.evalsha(sha, keys, List.of(value));
                throw new IllegalStateException("WAIT " + at.waitReplicas() + ": " + acknowledged.get()
                        + " replicas acknowledged within " + at.waitTimeoutMillis() + " ms");
            }
        } else {
            set = jedis.set(key, value, nxPx);
        }
        long granted = System.nanoTime();
        if (!"OK".equals(set)) {
            throw new IllegalStateException(key + " was held by someone else");
        }
        Object deleted = jedis.evalsha(sha, keys, List.of(value));
        if (!Long.valueOf(1).equals(deleted)) {
            throw new IllegalStateException("the compare-and-delete of " + key + " answered " + deleted);
        }
        return granted;
    }

    /**
     * Deletes the floor's key, on a connection of its own: the loop's may be in the middle of a request
     * when a Ctrl-C asks for this. Best effort: the key expires with its lease anyway.
     */
    void removeKey() {
        try (Jedis own = new Jedis(new HostAndPort(at.host(), at.port()), config)) {
            own.del(key);
        } catch (RuntimeException e) {
            // Unreachable now: the key's PX ends it within one lease time.
        }
    }

    @Override
    public void close() {
        jedis.close();
    }
}
