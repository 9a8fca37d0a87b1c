package io.distlock.etcd;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.etcd.internal.EtcdEndpoint;
import io.distlock.etcd.internal.EtcdLockDriver;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * The etcd backend, for {@code etcd://[user:password@]host:port[,host:port...][/prefix][?sessionTtl=s][&tls=true...]}
 * (port 2379 by default; locks live under {@code /prefix}, {@code /distlock} if none is given; user
 * and password select etcd authentication, or {@link LockOptions#credentials()} does, never both;
 * {@code sessionTtl} is the TTL of the client's session lease in whole seconds, 10 by default, and
 * at least the server's minimum; {@code tls=true} speaks TLS to every member, with the trust and
 * key store options of {@link io.distlock.spi.TlsSettings}).
 *
 * <p>Each client keeps one etcd lease alive as its session. A request for a lock is a key under
 * the lock's directory, bound to that lease, written in one transaction that also reads the lock's
 * first key: the key with the lowest create revision holds the lock, each waiter watches only the
 * key just before its own, waiters are served in the order they arrived. Lock names are
 * percent-encoded into keys, never refused.
 *
 * <p><b>Read-write locks and semaphores</b> ({@link Feature#READ_WRITE}, {@link Feature#SEMAPHORE})
 * are lines of the same kind, in directories of their own: a reader is let in while no writer's key
 * is ahead of its own, a writer when its key is first, a permit while fewer than the count's keys
 * are ahead of its own; a waiting writer's key is ahead of every later reader's (write preference).
 * The permit count is part of each permit key: a request with another count than a live key
 * ahead of it is refused ({@link io.distlock.PermitCountMismatchException}). Tokens are create
 * revisions, one sequence for readers and writers.
 *
 * <p><b>Guarantee: {@link Guarantee#CORRECTNESS}</b> with {@link Feature#FENCING_TOKENS}: the fencing
 * token is the lock key's create revision, the cluster-wide revision of the write that created it,
 * which only grows (Raft-replicated, it survives a leader change and a member restart).
 *
 * <p><b>Lease time on a session store.</b> {@code leaseTime} is the longest a lease may be held
 * without {@code extend}, as on every backend: at the end of the lease's validity the engine deletes
 * the key (etcd lease TTLs are whole seconds with a server minimum, too coarse for a lease time).
 * The lease also ends with the session: if the holding process crashes or stops, its session lease
 * expires after {@code sessionTtl} and the server deletes every key bound to it. {@code remaining()}
 * never over-promises: no lease is valid past the last answered keep-alive plus the session TTL,
 * none is valid while a keep-alive goes unanswered, and when the server says the session lease is
 * gone (expired, or revoked by an operator), {@code lost()} completes with {@code BACKEND_LOST}.
 *
 * <p><b>Inspection and revocation.</b> A request key's value holds its owner token, the client's
 * owner description and the holder's clock when it was written; an inspection is one read-only
 * transaction (the line's first key and its length). A revoke is one transaction that deletes the
 * holder's key if it still has the create revision read and puts a record with the reason under
 * {@code <prefix>/revoked/}, bound to a lease nobody keeps alive; each client watches that prefix
 * from its first grant, and a renewal that finds a key gone reads its record: {@code lost()}
 * completes with {@code REVOKED}. Who may revoke is etcd RBAC's: write on the records' prefix.
 *
 * <p>Instantiating this class does no I/O; {@link #connect} grants the session lease within
 * {@link LockOptions#connectTimeout()} and checks that the client may read and write under its prefix.
 */
public final class EtcdLockBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("etcd", Guarantee.CORRECTNESS,
            EnumSet.of(Feature.FENCING_TOKENS, Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION,
                    Feature.WAIT_NOTIFICATION, Feature.FIFO_WAITERS, Feature.QUORUM, Feature.INSPECTION, Feature.REVOCATION,
                    Feature.READ_WRITE, Feature.SEMAPHORE));

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public EtcdLockBackend() {
        super(DESCRIPTOR);
    }

    /**
     * @throws IllegalArgumentException                 if the URI is malformed (the message never shows a
     *                                                  password), a TLS store cannot be read, credentials
     *                                                  are given both in the URI and in the options or
     *                                                  name no user, or {@code sessionTtl} is below the
     *                                                  server's minimum lease TTL
     * @throws io.distlock.BackendUnavailableException if no member answers within
     *                                                  {@link LockOptions#connectTimeout()} (the message names the members)
     * @throws io.distlock.AuthenticationException     if the server refuses the credentials (or none were
     *                                                  given where auth is on), or the TLS handshake fails
     * @throws io.distlock.AccessDeniedException       if the user may not read and write under its prefix
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        return EtcdLockDriver.connect(EtcdEndpoint.parse(uri), options, context);
    }
}
