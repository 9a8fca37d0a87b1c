package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One client's ZooKeeper session, kept connected by Curator: connecting within the connect
 * timeout, the chroot check, waiting for a reconnect after a server went away, and the few
 * requests that are not the lock recipe's (parents, deletes).
 */
final class ZkSession {

    private final CuratorFramework curator;
    private final ZkEndpoint endpoint;
    private final ZkCalls calls;
    private final Duration operationTimeout;
    private final List<ACL> acl;
    private volatile boolean closed;

    private ZkSession(CuratorFramework curator, ZkEndpoint endpoint, Duration operationTimeout) {
        this.curator = curator;
        this.endpoint = endpoint;
        this.calls = new ZkCalls(endpoint.toString(), operationTimeout);
        this.operationTimeout = operationTimeout;
        this.acl = endpoint.authenticated() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }

    /**
     * Connects, waits for the session within the connect timeout, and checks that this client can
     * list the chroot (creating the chroot if it is missing).
     *
     * @param onState told of every connection state change, on Curator's event thread
     * @throws BackendUnavailableException if no server of the ensemble answers within the connect timeout
     * @throws io.distlock.LockException    if the chroot cannot be read or created (no permission)
     */
    static ZkSession open(ZkEndpoint endpoint, LockOptions options, Consumer<ConnectionState> onState) {
        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
        int connectMillis = (int) options.connectTimeout().toMillis();
        // ZooKeeper's synchronous calls wait for their reply until the connection gives up on the
        // server: the whole session timeout while still connecting, 2/3 of it after. This driver
        // makes two kinds, deletes (see delete) and the closeSession that close() sends: bound
        // them by the operation timeout, so that neither a release nor closing a client cut off
        // from its server hangs for seconds.
        ZKClientConfig clientConfig = new ZKClientConfig();
        clientConfig.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT, Long.toString(options.operationTimeout().toMillis()));
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .zkClientConfig(clientConfig)
                .connectString(endpoint.connectString())
                .sessionTimeoutMs(endpoint.sessionTimeoutMillis(10_000))
                .connectionTimeoutMs(connectMillis)
                .retryPolicy(new RetryOneTime(50))
                // The tracker follows the ensemble's dynamic config and, when a config event
                // arrives, closes the socket to switch connect strings: a needless SUSPENDED,
                // which makes every lease invalid for a moment. The URI's hosts stand.
                .ensembleTracker(false);
        if (endpoint.authenticated()) {
            builder.authorization("digest", endpoint.digestCredentials());
        }
        CuratorFramework curator = builder.build();
        ZkSession session = new ZkSession(curator, endpoint, options.operationTimeout());
        curator.getConnectionStateListenable().addListener((client, state) -> onState.accept(state));
        curator.start();
        try {
            if (!curator.blockUntilConnected(connectMillis, TimeUnit.MILLISECONDS)) {
                throw new BackendUnavailableException(endpoint.toString(), "no server of the ZooKeeper ensemble "
                        + endpoint + " answered within the connect timeout of " + connectMillis + " ms", null);
            }
            while (true) {
                try {
                    session.checkChroot();
                    return session;
                } catch (BackendUnavailableException e) {
                    // The server we reached dropped us (it is syncing with a new leader): the
                    // client moves to another; keep trying within the connect timeout.
                    if (System.nanoTime() - deadline > 0) {
                        throw e;
                    }
                    curator.blockUntilConnected((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeInBackground(curator);
            throw new BackendUnavailableException(endpoint.toString(), "interrupted while connecting to " + endpoint, e);
        } catch (RuntimeException e) {
            closeInBackground(curator);
            throw e;
        }
    }

    /**
     * Closes a client that never got a session, off the caller's thread: ZooKeeper still sends
     * its closeSession and waits for the request timeout (a server that accepts connections and
     * never answers does not fail it sooner), while the caller was promised an answer within the
     * connect timeout.
     */
    private static void closeInBackground(CuratorFramework curator) {
        Thread closer = new Thread(curator::close, "distlock-zookeeper-close");
        closer.setDaemon(true);
        closer.start();
    }

    ZkCalls calls() {
        return calls;
    }

    List<ACL> acl() {
        return acl;
    }

    Duration operationTimeout() {
        return operationTimeout;
    }

    ZooKeeper zk() {
        if (closed) {
            throw new IllegalStateException("the ZooKeeper session to " + endpoint + " is closed");
        }
        try {
            return curator.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new BackendUnavailableException(endpoint.toString(), "no ZooKeeper session to " + endpoint + ": " + e, e);
        }
    }

    /** @return true while Curator has a connection to a server (not SUSPENDED or LOST) */
    boolean connected() {
        return !closed && curator.getZookeeperClient().isConnected();
    }

    /** Waits until Curator has a connection again, within the deadline; otherwise reports {@code cause}. */
    void awaitReconnect(long deadline, KeeperException cause, String what) {
        if (closed) {
            throw calls.translate(cause, what);
        }
        try {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !curator.blockUntilConnected((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)), TimeUnit.MILLISECONDS)) {
                throw calls.translate(cause, what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw calls.translate(cause, what);
        }
    }

    /** Creates {@code dir} and its ancestors as container nodes, which the server removes once empty. */
    void createParents(String dir) throws KeeperException {
        int from = 1;
        while (from > 0) {
            int slash = dir.indexOf('/', from);
            String path = slash < 0 ? dir : dir.substring(0, slash);
            CompletableFuture<String> future = new CompletableFuture<>();
            zk().create(path, new byte[0], acl, CreateMode.CONTAINER,
                    (rc, p, ctx, name) -> ZkCalls.complete(future, rc == KeeperException.Code.NODEEXISTS.intValue() ? 0 : rc, p, p),
                    null);
            calls.await(future, "create " + path);
            from = slash < 0 ? -1 : slash + 1;
        }
    }

    /**
     * Deletes a node this client created, once: true if it was deleted, false if it was gone
     * already — either way the server confirmed it is not there. A connection problem is thrown
     * as it is: the caller (the engine's cleanup, or an acquire's reconnect loop) tries again.
     *
     * <p>ZooKeeper's synchronous call, unlike its asynchronous ones, is woken by the client's
     * I/O thread itself instead of through its event thread: one thread hop fewer on every
     * release (a profile of uncontended acquire+release put distlock's release 4–7 % behind
     * Curator's synchronous delete for that hop alone). It is bounded by the request timeout
     * (the operation timeout), after which ZooKeeper reconnects. An interrupted thread asks
     * asynchronously instead: the synchronous call gives up on an interrupt, this driver must
     * not (a delete can be sent twice).
     */
    boolean delete(String path, String what) throws KeeperException {
        if (!Thread.currentThread().isInterrupted()) {
            try {
                zk().delete(path, -1);
                return true;
            } catch (KeeperException.NoNodeException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // kept for the caller; asked again below, as a delete can be
            }
        }
        CompletableFuture<Boolean> deleted = new CompletableFuture<>();
        zk().delete(path, -1, (rc, p, ctx) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                deleted.complete(false);
            } else {
                ZkCalls.complete(deleted, rc, p, true);
            }
        }, null);
        return calls.await(deleted, what);
    }

    /**
     * Makes sure the chroot exists (creating it if missing) and can be listed: one read, served by
     * the server the client is connected to, so connecting costs no write beyond the session's own.
     * A chroot where this client may not create or delete is reported by the first acquire, as a
     * {@link io.distlock.LockException} naming the path.
     */
    private void checkChroot() {
        try {
            for (int round = 0; ; round++) {
                CompletableFuture<Boolean> listed = new CompletableFuture<>();
                zk().getChildren(endpoint.chroot(), false, (rc, p, ctx, children) -> ZkCalls.complete(listed, rc, p, true), null);
                try {
                    calls.await(listed, "list the chroot " + endpoint.chroot());
                    return;
                } catch (KeeperException.NoNodeException e) {
                    if (round > 0) {
                        throw e;
                    }
                    createParents(endpoint.chroot());
                }
            }
        } catch (KeeperException e) {
            throw calls.translate(e, "use the chroot " + endpoint.chroot());
        }
    }

    void close() {
        closed = true;
        curator.close(); // closing the session deletes whatever ephemeral node is left
    }
}
