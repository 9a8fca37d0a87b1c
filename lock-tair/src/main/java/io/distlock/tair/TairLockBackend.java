package io.distlock.tair;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;
import io.distlock.tair.internal.TairLockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * The Tair backend, for {@code tair://[user:password@]host[:port][/db][?poolSize=n&clientName=s]}
 * (port 6379 and database 0 by default): Alibaba Cloud Tair, or Redis with the open-source
 * TairString module, whose {@code CAS} and {@code CAD} compare the owner token on the server.
 *
 * <p>No Lua runs on this backend's path. A lock is {@code SET distlock:{name} <owner token> NX PX
 * <lease> GET}, sent in one {@code MULTI}/{@code EXEC} with {@code INCR distlock:{name}:fence} (the
 * fencing token, used only when the {@code SET} took) and {@code PTTL}; an extension
 * is {@code CAS key token token PX lease}; a release is {@code CAD key token}, followed on the same
 * round trip by a {@code PUBLISH} that wakes waiters. The keys and the channel are the single-Redis
 * backend's.
 *
 * <p><b>Guarantee: {@link Guarantee#EFFICIENCY}.</b> As on a single Redis: a failover to a replica
 * that had not received a grant loses it, a restart without persistence forgets it, a holder paused
 * past its lease is not stopped. Tair's semi-synchronous replication narrows the first window but
 * does not close it (a replica acknowledges receipt, not a quorum decision). The fencing token is
 * best effort for the same reasons.
 *
 * <p>A write whose reply was lost is taken back without a script: the driver kills the server-side
 * connection that carried it ({@code CLIENT KILL ID}), so nothing more of it can run, then deletes by
 * owner token. The server must let the user run {@code CLIENT KILL} (and {@code CLIENT INFO}); a
 * server that refuses it is logged once, and a late write may then hold a lock for one lease time.
 *
 * <p>{@link #connect} checks, besides the credentials, that the server knows {@code CAS} and
 * {@code CAD}: a server without them fails at connect, naming the commands it lacks.
 *
 * <p><b>TLS and credentials.</b> {@code tls=true} turns TLS on, with the TLS store options every
 * backend takes ({@code trustStore}, {@code trustStoreType}, {@code trustStorePassword},
 * {@code keyStore}, {@code keyStoreType}, {@code keyStorePassword}; without {@code tls=true} they are
 * an {@link IllegalArgumentException}); the server's host name is always verified. Credentials come
 * from the URI's user info or from {@link LockOptions#credentials()} (never both), read again at
 * every new connection so that a rotated password is picked up.
 */
public final class TairLockBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("tair", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.FENCING_TOKENS, Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL,
                    Feature.LOSS_NOTIFICATION, Feature.WAIT_NOTIFICATION, Feature.INSPECTION, Feature.REVOCATION));

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public TairLockBackend() {
        super(DESCRIPTOR);
    }

    /**
     * @throws IllegalArgumentException                 if the URI is malformed (the message never shows the password)
     * @throws io.distlock.BackendUnavailableException if the server cannot be reached within
     *                                                  {@link LockOptions#connectTimeout()}
     * @throws io.distlock.AuthenticationException   if the server refuses the credentials, or the TLS handshake fails
     *                                                  (certificate not trusted or naming another host)
     * @throws io.distlock.LockException                if the server refuses the credentials or the database,
     *                                                  or does not know {@code CAS} or {@code CAD} (named)
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        RedisEndpoint endpoint = RedisEndpoint.parse(uri, RedisEndpoint.OPTIONS).withCredentials(options);
        int poolSize = endpoint.intOption("poolSize", 8, 1, 64);
        return TairLockDriver.connect(endpoint, options, poolSize, context);
    }
}
