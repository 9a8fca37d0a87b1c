package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.PermitCountMismatchException;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Revoked;
import io.distlock.spi.Waiters;
import io.distlock.spi.Watch;
import io.distlock.zookeeper.internal.LineRules.Verdict;
import io.distlock.zookeeper.internal.LockLine.Node;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client's locks on a ZooKeeper ensemble: a lean lock recipe on the ZooKeeper handle that
 * Curator keeps connected.
 *
 * <p>An acquire sends an asynchronous {@code create2} of an ephemeral-sequential node and, at once,
 * a {@code getChildren} of the lock's directory. One session's requests are processed in order, so
 * the listing already contains the new node: one round trip decides. The lowest sequence holds the
 * lock; its {@code czxid} (from the create's {@code Stat}, no extra read) is the fencing token: it is
 * ensemble-wide monotonic, and sequence order is creation order, so tokens increase in grant order.
 * The node's name carries the owner token (Curator's protected mode), so a create whose reply was
 * lost is found again by it.
 *
 * <p>Waiting: a request keeps its node between attempts (FIFO) and watches only its predecessor,
 * with one {@link PredecessorWatch} for its whole wait that wakes the engine only when the
 * predecessor is deleted, and on every reconnect. Between those the answer is still "busy" and an
 * attempt asks the server nothing. The notifications are reliable, so the engine does not poll.
 *
 * <p>Read-write locks and semaphores are the same loop on lines of their own ({@link ZkPaths#dir}),
 * with another rule of who is let in and what a waiter watches ({@link LineRules}): a reader is let
 * in while no writer is ahead of it, a writer when first, a permit of {@code n} among the first
 * {@code n}. Their fencing token is their node's {@code czxid}, as a lock's: tokens follow the line's
 * order, one order for a read-write lock's readers and writers. A writer is let in only when every
 * node ahead of it is gone, and no node behind it is let in while it lives, so every hold granted
 * before it was ahead of it in line: its token is above every token granted before it, and below
 * every one granted after it. Permits of a semaphore get tokens in the order their requests joined
 * the line: an acquire that starts after another returned gets a higher one.
 *
 * <p>Lease time: an ephemeral node lives as long as the session, so the engine ends each lease at
 * the end of its validity ({@link #leaseExpired}: the node is deleted), and a crashed or stopped
 * process loses its nodes when its session expires. Connection states reach the engine:
 * {@code SUSPENDED} makes every lease invalid until {@code RECONNECTED}; {@code LOST} (the session
 * expired) loses them all.
 *
 * <p>Removals (release, lease end, a withdrawn request) are single attempts that throw when the
 * server did not confirm them; the engine's cleanup calls them again. A node is forgotten here
 * only once the server confirmed it gone.
 */
public final class ZkLockDriver implements LockDriver {

    /**
     * One request's place in line: from its first attempt until it is granted (its grant names the
     * node from then on) or the server confirmed its node gone.
     */
    private static final class InLine {
        final String dir;
        final Hold hold;
        final PredecessorWatch predecessor;
        /** The request's node, once created (or found by its owner token); null before, and once confirmed gone. */
        volatile Node node;

        InLine(String dir, Hold hold, PredecessorWatch predecessor) {
            this.dir = dir;
            this.hold = hold;
            this.predecessor = predecessor;
        }
    }

    // Initialised before the session opens: connection events may arrive before the constructor returns.
    /** Owner token → the place in line of a request not granted (yet). */
    private final Map<String, InLine> requests = new ConcurrentHashMap<>();
    /** Owner token → the grants this client holds. */
    private final Map<String, Grant> grants = new ConcurrentHashMap<>();
    /** Held grants whose node's watch ({@link #watchHeld}) is not registered: the connection was lost first. */
    private final Set<Grant> unwatched = ConcurrentHashMap.newKeySet();
    /**
     * A line's directory (one per lock, read-write lock and semaphore name) → the engine's waiters in
     * this client, woken when a node one of them watches goes.
     */
    private final Waiters waiters = new Waiters();
    private final ZkSession session;
    private final ZkEndpoint endpoint;
    private final DriverContext context;
    private final ZkCalls calls;
    private final SessionWitness witness;
    /**
     * The client's one timer thread: the witness's {@code sync}s, and the held nodes' watches armed
     * {@link #WATCH_DELAY} after their grants.
     */
    private final ScheduledThreadPoolExecutor timer;
    /** Grants whose node's watch the timer is still to set ({@link #watchHeldLater}), oldest first. */
    private final Queue<PendingWatch> toWatch = new ConcurrentLinkedQueue<>();
    /** Whether the timer has a wake-up pending for {@link #toWatch}. */
    private final AtomicBoolean armingScheduled = new AtomicBoolean();
    private final LockLine lockLine;
    private final LockInspector inspector;

    /** How long a revocation record is kept at least, for a holder cut off at the time to find it; later revokes sweep it. */
    static final Duration RECORD_RETENTION = Duration.ofMinutes(10);

    /**
     * How long after its grant a held node's watch is armed ({@link #watchHeld}). A watch on a node
     * makes its deletion cost the server a notification and the client an event before the reply:
     * measured, the release took 1.6–1.8 × as long as one of a node nobody watches (ZooKeeper in its
     * own JVM, BENCHMARKS.md). Most holds are shorter than this and never pay it; a revoke in a
     * lease's first {@code WATCH_DELAY} is learnt when the watch is armed (the node is then found
     * gone), so at most this much later than at once.
     */
    public static final Duration WATCH_DELAY = Duration.ofMillis(50);

    private static final AtomicInteger TIMERS = new AtomicInteger();

    private ZkLockDriver(ZkEndpoint endpoint, LockOptions options, DriverContext context, Duration recordRetention) {
        this.endpoint = endpoint;
        this.context = context;
        this.session = ZkSession.open(endpoint, options, this::stateChanged, context::sessionEnded);
        this.calls = session.calls();
        this.lockLine = new LockLine(session, context.owner());
        this.inspector = new LockInspector(session, endpoint.chroot(), context.owner(), recordRetention);
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "distlock-zookeeper-timer-" + TIMERS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.witness = new SessionWitness(session, context, () -> !grants.isEmpty(), endpoint.chroot(), timer);
    }

    /**
     * Connects, waits for the session within the connect timeout, and checks that this client can
     * list the chroot (creating the chroot if it is missing).
     *
     * @param endpoint the parsed URI
     * @param options  the client's timeouts
     * @param context  how the driver reports to the engine
     * @return the connected driver
     * @throws BackendUnavailableException if no server of the ensemble answers within the connect timeout
     * @throws io.distlock.LockException    if the chroot cannot be read or created (no permission)
     */
    public static ZkLockDriver connect(ZkEndpoint endpoint, LockOptions options, DriverContext context) {
        return new ZkLockDriver(endpoint, options, context, RECORD_RETENTION);
    }

    /** As {@link #connect(ZkEndpoint, LockOptions, DriverContext)}, keeping revocation records as long as asked (for tests). */
    static ZkLockDriver connect(ZkEndpoint endpoint, LockOptions options, DriverContext context, Duration recordRetention) {
        return new ZkLockDriver(endpoint, options, context, recordRetention);
    }

    private ZooKeeper zk() {
        return session.zk();
    }

    // ---- acquire -------------------------------------------------------------------------------

    @Override
    public Attempt tryAcquire(LockRequest request) {
        InLine line = requests.computeIfAbsent(request.ownerToken(), token -> {
            String dir = ZkPaths.dir(endpoint.chroot(), request.name(), request.hold());
            return new InLine(dir, request.hold(), new PredecessorWatch(session, () -> waiters.wake(dir)));
        });
        if (line.node != null && line.predecessor.unchanged() && session.connected()) {
            // Still behind the same nodes: a deletion of one (or a reconnect) would have marked the
            // watch. Nothing to ask the server.
            return Attempt.busy();
        }
        long start = System.nanoTime();
        long deadline = start + session.operationTimeout().toNanos();
        boolean replyLost = false;
        while (true) {
            try {
                if (!session.connected()) {
                    // Nothing to send on yet: waiting for the connection is the caller's wait, not a
                    // request in flight, so it ends with the caller's maxWait if that comes first.
                    awaitConnection(request, start, null);
                }
                if (replyLost && line.node == null) {
                    adopt(request, line);
                }
                return tryOnce(request, line, deadline);
            } catch (KeeperException e) {
                // A server went away mid-request (a leader election, a restart): the client moves
                // to another server with the same session. Wait for that, find a node whose create
                // landed without a reply by the owner token in its name, and try again.
                if (!ZkCalls.isConnectionProblem(e) || System.nanoTime() - deadline > 0) {
                    throw calls.translate(e, "acquire '" + request.name() + "' in " + line.dir);
                }
                awaitConnection(request, start, e);
                replyLost = true;
            }
        }
    }

    /** Waits for the connection within the attempt's bound and the caller's wait, whichever ends first. */
    private void awaitConnection(LockRequest request, long start, KeeperException cause) {
        long left = request.reconnectNanosLeft(start, session.operationTimeout());
        session.awaitReconnect(System.nanoTime() + left, cause, "acquire '" + request.name() + "'");
    }

    /** One look at the line (creating the request's node if it has none), its answers awaited until {@code deadline}. */
    private Attempt tryOnce(LockRequest request, InLine line, long deadline) throws KeeperException {
        String dir = line.dir;
        boolean joinedNow = false;
        for (int round = 0; ; round++) {
            Node node = line.node;
            ZooKeeper zk = zk();
            List<String> children;
            long sent = System.nanoTime();
            if (node == null) {
                CompletableFuture<Node> created = lockLine.join(zk, dir, request);
                CompletableFuture<List<String>> listed = lockLine.list(zk, dir); // pipelined: one round trip for both
                try {
                    node = calls.await(created, "create a lock node in " + dir, deadline);
                } catch (KeeperException.NoNodeException e) {
                    session.createParents(dir);
                    continue;
                }
                line.node = node;
                joinedNow = true;
                witness.answered(zk, sent); // a write: the leader had the session
                children = calls.await(listed, "list " + dir, deadline);
            } else {
                // A listing alone may come from a follower that lost the leader and still serves what
                // it last knew: a sync first, in order with it, so that it shows at least what the
                // leader had, and so that the answer vouches for the session.
                CompletableFuture<Boolean> synced = lockLine.sync(zk, dir);
                CompletableFuture<List<String>> listed = lockLine.list(zk, dir);
                calls.await(synced, "sync " + dir, deadline);
                witness.answered(zk, sent);
                children = calls.await(listed, "list " + dir, deadline);
            }
            List<String> queue = ZkPaths.queue(children, line.hold);
            int place = queue.indexOf(ZkPaths.name(node.path()));
            if (place > 0 && removeGhosts(request, dir, queue.subList(0, place), node)) {
                continue;
            }
            if (place < 0) {
                // Our node is not in the listing of a server that has seen every write of this
                // session: it went with an expired session (or was deleted on the server). Start
                // over in line.
                startOver(request, line, round);
                continue;
            }
            Verdict verdict = LineRules.judge(line.hold, queue, place);
            if (verdict.refused()) {
                throw refuse(request, line, verdict.storedPermits());
            }
            if (verdict.granted()) {
                line.predecessor.stop();
                // Bound to the session the node lives with: the engine ends the lease with it, and
                // gives the grant back if that session ended before the grant is recorded.
                Grant grant = new Grant(request, OptionalLong.of(node.czxid()), node.path(), node.session());
                grants.put(request.ownerToken(), grant);
                // Settled: from here the grant names the node (release, extension, the watch, and the
                // abandon of a grant the engine gives back). Its place in line would only cost each
                // held lease about 200 bytes (the line, its watch, the directory's path).
                requests.remove(request.ownerToken(), line);
                if (!joinedNow) {
                    lockLine.granted(zk, node.path()); // it waited: its mtime tells when it was granted
                }
                watchHeldLater(grant);
                return Attempt.granted(grant);
            }
            // Watch only what can let it in (no herd). If one of those is already gone, look again at once.
            List<String> watched = new ArrayList<>(verdict.watch().size());
            verdict.watch().forEach(child -> watched.add(dir + "/" + child));
            if (line.predecessor.watch(watched)) {
                return Attempt.busy();
            }
        }
    }

    /** The request's node went with an expired session, or was deleted on the server: it joins the line again. */
    private void startOver(LockRequest request, InLine line, int round) {
        line.node = null;
        if (round > 3) {
            throw new BackendUnavailableException(endpoint.toString(), line.hold.describe() + " node of '" + request.name()
                    + "' keeps vanishing on " + endpoint + " (session expiring?)", null);
        }
    }

    /**
     * A permit request found a node ahead of its own with another permit count: it withdraws its node
     * before it throws, so that it leaves nothing behind (if the server does not confirm the
     * deletion, the engine's cleanup, which abandons the request by its owner token, deletes it).
     */
    private PermitCountMismatchException refuse(LockRequest request, InLine line, int stored) {
        PermitCountMismatchException refused = new PermitCountMismatchException(request.name(), stored, request.hold().permits());
        line.predecessor.stop();
        Node node = line.node;
        try {
            if (node != null) {
                removeNode(node.path(), "withdraw a refused request for '" + request.name() + "'");
                line.node = null;
            }
            forget(request.ownerToken());
        } catch (RuntimeException e) {
            refused.addSuppressed(e);
        }
        return refused;
    }

    /**
     * A node ahead of ours with our own owner token is a ghost: a create whose reply was lost and
     * that {@link #adopt} did not find. It must not hold our place (or the lock) for us.
     *
     * @return true if a ghost was deleted (look at the queue again)
     */
    private boolean removeGhosts(LockRequest request, String dir, List<String> ahead, Node node) throws KeeperException {
        boolean removed = false;
        for (String child : ahead) {
            if (ZkPaths.ownedBy(child, request.hold(), request.ownerToken()) && !child.equals(ZkPaths.name(node.path()))) {
                session.delete(dir + "/" + child, "remove a duplicate request for '" + request.name() + "'");
                removed = true;
            }
        }
        return removed;
    }

    /** After a lost reply to a create: the node may exist; if so, it is this request's place in line. */
    private void adopt(LockRequest request, InLine line) throws KeeperException {
        lockLine.find(line.dir, request.hold(), request.ownerToken()).ifPresent(node -> line.node = node);
    }

    /** A grant whose node's watch is still to be set, and when it was granted ({@link System#nanoTime()}). */
    private record PendingWatch(Grant grant, long grantedAt) {
    }

    /**
     * Arms the held node's watch ({@link #watchHeld}) {@link #WATCH_DELAY} after its grant, if the
     * grant is still held then: the grants wait in one queue, in the order they were granted, and
     * the timer has at most one wake-up pending for all of them ({@link #armDueWatches}) — no timer
     * entry per lease.
     */
    private void watchHeldLater(Grant grant) {
        toWatch.add(new PendingWatch(grant, System.nanoTime()));
        if (armingScheduled.compareAndSet(false, true)) {
            scheduleArming(WATCH_DELAY.toNanos());
        }
    }

    private void scheduleArming(long delayNanos) {
        try {
            timer.schedule(this::armDueWatches, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            // closing: the leases end with the client
        }
    }

    /** On the timer: sets the watch of every queued grant held {@link #WATCH_DELAY} or longer, then waits for the next. */
    private void armDueWatches() {
        long delay = WATCH_DELAY.toNanos();
        PendingWatch next;
        while ((next = toWatch.peek()) != null && System.nanoTime() - next.grantedAt() - delay >= 0) {
            toWatch.poll();
            Grant grant = next.grant();
            if (grants.get(grant.ownerToken()) == grant) {
                try {
                    watchHeld(zk(), grant);
                } catch (RuntimeException closed) {
                    // closed, or the session is being replaced: its leases end with it
                }
            }
        }
        armingScheduled.set(false);
        // A grant queued while this ran either scheduled its own wake-up (after the flag went down)
        // or is found here (it came before): either way exactly one wake-up is pending for it.
        PendingWatch head = toWatch.peek();
        if (head != null && armingScheduled.compareAndSet(false, true)) {
            scheduleArming(Math.max(0, head.grantedAt() + delay - System.nanoTime()));
        }
    }

    /**
     * Arms a watch on the granted node, to learn at once when an operator revokes it: a child watch,
     * which an ephemeral node (it has no children) fires only when it is deleted — not when its data
     * changes. Not awaited. A node already gone when it is armed (revoked before then) is found so
     * by its answer ({@code NONODE}). ZooKeeper re-arms it on a reconnect of the same session, and
     * fires it then if the node went meanwhile; a lease whose session ended is lost anyway. A
     * registration that the connection's loss cut short is sent again once the client is connected.
     */
    private void watchHeld(ZooKeeper zk, Grant grant) {
        String path = (String) grant.handle();
        zk.getChildren(path, event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                heldNodeGone(grant);
            }
        }, (rc, p, ctx, children) -> {
            if (rc == KeeperException.Code.OK.intValue()) {
                unwatched.remove(grant);
            } else if (rc == KeeperException.Code.NONODE.intValue()) {
                unwatched.remove(grant);
                heldNodeGone(grant);
            } else if (grants.get(grant.ownerToken()) == grant) {
                unwatched.add(grant);
                if (session.connected()) { // connected again before this answer came: the state change has passed
                    watchAgain();
                }
            }
        }, null);
    }

    /** Arms again every held node's watch whose registration the connection's loss cut short. */
    private void watchAgain() {
        for (Grant grant : unwatched) {
            if (unwatched.remove(grant) && grants.get(grant.ownerToken()) == grant) {
                try {
                    watchHeld(zk(), grant);
                } catch (RuntimeException closed) {
                    // closed, or the session is being replaced: its leases end with it
                }
            }
        }
    }

    /**
     * A held node was deleted. Unless this client deleted it (its grant is gone from {@link #grants}
     * before the delete is sent), a revocation record for its owner token says an operator revoked it
     * and why; without one, the lease's next renewal finds the node gone ({@code NOT_HELD}).
     */
    private void heldNodeGone(Grant grant) {
        if (grants.get(grant.ownerToken()) != grant) {
            return;
        }
        try {
            inspector.reason(zk(), grant.ownerToken()).thenAccept(reason ->
                    reason.ifPresent(r -> context.leaseRevoked(grant.ownerToken(), r)));
        } catch (RuntimeException closed) {
            // the session is closed or being replaced: the lease ends with it
        }
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        return waiters.add(ZkPaths.lockDir(endpoint.chroot(), name), onChange);
    }

    /**
     * Registers the waiter on its primitive's line: what it waits for is what its request's
     * {@link PredecessorWatch} watches ({@link LineRules}), whose deletion wakes the waiters of that
     * line in this client — not those of the name's other primitives.
     */
    @Override
    public Watch watch(LockRequest request, Runnable onChange) {
        return waiters.add(ZkPaths.dir(endpoint.chroot(), request.name(), request.hold()), onChange);
    }

    /** Every deletion of what a waiter watches is notified, and every reconnect wakes all waiters. */
    @Override
    public boolean reliableNotifications() {
        return true;
    }

    // ---- extend, release, end ------------------------------------------------------------------

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        return extendAll(List.of(new Renewal(grant, leaseTime))).get(0);
    }

    /**
     * Every renewal's check goes out at once; the replies come back in one round trip. A renewal is
     * a {@code multi} of one {@code check} of the node ({@link LockLine#stillThere}): a write, so it
     * proves the session alive to the leader, and it leaves the node as it is. A node found gone is
     * looked up among the revocation records (one more round trip for those only): a revoked lease
     * is reported {@link ExtendOutcome#revoked} with the reason, even if its watch was missed.
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        List<CompletableFuture<Boolean>> replies = new ArrayList<>(renewals.size());
        ZooKeeper zk = zk();
        long sent = System.nanoTime();
        for (Renewal renewal : renewals) {
            replies.add(lockLine.stillThere(zk, (String) renewal.grant().handle()));
        }
        List<ExtendOutcome> results = new ArrayList<>(renewals.size());
        Map<Integer, CompletableFuture<Optional<String>>> gone = new TreeMap<>();
        for (int i = 0; i < replies.size(); i++) {
            String what = "extend the lease on '" + renewals.get(i).grant().name() + "'";
            try {
                boolean extended = calls.await(replies.get(i), what);
                if (i == 0) {
                    witness.answered(zk, sent); // a write: the leader had the session
                }
                if (!extended) {
                    forget(renewals.get(i).grant().ownerToken());
                    gone.put(i, inspector.reason(zk, renewals.get(i).grant().ownerToken()));
                }
                results.add(ExtendOutcome.of(extended));
            } catch (BackendUnavailableException e) {
                results.add(ExtendOutcome.unknown(e));
            } catch (KeeperException e) {
                RuntimeException translated = calls.translate(e, what);
                if (translated instanceof BackendUnavailableException) {
                    results.add(ExtendOutcome.unknown((BackendUnavailableException) translated));
                } else {
                    throw translated;
                }
            }
        }
        for (Map.Entry<Integer, CompletableFuture<Optional<String>>> lost : gone.entrySet()) {
            try {
                calls.await(lost.getValue(), "read the revocation record of a lease on '"
                        + renewals.get(lost.getKey()).grant().name() + "'").ifPresent(reason ->
                        results.set(lost.getKey(), ExtendOutcome.revoked(reason)));
            } catch (KeeperException | BackendUnavailableException e) {
                // The node is gone, which the server answered: lost either way, only the reason is unknown.
            }
        }
        return results;
    }

    /**
     * Deletes the grant's node. Returns once the server confirmed it is gone; throws when it could
     * not tell, and keeps the grant until then: the engine calls this again (after a back-off, and
     * at once when the connection is restored).
     */
    @Override
    public boolean release(Grant grant) {
        forget(grant.ownerToken()); // first: the deletion this sends is no revocation to watchHeld
        return removeNode((String) grant.handle(), "release '" + grant.name() + "'");
    }

    @Override
    public boolean serverExpiresLeases() {
        return false;
    }

    /** The lease time passed without an extend: the node goes, as a key with a TTL would; as {@link #release}. */
    @Override
    public void leaseExpired(Grant grant) {
        forget(grant.ownerToken()); // first, as in release
        removeNode((String) grant.handle(), "end the expired lease on '" + grant.name() + "'");
    }

    /**
     * Deletes the request's node, and after an unknown outcome every node that carries its owner
     * token (a create whose reply was lost). The request is forgotten only once the server
     * confirmed all of it gone; until then this throws and the engine calls it again.
     */
    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        String what = "withdraw a request for '" + request.name() + "'";
        InLine line = requests.get(request.ownerToken());
        if (line != null) {
            line.predecessor.stop();
            Node node = line.node;
            if (node != null) {
                removeNode(node.path(), what);
                line.node = null;
            }
        } else {
            // Granted, and given back: the SPI's abandon removes whatever an acquire that produced no
            // lease left, a granted node included. The request left the line at the grant; the grant
            // names the node. The engine releases a grant it cannot use before it abandons the request
            // (Leases.admit), so this finds the node gone or the grant forgotten; without it, an abandon
            // coming alone would leave the node holding the lock for the session's life.
            Grant granted = grants.get(request.ownerToken());
            if (granted != null) {
                removeNode((String) granted.handle(), what);
            }
        }
        if (outcomeUnknown) {
            String dir = ZkPaths.dir(endpoint.chroot(), request.name(), request.hold());
            try {
                for (String child : lockLine.findByOwner(dir, request.hold(), request.ownerToken())) {
                    session.delete(dir + "/" + child, what);
                }
            } catch (KeeperException e) {
                throw calls.translate(e, what);
            }
        }
        forget(request.ownerToken());
    }

    private boolean removeNode(String path, String what) {
        try {
            return session.delete(path, what);
        } catch (KeeperException e) {
            throw calls.translate(e, what);
        }
    }

    private void forget(String ownerToken) {
        Grant grant = grants.remove(ownerToken);
        if (grant != null && !unwatched.isEmpty()) {
            // Almost always empty (a watch cut short by a lost connection): skip hashing the grant, a
            // record whose hash walks its request and handle, which was half of a release's CPU here.
            unwatched.remove(grant);
        }
        requests.remove(ownerToken);
    }

    // ---- inspection and revocation -------------------------------------------------------------

    @Override
    public Optional<LockInfo> inspect(String name) {
        try {
            return inspector.inspect(name);
        } catch (KeeperException e) {
            throw calls.translate(e, "inspect '" + name + "'");
        }
    }

    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        try {
            return inspector.holders(prefix, limit);
        } catch (KeeperException e) {
            throw calls.translate(e, "list the locks held under '" + prefix + "'");
        }
    }

    @Override
    public Optional<Revoked> revoke(String name, String reason) {
        try {
            return inspector.revoke(name, reason);
        } catch (KeeperException e) {
            throw calls.translate(e, "revoke '" + name + "'");
        }
    }

    /**
     * Every reader and writer of a read-write lock, or every permit of a semaphore, that holds on the
     * server: the nodes of its line that its rules let in ({@link LineRules#holding}), each read for
     * its owner, {@code czxid} (the fencing token) and grant time; the hold id is the node's sequence,
     * never the owner token its name also carries. Two round trips.
     */
    @Override
    public List<LockInfo> holds(String name, io.distlock.Feature primitive) {
        try {
            return inspector.holds(name, line(primitive));
        } catch (KeeperException e) {
            throw calls.translate(e, "list the holds of " + describe(name, primitive));
        }
    }

    /**
     * Revokes the hold whose node has the sequence {@code holdId}, if that node holds: one
     * {@code multi} deletes it and writes its revocation record, as a lock's revoke does, so its
     * holder's client learns it by the same watch (armed on every grant, whatever the hold) or at
     * its next extension. Two round trips.
     */
    @Override
    public Optional<Revoked> revokeHold(String name, io.distlock.Feature primitive, String holdId, String reason) {
        try {
            return inspector.revokeHold(name, line(primitive), holdId, reason);
        } catch (KeeperException e) {
            throw calls.translate(e, "revoke the hold " + holdId + " of " + describe(name, primitive));
        }
    }

    /** Any hold of {@code primitive}: it names the primitive's line ({@link ZkPaths#dir}, {@link ZkPaths#queue(List, Hold)}). */
    private static Hold line(io.distlock.Feature primitive) {
        switch (primitive) {
            case READ_WRITE:
                return Hold.READ;
            case SEMAPHORE:
                return Hold.permit(1);
            default:
                throw new IllegalArgumentException("not a primitive with holds: " + primitive);
        }
    }

    private static String describe(String name, io.distlock.Feature primitive) {
        return (primitive == io.distlock.Feature.SEMAPHORE ? "semaphore '" : "read-write lock '") + name + "'";
    }

    // ---- the session ---------------------------------------------------------------------------

    private void stateChanged(ConnectionState state) {
        switch (state) {
            case SUSPENDED:
                context.connectionSuspended();
                break;
            case RECONNECTED:
                context.connectionRestored(); // the engine retries every pending removal at once
                lookAgain(); // a predecessor may have gone while we were away
                watchAgain(); // a held node's watch whose registration was cut short
                break;
            case LOST:
                // The session expired: its ephemeral nodes are gone, or go when the server notices.
                // The session's handle reported its end (ZkSession's onSessionEnded), and the engine
                // lost every lease bound to it — including a grant it decided that is still on its
                // way. Waiters look at the line again.
                lookAgain();
                break;
            default:
                break;
        }
    }

    /** Every waiting request lists its line again at its next attempt, and every waiter is woken for it. */
    private void lookAgain() {
        requests.values().forEach(line -> line.predecessor.lookAgain());
        waiters.wakeAll();
    }

    /** @return the client's ZooKeeper handle (for tests that expire its session) */
    public ZooKeeper zooKeeper() {
        return zk();
    }

    @Override
    public void close() {
        timer.shutdownNow();
        session.close();
    }
}
