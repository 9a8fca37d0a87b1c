package io.distlock.redis;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;
import java.util.Set;

/**
 * The single-Redis backend, for {@code redis://[user:password@]host[:port][/db][?poolSize=n&clientName=s]}
 * (also {@code redis://:password@host:port}; port 6379 and database 0 by default).
 *
 * <p>A lock is {@code SET distlock:{name} <owner token> NX PX <lease>} in one Lua script that also
 * {@code INCR}s {@code distlock:{name}:fence}; release and extension are Lua compare-and-delete and
 * compare-and-{@code PEXPIRE}; a release is published so that waiters are woken at once.
 *
 * <p>Read-write locks and semaphores are Lua scripts too, on keys of their own
 * ({@code distlock:rw:{name}:*}, {@code distlock:semaphore:{name}:*}): holders in a sorted set scored
 * by the server's time of their lease's end, a write-preferring waiting-writer set, and one fence
 * counter per primitive (see {@code lock-redis-support}'s {@code ReadWriteScripts} and
 * {@code SemaphoreScripts}).
 *
 * <p><b>Guarantee: {@link Guarantee#EFFICIENCY}.</b> A single Redis server loses its locks when it
 * restarts without persistence or fails over to a replica that had not yet received them, and a
 * holder paused past its lease is not stopped. The fencing token is best effort for the same
 * reason: it increases only as long as Redis keeps the counter.
 *
 * <p>Options: {@code poolSize} (connections per client, 1..64, default 8), {@code clientName}
 * ({@code CLIENT SETNAME}). Timeouts come from {@link LockOptions}. Instantiating this class does
 * no I/O; {@link #connect} connects and checks the server with a {@code PING}.
 *
 * <p>For TLS add {@code tls=true} (the same as {@code rediss://}, {@link RedissLockBackend}); a TLS
 * option on a {@code redis://} URI without it is an {@link IllegalArgumentException}. Credentials
 * come from the URI's user info or from {@link LockOptions#credentials()} (never both), read again
 * at every new connection so that a rotated password is picked up.
 */
public final class RedisLockBackend extends AbstractLockBackend {

    /** The features of a single Redis server, plain or TLS. */
    static final EnumSet<Feature> FEATURES = EnumSet.of(Feature.FENCING_TOKENS, Feature.LEASE_EXTENSION,
            Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION, Feature.WAIT_NOTIFICATION, Feature.INSPECTION,
            Feature.REVOCATION, Feature.READ_WRITE, Feature.SEMAPHORE);

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("redis", Guarantee.EFFICIENCY, FEATURES);

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public RedisLockBackend() {
        super(DESCRIPTOR);
    }

    /**
     * @throws IllegalArgumentException                 if the URI is malformed (the message never shows the password)
     * @throws io.distlock.BackendUnavailableException if the server cannot be reached within
     *                                                  {@link LockOptions#connectTimeout()}
     * @throws io.distlock.AuthenticationException   if the server refuses the credentials, or the TLS handshake fails
     *                                                  (certificate not trusted or naming another host)
     * @throws io.distlock.LockException                if the server refuses the credentials or the database
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        return connect(uri, options, context, RedisEndpoint.OPTIONS);
    }

    /** Connects one server, plain or TLS as the URI's scheme says; shared with {@link RedissLockBackend}. */
    static LockDriver connect(URI uri, LockOptions options, DriverContext context, Set<String> allowedOptions) {
        RedisEndpoint endpoint = RedisEndpoint.parse(uri, allowedOptions).withCredentials(options);
        int poolSize = endpoint.intOption("poolSize", 8, 1, 64);
        RedisNode node = RedisNode.connect(endpoint, options.connectTimeout(), options.operationTimeout(), poolSize);
        return new RedisLockDriver(node, context);
    }
}
