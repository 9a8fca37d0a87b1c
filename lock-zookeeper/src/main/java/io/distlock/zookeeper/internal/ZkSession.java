package io.distlock.zookeeper.internal;

import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.LockOptions;
import io.distlock.spi.UserInfo;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

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
    private final Principal principal;
    /**
     * The chroot's ACL entries a lock directory this client creates carries besides its own (an
     * operator's right to revoke: DELETE there), as the chroot showed them at connect; empty without
     * credentials (every node is open then) or if the chroot hid them (no ADMIN there).
     */
    private volatile List<ACL> inherited = List.of();
    private volatile boolean closed;
    /** The longest {@link #close()} waits for the session's end: a server that answers at all answers in milliseconds. */
    static final Duration CLOSE_WAIT = Duration.ofMillis(500);

    private ZkSession(CuratorFramework curator, ZkEndpoint endpoint, Duration operationTimeout, Principal principal) {
        this.curator = curator;
        this.endpoint = endpoint;
        this.principal = principal;
        this.calls = new ZkCalls(endpoint.toString(), operationTimeout, principal::describe);
        this.operationTimeout = operationTimeout;
    }

    /**
     * Who the current ZooKeeper handle authenticated as. Credentials from the options' supplier are
     * read again for every new handle (a new session after an expiry), so rotated secrets are
     * picked up; the URI's are fixed.
     */
    private static final class Principal {
        private final ZkEndpoint endpoint;
        private final LockOptions options;
        /** The identity of the next handle, read at connect; null once used. */
        private final AtomicReference<Optional<ZkIdentity>> first;
        private volatile ZkIdentity current;

        Principal(ZkEndpoint endpoint, LockOptions options) {
            this.endpoint = endpoint;
            this.options = options;
            Optional<Credentials> credentials = UserInfo.either(endpoint.credentials(), options, endpoint.toString());
            this.first = new AtomicReference<>(credentials.map(c -> ZkIdentity.of(
                    ZkEndpoint.digestCredentials(c, " (" + endpoint + ")"))));
            this.current = first.get().orElse(null);
        }

        /** @return the identity a new handle presents: the one read at connect first, then the supplier's again */
        ZkIdentity next() {
            Optional<ZkIdentity> once = first.getAndSet(null);
            ZkIdentity identity;
            if (once != null) {
                identity = once.orElse(null);
            } else {
                identity = endpoint.credentials().or(options::credentials)
                        .map(c -> ZkIdentity.of(ZkEndpoint.digestCredentials(c, " (" + endpoint + ")"))).orElse(null);
            }
            current = identity;
            return identity;
        }

        ZkIdentity current() {
            return current;
        }

        List<ACL> acl() {
            ZkIdentity identity = current;
            return identity == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE : identity.acl();
        }

        String describe() {
            ZkIdentity identity = current;
            return identity == null ? "an unauthenticated client (world:anyone)" : identity.toString();
        }
    }

    /**
     * Connects, waits for the session within the connect timeout, and checks that this client can
     * list the chroot (creating the chroot if it is missing) and, with credentials, that the
     * chroot's ACL does not name this user with another password.
     *
     * @param onState told of every connection state change, on Curator's event thread
     * @param onSessionEnded told the id of every session that ended — expired on the server, or its
     *                       handle closed (Curator replaces a handle whose session it gave up on) —
     *                       on that handle's event thread, after every answer the session got
     * @throws IllegalArgumentException    if credentials are given in the URI and the options, or lack a user name
     * @throws BackendUnavailableException if no server of the ensemble answers within the connect timeout
     * @throws AuthenticationException     if the TLS handshake or the authentication is refused, or the
     *                                     chroot's ACL shows that the password is wrong
     * @throws io.distlock.LockException    if the chroot cannot be read or created (no permission)
     */
    static ZkSession open(ZkEndpoint endpoint, LockOptions options, Consumer<ConnectionState> onState,
                          LongConsumer onSessionEnded) {
        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
        int connectMillis = (int) options.connectTimeout().toMillis();
        Principal principal = new Principal(endpoint, options);
        ZkTls tls = endpoint.tls().map(ZkTls::new).orElse(null);
        CompletableFuture<AuthenticationException> refused = new CompletableFuture<>();
        ZookeeperFactory factory = new ZookeeperFactory() {
            @Override
            public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
                    throws Exception {
                // A client config of its own, never JVM system properties: clients of one JVM may
                // differ, and the URI alone says whether and how to use TLS. ZooKeeper's synchronous calls wait for their reply until the connection
                // gives up on the server: the whole session timeout while still connecting, 2/3 of
                // it after. This driver makes two kinds, deletes (see delete) and the closeSession
                // that close() sends: bound them by the operation timeout, so that neither a
                // release nor closing a client cut off from its server hangs for seconds.
                ZKClientConfig config = new ZkClientConfig();
                config.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT, Long.toString(options.operationTimeout().toMillis()));
                if (tls != null) {
                    tls.configure(config);
                }
                ZkIdentity identity = principal.next();
                // Events may come before the constructor returns (its last step starts the client).
                CompletableFuture<ZooKeeper> handle = new CompletableFuture<>();
                AtomicBoolean authSent = new AtomicBoolean(identity == null);
                Watcher watching = event -> {
                    Watcher.Event.KeeperState state = event.getState();
                    if (state == Watcher.Event.KeeperState.SyncConnected && !authSent.getAndSet(true)) {
                        // The digest goes out once the session exists, not with the connect request:
                        // ZooKeeper's Netty server (the one TLS needs) answers an auth packet that
                        // arrives in the same read as the connect request before the connect
                        // itself; the client takes that answer for the connect response, drops
                        // the connection and retries after up to a second, often twice (measured:
                        // one TLS connect in three took 1-3 s). Queued here, on the event thread
                        // before Curator hears of the connection, it still precedes every request
                        // of this client; on a reconnect ZooKeeper sends it again itself.
                        handle.join().addAuthInfo("digest", identity.auth());
                    }
                    if (state == Watcher.Event.KeeperState.AuthFailed) {
                        refused.complete(new AuthenticationException(endpoint.toString(), "ZooKeeper at " + endpoint
                                + " refused to authenticate " + principal.describe() + " (AuthFailed)", null));
                    }
                    ZooKeeper ended = handle.getNow(null);
                    if ((state == Watcher.Event.KeeperState.Expired || state == Watcher.Event.KeeperState.Closed)
                            && ended != null && ended.getSessionId() != 0) {
                        // A handle has one session for its life: once it expired or the handle closed,
                        // nothing it created lives on. This event comes after every answer the session
                        // got (one event thread per handle), so a grant it answered is already decided.
                        onSessionEnded.accept(ended.getSessionId());
                    }
                    watcher.process(event);
                };
                // A frozen member costs each connect at most a quarter of the connect timeout (see ZkHosts).
                ZooKeeper zk = new ZooKeeper(connectString, sessionTimeout, watching, canBeReadOnly,
                        new ZkHosts(connectString, sessionTimeout, options.connectTimeout()), config);
                handle.complete(zk);
                return zk;
            }

            @Override
            public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
                                          ZKClientConfig ignored) throws Exception {
                return newZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly);
            }
        };
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .zookeeperFactory(factory)
                .connectString(endpoint.connectString())
                .sessionTimeoutMs(endpoint.sessionTimeoutMillis(10_000))
                .connectionTimeoutMs(connectMillis)
                .retryPolicy(new RetryOneTime(50))
                // The tracker follows the ensemble's dynamic config and, when a config event
                // arrives, closes the socket to switch connect strings: a needless SUSPENDED,
                // which makes every lease invalid for a moment. The URI's hosts stand.
                .ensembleTracker(false)
                .build();
        ZkSession session = new ZkSession(curator, endpoint, options.operationTimeout(), principal);
        CompletableFuture<Void> connected = new CompletableFuture<>();
        curator.getConnectionStateListenable().addListener((client, state) -> {
            if (state.isConnected()) {
                connected.complete(null);
            }
            onState.accept(state);
        });
        ZkTls.Probe probe = tls == null ? null : tls.probe(List.of(endpoint.connectString().split(",")), endpoint.toString(), deadline);
        if (probe != null) {
            probe.refused.thenAccept(refused::complete);
        }
        curator.start();
        try {
            awaitConnected(endpoint, connected, refused, deadline, connectMillis);
            if (probe != null) {
                // The client connected; the probe's handshake, with host-name verification, must agree.
                AuthenticationException handshake = probe.handshake.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (handshake != null) {
                    throw handshake;
                }
                probe.close();
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
            closeInBackground(curator, probe);
            throw new BackendUnavailableException(endpoint.toString(), "interrupted while connecting to " + endpoint, e);
        } catch (TimeoutException e) {
            closeInBackground(curator, probe);
            throw new BackendUnavailableException(endpoint.toString(), "no server of the ZooKeeper ensemble "
                    + endpoint + " finished the TLS handshake within the connect timeout of " + connectMillis + " ms", e);
        } catch (ExecutionException e) {
            closeInBackground(curator, probe);
            throw new IllegalStateException("the TLS probe of " + endpoint + " failed", e.getCause());
        } catch (RuntimeException e) {
            closeInBackground(curator, probe);
            throw e;
        }
    }

    /** Waits for the first connection, or a refusal (TLS handshake, authentication), within the deadline. */
    private static void awaitConnected(ZkEndpoint endpoint, CompletableFuture<Void> connected,
                                       CompletableFuture<AuthenticationException> refused, long deadline, int connectMillis)
            throws InterruptedException {
        try {
            CompletableFuture.anyOf(connected, refused).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new BackendUnavailableException(endpoint.toString(), "no server of the ZooKeeper ensemble "
                    + endpoint + " answered within the connect timeout of " + connectMillis + " ms", null);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        AuthenticationException refusal = refused.getNow(null);
        if (refusal != null && !connected.isDone()) {
            throw refusal;
        }
    }

    /**
     * Closes a client that never got a session, off the caller's thread: ZooKeeper still sends
     * its closeSession and waits for the request timeout (a server that accepts connections and
     * never answers does not fail it sooner), while the caller was promised an answer within the
     * connect timeout.
     */
    private static Thread closeInBackground(CuratorFramework curator, ZkTls.Probe probe) {
        if (probe != null) {
            probe.close();
        }
        Thread closer = new Thread(curator::close, "distlock-zookeeper-close");
        closer.setDaemon(true);
        closer.start();
        return closer;
    }

    ZkCalls calls() {
        return calls;
    }

    /** @return the ACL of every node this client creates: ALL to its digest identity and READ to the world, or open without credentials */
    List<ACL> acl() {
        return principal.acl();
    }

    /**
     * @return the ACL of a lock directory this client creates: its own ({@link #acl()}) and every
     *         entry of the chroot's ACL for another identity (not the world's), so that an operator
     *         the chroot admits may delete a holder's node there (revoke)
     */
    List<ACL> lockDirAcl() {
        List<ACL> acl = new ArrayList<>(acl());
        for (ACL entry : inherited) {
            if (acl.stream().noneMatch(own -> own.getId().equals(entry.getId()))) {
                acl.add(entry);
            }
        }
        return acl;
    }

    /** @return who this client is to the server, for messages: {@code user 'x' (digest)}; never a password */
    String principal() {
        return principal.describe();
    }

    /** @return true if this client presents credentials (its nodes are not open to the world) */
    boolean authenticated() {
        return principal.current() != null;
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

    /**
     * Waits until Curator has a connection again, within the deadline; otherwise reports {@code cause},
     * or, without one (nothing was sent yet), that the connection did not come back in time.
     */
    void awaitReconnect(long deadline, KeeperException cause, String what) {
        if (closed) {
            throw giveUp(cause, what);
        }
        try {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !curator.blockUntilConnected((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)), TimeUnit.MILLISECONDS)) {
                throw giveUp(cause, what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw giveUp(cause, what);
        }
    }

    private RuntimeException giveUp(KeeperException cause, String what) {
        if (cause != null) {
            return calls.translate(cause, what);
        }
        return new BackendUnavailableException(endpoint.toString(), "ZooKeeper at " + endpoint + ": not connected, so"
                + " could not " + what + "; the connection did not come back within the wait", null);
    }

    /**
     * Creates {@code dir} and its ancestors as container nodes, which the server removes once empty;
     * a lock directory (below the chroot) with {@link #lockDirAcl()}.
     */
    void createParents(String dir) throws KeeperException {
        int from = 1;
        while (from > 0) {
            int slash = dir.indexOf('/', from);
            String path = slash < 0 ? dir : dir.substring(0, slash);
            CompletableFuture<String> future = new CompletableFuture<>();
            List<ACL> acl = path.length() > endpoint.chroot().length() ? lockDirAcl() : acl();
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
        try {
            return deleteOnce(path, what);
        } catch (KeeperException.NoAuthException e) {
            // ZooKeeper checks the right to delete before whether the node is there: a node that went
            // with an expired session is refused to a client whose identity changed since (rotated
            // credentials, a new session). Gone is gone; a node that is still there stays refused.
            CompletableFuture<Boolean> exists = new CompletableFuture<>();
            zk().exists(path, false, (rc, p, ctx, stat) -> ZkCalls.complete(exists,
                    rc == KeeperException.Code.NONODE.intValue() ? 0 : rc, p, stat != null), null);
            if (!calls.await(exists, what)) {
                return false;
            }
            throw e;
        }
    }

    private boolean deleteOnce(String path, String what) throws KeeperException {
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
     * A chroot where this client may not create or delete is reported by the first acquire, as an
     * {@link io.distlock.AccessDeniedException} naming the path.
     *
     * <p>With credentials, also one read of the chroot's ACL: a digest password that is wrong is not
     * refused by ZooKeeper (it is merely another identity), but an ACL that names this user with
     * another digest tells it.
     */
    private void checkChroot() {
        try {
            for (int round = 0; ; round++) {
                CompletableFuture<Boolean> listed = new CompletableFuture<>();
                zk().getChildren(endpoint.chroot(), false, (rc, p, ctx, children) -> ZkCalls.complete(listed, rc, p, true), null);
                try {
                    calls.await(listed, "list the chroot " + endpoint.chroot());
                    checkPassword();
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

    private void checkPassword() throws KeeperException {
        ZkIdentity identity = principal.current();
        if (identity == null) {
            return;
        }
        CompletableFuture<List<ACL>> read = new CompletableFuture<>();
        zk().getACL(endpoint.chroot(), null, (rc, p, ctx, acl, stat) -> ZkCalls.complete(read, rc, p, acl), null);
        List<ACL> acl = calls.await(read, "read the ACL of the chroot " + endpoint.chroot());
        if (identity.refutedBy(acl)) {
            throw new AuthenticationException(endpoint.toString(), "ZooKeeper at " + endpoint + ": wrong password for user '"
                    + identity.user() + "' (the ACL of " + endpoint.chroot() + " names this user with another digest)", null);
        }
        List<ACL> others = new ArrayList<>();
        for (ACL entry : acl) {
            // The world keeps READ only (acl()); a digest shown as user:x (this session has no ADMIN on
            // the chroot) is no identity anyone has.
            boolean hidden = "digest".equals(entry.getId().getScheme()) && entry.getId().getId().endsWith(":x");
            if (!"world".equals(entry.getId().getScheme()) && !hidden) {
                others.add(entry);
            }
        }
        inherited = List.copyOf(others);
    }

    /**
     * Ends the session, which deletes whatever ephemeral node is left, waiting for it at most
     * {@link #CLOSE_WAIT}: the engine's closing batch has had its operation timeout already, and
     * {@code LockClient.close()} promises no more than a second on top of it. A server that does not
     * answer the closeSession in time (cut off, silent) ends the session itself after its timeout;
     * ZooKeeper's own wait for that answer (up to a request timeout, and a reconnect attempt first if
     * the connection was lost) goes on in the background.
     */
    void close() {
        closed = true;
        Thread closer = closeInBackground(curator, null);
        try {
            closer.join(CLOSE_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
