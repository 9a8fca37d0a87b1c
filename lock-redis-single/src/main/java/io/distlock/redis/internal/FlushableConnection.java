package io.distlock.redis.internal;

import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * A Jedis connection that can be flushed without reading a reply. Jedis flushes only as part of a
 * read; a fan-out needs the opposite order: write and flush to every node first, read afterwards
 * (see {@link PendingReply}). Everything else is Jedis's own connection, so the pool, the
 * single-node operations and the subscriber behave exactly as before.
 */
final class FlushableConnection extends Connection {

    /** Whether this connection has already told a caller the server's INFO (see {@link RedisNode#send}). */
    boolean serverInfoSeen;

    /**
     * Whether a script was already sent on this connection. The first one goes as {@code EVAL} (the
     * source), later ones as {@code EVALSHA}: a new connection may be to a server that just
     * restarted without its script cache, and a reply that times out would hide the
     * {@code NOSCRIPT} — a release sent as {@code EVALSHA} would then do nothing, with nobody
     * knowing. {@code EVAL} also puts the script back into the cache for the calls after it.
     */
    boolean scriptSent;

    FlushableConnection(HostAndPort hostAndPort, JedisClientConfig config) {
        super(hostAndPort, config);
    }

    /**
     * A {@link Jedis} facade over this connection, made once and kept with it: building one per call
     * (command objects, protocol state) was a fifth of the driver's own CPU per operation.
     */
    private Jedis facade;

    /** @return this connection's Jedis facade; closing the facade returns the connection to its pool */
    Jedis facade() {
        Jedis jedis = facade;
        if (jedis == null) {
            jedis = new Jedis(this);
            facade = jedis;
        }
        return jedis;
    }

    /** Forgets the facade after a failed call, so that no half-used state (a pipeline) is seen again. */
    void dropFacade() {
        facade = null;
    }

    /** Pushes what was written to the socket now, without waiting for any reply. */
    void flushNow() {
        flush();
    }

    /** The pool's factory: Jedis's, making flushable connections. */
    static final class Factory extends ConnectionFactory {
        private final HostAndPort hostAndPort;
        private final JedisClientConfig config;

        Factory(HostAndPort hostAndPort, JedisClientConfig config) {
            super(hostAndPort, config);
            this.hostAndPort = hostAndPort;
            this.config = config;
        }

        @Override
        public PooledObject<Connection> makeObject() {
            return new DefaultPooledObject<>(new FlushableConnection(hostAndPort, config));
        }
    }
}
