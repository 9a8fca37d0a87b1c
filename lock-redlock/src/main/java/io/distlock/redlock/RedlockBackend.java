package io.distlock.redlock;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.redlock.internal.RedlockDriver;
import io.distlock.redlock.internal.RedlockSettings;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * The Redlock backend, for
 * {@code redlock://[user:password@]host1:port1,host2:port2,host3:port3[/db][?option=value&...]}:
 * N independent Redis servers (not replicas of each other, not a cluster), typically 3 or 5; a
 * lease is held when a quorum of {@code N/2 + 1} took it and validity is left.
 *
 * <p>Every operation is sent to all nodes at once and each node's answer is awaited at most the
 * per-node timeout. A lease's validity is {@code ttl − elapsed − drift} (drift from
 * {@link LockOptions#clockDrift}: {@code ttl × 0.01 + 2 ms} by default). A failed attempt releases
 * on every node that may hold it. Extension succeeds only on a quorum; release is an atomic
 * compare-and-delete on every node.
 *
 * <p><b>Guarantee: {@link Guarantee#EFFICIENCY}</b>, with no fencing token. A holder paused past
 * its lease, a node's clock jumping ahead, or a node restarting without persistence can each give
 * two holders at once (the last is closed by the {@code restartDelay} option).
 *
 * <p>Options (all in the query, shared by every node): {@code nodeTimeout} ms per node and
 * operation (1..60000, default 50), {@code restartDelay} ms a (re)started node stays out of votes
 * (0..86400000, default 0 = off; set it to at least your longest lease), {@code poolSize}
 * connections per node (1..64, default 8), {@code clientName}. Refused with an
 * {@link IllegalArgumentException}: fewer than 3 or more than 15 nodes, a node listed twice, and
 * (per call) a lease time shorter than twice {@code nodeTimeout}. Instantiating this class does no
 * I/O.
 *
 * <p><b>TLS and credentials.</b> {@code tls=true} turns TLS on, with the TLS store options every
 * backend takes ({@code trustStore}, {@code trustStoreType}, {@code trustStorePassword},
 * {@code keyStore}, {@code keyStoreType}, {@code keyStorePassword}; without {@code tls=true} they are
 * an {@link IllegalArgumentException}); the server's host name is always verified. Credentials come
 * from the URI's user info or from {@link LockOptions#credentials()} (never both), read again at
 * every new connection so that a rotated password is picked up. The same TLS settings and
 * credentials apply to every node.
 */
public final class RedlockBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("redlock", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION, Feature.QUORUM,
                    Feature.INSPECTION, Feature.REVOCATION));

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public RedlockBackend() {
        super(DESCRIPTOR);
    }

    /**
     * @throws IllegalArgumentException                 if the URI is malformed or breaks a rule above, or two
     *                                                  nodes turn out to be one server, or a node is a replica
     *                                                  (no message shows the password)
     * @throws io.distlock.BackendUnavailableException if fewer than a quorum of nodes answer within
     *                                                  {@link LockOptions#connectTimeout()}
     * @throws io.distlock.AuthenticationException   if a node refuses the credentials, or the TLS handshake fails
     *                                                  (certificate not trusted or naming another host)
     * @throws io.distlock.LockException                if a node refuses the credentials
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        return RedlockDriver.connect(RedlockSettings.parse(uri, options), options, context);
    }
}
