package io.distlock.redis;

import io.distlock.BackendDescriptor;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.HashSet;
import java.util.Set;

/**
 * The single-Redis backend over TLS, for
 * {@code rediss://[user:password@]host[:port][/db][?option=value&...]}: the same locks, guarantee
 * and features as {@link RedisLockBackend}, on connections that speak TLS only.
 *
 * <p>TLS options: {@code trustStore} (a file of the certificates to trust; without it the JVM's
 * default trust, that is the {@code javax.net.ssl.trustStore*} system properties or the JDK's CA
 * certificates), {@code trustStoreType} ({@code PKCS12}, the default, or {@code JKS}),
 * {@code trustStorePassword}; for servers that ask for a client certificate {@code keyStore},
 * {@code keyStoreType}, {@code keyStorePassword}. Plus {@code poolSize} and {@code clientName} as for
 * {@code redis://}. The server's certificate must name the host in the URI (as a subject
 * alternative name); that check cannot be turned off.
 *
 * <p><b>Guarantee: {@link Guarantee#EFFICIENCY}</b>, as for {@code redis://}: TLS protects the
 * connection, not the lock from a server that restarts or fails over.
 */
public final class RedissLockBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor(RedisEndpoint.TLS_SCHEME,
            Guarantee.EFFICIENCY, RedisLockBackend.FEATURES);

    private static final Set<String> OPTIONS = options();

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public RedissLockBackend() {
        super(DESCRIPTOR);
    }

    private static Set<String> options() {
        Set<String> all = new HashSet<>(RedisEndpoint.OPTIONS);
        all.addAll(RedisEndpoint.TLS_OPTIONS);
        return Set.copyOf(all);
    }

    /**
     * @throws IllegalArgumentException                if the URI is malformed, or a trust or key store
     *                                                 is missing, unreadable, of an unknown type or
     *                                                 has another password (the message names the
     *                                                 option and the file, never a password)
     * @throws io.distlock.BackendUnavailableException if the server cannot be reached within
     *                                                 {@link LockOptions#connectTimeout()}
     * @throws io.distlock.AuthenticationException     if the TLS handshake fails (the server's
     *                                                 certificate is not trusted or does not name
     *                                                 the host), or the server refuses the
     *                                                 credentials
     * @throws io.distlock.LockException               if the server refuses the database
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        return RedisLockBackend.connect(uri, options, context, OPTIONS);
    }
}
