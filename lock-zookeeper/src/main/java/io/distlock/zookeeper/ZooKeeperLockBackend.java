package io.distlock.zookeeper;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.spi.AbstractLockBackend;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockDriver;
import io.distlock.zookeeper.internal.ZkEndpoint;
import io.distlock.zookeeper.internal.ZkLockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * The ZooKeeper backend, for
 * {@code zookeeper://[user:password@]host:port[,host:port...][/chroot][?sessionTimeout=ms][&tls=true&trustStore=...]}
 * (port 2181 by default; locks live under {@code /chroot}, {@code /distlock} if none is given;
 * {@code sessionTimeout} defaults to 10 s).
 *
 * <p><b>Security.</b> A user and password, in the URI or in {@link LockOptions#credentials()} (never
 * both; a supplier is read again for every new session), select ZooKeeper digest authentication:
 * every node the client creates then gives ALL to its digest identity and READ to the world, so all
 * clients of one lock must connect as the same principal. Without credentials nodes are
 * {@code OPEN_ACL_UNSAFE}. {@code tls=true} (with the {@link io.distlock.spi.TlsSettings} options)
 * connects over TLS with a client config of its own and host-name verification.
 *
 * <p>A lock is a directory (a container node) of ephemeral-sequential nodes, one per request: the
 * lowest sequence holds the lock, each waiter watches only its predecessor, waiters are served in
 * the order they arrived. Lock names are percent-encoded into znode names, never refused.
 *
 * <p><b>Guarantee: {@link Guarantee#CORRECTNESS}</b> with {@link Feature#FENCING_TOKENS}: the fencing
 * token is the lock node's {@code czxid}, the ensemble-wide transaction id of its creation, which
 * only grows (it survives the directory being removed and recreated, and a leader change).
 *
 * <p><b>Lease time on a session store.</b> {@code leaseTime} is the longest a lease may be held
 * without {@code extend}, as on every backend: at the end of the lease's validity the engine deletes
 * the node (ZooKeeper has no TTL for ephemeral nodes). The lease also ends with the session: if the
 * holding process crashes or stops, its session expires after {@code sessionTimeout} and the server
 * deletes the node. {@code remaining()} never over-promises: while the connection is
 * {@code SUSPENDED} no lease of the client is valid ({@code remaining()} is zero) until it is
 * {@code RECONNECTED} with the same session; when the session is {@code LOST}, {@code lost()}
 * completes with {@code BACKEND_LOST}. A process paused as a whole (its engine too) past its lease
 * keeps its node until its session expires; it is fenced off by its token meanwhile. (Contenders
 * do not reap by the node's {@code mtime}: that is the leader's wall clock, which may jump.)
 *
 * <p><b>Inspection and revocation.</b> A lock node holds its client's owner description; an
 * inspection reads a lock's line and its first node (two round trips): owner, token, when granted
 * (the node's {@code ctime}, or its {@code mtime} for a holder that waited: the leader's clock),
 * the number of waiters. A revoke is one {@code multi} that deletes the holder's node and writes a
 * record with the reason under {@code <chroot>/.revoked}; the holder's client watches its node and
 * reads the record when it goes ({@code lost()} completes with {@code REVOKED}), and a renewal that
 * finds the node gone reads it too. With credentials only a principal with CREATE on
 * {@code .revoked} (created by an operator) and DELETE on the lock directories (inherited from the
 * chroot's ACL) may revoke.
 *
 * <p><b>Read-write locks and semaphores</b> ({@link Feature#READ_WRITE}, {@link Feature#SEMAPHORE})
 * are lines of their own, under {@code <chroot>/.rw/} and {@code <chroot>/.semaphore/} (no lock name
 * encodes to a name that starts with {@code .}): a read-write lock's readers and writers queue in one
 * line — a reader is let in while no writer is ahead of it (write preference: a waiting writer holds
 * back the readers that came after it), a writer when it is first; a semaphore's permits queue in
 * one line whose nodes carry the permit count in their names — a permit of {@code n} is let in
 * among the first {@code n}, and a node ahead with another count refuses the request
 * ({@link io.distlock.PermitCountMismatchException}). Every hold is an ephemeral node with a lease,
 * as a lock's; its fencing token is the id of the transaction that let it in (one order for a
 * read-write lock's readers and writers).
 *
 * <p>Instantiating this class does no I/O; {@link #connect} connects, waits for the session within
 * {@link LockOptions#connectTimeout()}, and lists the chroot (creating it if missing); a chroot
 * where the client may not create nodes fails the first acquire with an {@link io.distlock.AccessDeniedException}.
 */
public final class ZooKeeperLockBackend extends AbstractLockBackend {

    private static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("zookeeper", Guarantee.CORRECTNESS,
            EnumSet.of(Feature.FENCING_TOKENS, Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION,
                    Feature.WAIT_NOTIFICATION, Feature.FIFO_WAITERS, Feature.QUORUM, Feature.INSPECTION, Feature.REVOCATION,
                    Feature.READ_WRITE, Feature.SEMAPHORE));

    /** Creates the provider; cheap, no I/O (called by {@link java.util.ServiceLoader}). */
    public ZooKeeperLockBackend() {
        super(DESCRIPTOR);
    }

    /**
     * @throws IllegalArgumentException                 if the URI is malformed, a TLS store cannot be read, or
     *                                                  credentials are given twice or lack a user name (the
     *                                                  message never shows a password)
     * @throws io.distlock.BackendUnavailableException if no server of the ensemble answers within
     *                                                  {@link LockOptions#connectTimeout()} (the message names the hosts)
     * @throws io.distlock.AuthenticationException     if the TLS handshake is refused (either way), the server
     *                                                  refuses the authentication, or the chroot's ACL shows the
     *                                                  password to be wrong
     * @throws io.distlock.AccessDeniedException       if the chroot cannot be read or created (no permission)
     */
    @Override
    protected LockDriver open(URI uri, LockOptions options, DriverContext context) {
        return ZkLockDriver.connect(ZkEndpoint.parse(uri), options, context);
    }
}
