package io.distlock.rediswait;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.rediswait.internal.RedisWaitDrivers;
import io.distlock.rediswait.internal.RedisWaitSettings;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * The Redis + {@code WAIT} backend: the single-Redis lock on a primary with replicas, where a
 * grant or an extension counts only once {@code replicas} replicas acknowledged it. Two forms:
 *
 * <ul>
 *   <li>a fixed primary: {@code redis-wait://[user:password@]host:port[/db][?replicas=N&waitTimeout=ms]};</li>
 *   <li>a primary found through Sentinel and followed across failovers:
 *       {@code redis-wait://[user:password@]sentinel:port[,sentinel:port...][/db]?master=<name>[&replicas=N&waitTimeout=ms]}
 *       — with {@code master} the hosts are Sentinels (asked without credentials); the user info
 *       and database are the data nodes'.</li>
 * </ul>
 *
 * <p>An acquire is the single-Redis acquire script ({@code SET key token NX PX lease}) followed,
 * pipelined on the same connection, by {@code WAIT replicas waitTimeout}; an extension is the
 * compare-and-extend script followed by the same {@code WAIT}. Fewer acknowledgements than
 * {@code replicas} leave the outcome unknown: a single attempt throws
 * {@link io.distlock.BackendUnavailableException} ("k of N replicas acknowledged within
 * waitTimeout") after withdrawing the grant by owner token, a waiting acquire keeps trying, and an
 * extension is neither confirmed nor lost. A release sends no {@code WAIT}. A lease's validity
 * counts from the moment its acquire (or extension) was sent, so the time {@code WAIT} took is
 * already spent. Read-write locks and semaphores run the single-Redis scripts of their holds the
 * same way, each acquire and extension with its {@code WAIT} behind it.
 *
 * <p><b>Guarantee: {@link Guarantee#EFFICIENCY}</b>, with no fencing token. {@code WAIT} makes a
 * grant survive the primary's crash when the Sentinels promote a replica that acknowledged it; it
 * is not consensus. A failover before {@code WAIT} returned, or to a replica that had not
 * acknowledged, still loses the lock and can give two holders at once, as can a holder paused past
 * its lease. The acquire script's counter goes back in the same failovers, so it is not offered as
 * a fencing token.
 *
 * <p>Options: {@code replicas} (1..64, default 1), {@code waitTimeout} (ms, 1..60000, default 50;
 * every lease must be longer: a shorter one is refused with an {@link IllegalArgumentException} at
 * acquire and extend), {@code master}, {@code poolSize} (connections per client, 1..64, default 8),
 * {@code clientName}. Timeouts come from {@link LockOptions}; each reply that carries a
 * {@code WAIT} may take the operation timeout plus {@code waitTimeout}. Instantiating this class
 * does no I/O.
 *
 * <p><b>TLS and credentials.</b> {@code tls=true} turns TLS on, with the TLS store options every
 * backend takes ({@code trustStore}, {@code trustStoreType}, {@code trustStorePassword},
 * {@code keyStore}, {@code keyStoreType}, {@code keyStorePassword}; without {@code tls=true} they are
 * an {@link IllegalArgumentException}); the server's host name is always verified. Credentials come
 * from the URI's user info or from {@link LockOptions#credentials()} (never both), read again at
 * every new connection so that a rotated password is picked up. In the Sentinel form the Sentinels
 * are asked over TLS too, with the same stores, and without credentials.
 */
public final class RedisWaitBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("redis-wait", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION, Feature.WAIT_NOTIFICATION,
                    Feature.INSPECTION, Feature.REVOCATION, Feature.READ_WRITE, Feature.SEMAPHORE));

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public RedisWaitBackend() {
        super(DESCRIPTOR);
    }

    /**
     * Connects to the primary (the named one, or the one the Sentinels report that answers
     * {@code ROLE master}) and checks that it has at least {@code replicas} replicas connected.
     *
     * @throws IllegalArgumentException                 if the URI is malformed or an option is out of range;
     *                                                  if the primary reports fewer connected replicas than
     *                                                  {@code replicas}; if the named node is a replica or a
     *                                                  Sentinel; if every Sentinel answers that it does not know
     *                                                  {@code master} (no message shows the password)
     * @throws io.distlock.BackendUnavailableException if the primary, or every Sentinel, cannot be reached, or
     *                                                  no Sentinel reports a node that answers as primary, within
     *                                                  {@link LockOptions#connectTimeout()} (naming the endpoints)
     * @throws io.distlock.AuthenticationException   if the primary (or every Sentinel) refuses the credentials, or the TLS handshake fails
     *                                                  (certificate not trusted or naming another host)
     * @throws io.distlock.LockException                if the primary refuses the credentials
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        return RedisWaitDrivers.connect(RedisWaitSettings.parse(uri, options), options, context);
    }
}
