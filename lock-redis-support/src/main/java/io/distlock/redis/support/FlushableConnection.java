package io.distlock.redis.support;

import java.io.IOException;
import java.net.Socket;

import javax.net.ssl.SSLSocket;

import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;

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

    FlushableConnection(HostAndPort hostAndPort, JedisClientConfig config, int handshakeTimeoutMillis) {
        super(new HandshakingSocketFactory(hostAndPort, config, handshakeTimeoutMillis), config);
    }

    /**
     * Jedis's sockets, with a TLS handshake done at once under its own bound: Jedis leaves the
     * handshake to the first write, under the socket's read timeout — for a node of a fan-out the
     * per-node timeout, a few tens of milliseconds, where a JVM's first handshakes (class loading,
     * key exchange) take longer. The handshake is part of connecting: it gets the connect bound.
     */
    static final class HandshakingSocketFactory implements JedisSocketFactory {
        private final DefaultJedisSocketFactory sockets;
        private final boolean tls;
        private final int handshakeTimeoutMillis;

        HandshakingSocketFactory(HostAndPort hostAndPort, JedisClientConfig config, int handshakeTimeoutMillis) {
            this.sockets = new DefaultJedisSocketFactory(hostAndPort, config);
            this.tls = config.isSsl();
            this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        }

        @Override
        public Socket createSocket() {
            Socket socket = sockets.createSocket();
            if (tls && socket instanceof SSLSocket ssl) {
                try {
                    int readTimeout = socket.getSoTimeout();
                    socket.setSoTimeout(Math.max(readTimeout, handshakeTimeoutMillis));
                    ssl.startHandshake(); // host name verification is on: Jedis set the endpoint identification
                    socket.setSoTimeout(readTimeout);
                } catch (IOException e) {
                    try {
                        socket.close();
                    } catch (IOException closing) {
                        e.addSuppressed(closing);
                    }
                    throw new JedisConnectionException(e);
                }
            }
            return socket;
        }
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
        private final int handshakeTimeoutMillis;

        Factory(HostAndPort hostAndPort, JedisClientConfig config, int handshakeTimeoutMillis) {
            super(hostAndPort, config);
            this.hostAndPort = hostAndPort;
            this.config = config;
            this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        }

        @Override
        public PooledObject<Connection> makeObject() {
            return new DefaultPooledObject<>(new FlushableConnection(hostAndPort, config, handshakeTimeoutMillis));
        }
    }
}
