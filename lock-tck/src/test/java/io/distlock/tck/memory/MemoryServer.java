package io.distlock.tck.memory;

import io.distlock.BackendUnavailableException;
import io.distlock.PermitCountMismatchException;
import io.distlock.spi.DriverContext;
import io.distlock.spi.Hold;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory lock "server" shared by every client that connects to the same
 * {@code <scheme>://<serverName>}. Each lock name has a FIFO queue of requests; the head of the
 * queue, once granted, holds the lock (like a ZooKeeper lock's lowest sequential node). A request
 * keeps its place between the driver's attempts until it is granted or abandoned.
 *
 * <p>Time is {@link System#nanoTime()}: a granted head holds until its expiry; then the next request
 * in line is granted at once (server-side hand-off), with the lease counted from the moment it
 * collects the grant with its next attempt (or from the hand-off, if it never comes back: a ghost
 * request holds for one lease time). Every grant takes the next value of one counter: the fencing
 * token. Listeners are told of every change of a name, and of every expiry (by a timer).
 *
 * <p>It has two replicas, replicated synchronously: while one is cut off
 * ({@link #cutReplication}), no grant can be acknowledged and an acquire gets no answer; a
 * failover ({@link #promote}) then loses nothing. The asynchronous-replication defect acknowledges
 * grants the replicas do not have, and a failover to a lagging one forgets them.
 *
 * <p>{@link Bug}s switch one deliberate defect on, for the TCK's self-test.
 */
final class MemoryServer {

    private static final ConcurrentHashMap<String, MemoryServer> SERVERS = new ConcurrentHashMap<>();
    private static final AtomicLong SESSION_IDS = new AtomicLong();

    /** Creates the server's expiry timer lazily; one daemon thread for all servers. */
    private static final class Timer {
        static final ScheduledThreadPoolExecutor INSTANCE = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, "memory-lock-server-expiry");
            thread.setDaemon(true);
            return thread;
        });

        static {
            INSTANCE.setRemoveOnCancelPolicy(true);
        }
    }

    private static final class Entry {
        final String owner;
        final long leaseNanos;
        /** What it holds: the lock, a read or write hold, or a permit (each kind on a key of its own). */
        final Hold hold;
        /** What its client shows of itself to an inspector ({@code DriverContext.owner()}). */
        final String description;
        boolean granted;
        boolean claimed;
        long expiresAt;
        long fence;
        /** When it was granted, by the server's wall clock. */
        long grantedAtMillis;

        Entry(String owner, long leaseNanos, String description, Hold hold) {
            this.owner = owner;
            this.leaseNanos = leaseNanos;
            this.description = description;
            this.hold = hold;
        }
    }

    /**
     * The holder of a lock as the server shows it to an inspector, and (for a revoke) the owner
     * token it held the lock with.
     *
     * @param remainingNanos what the server has left of its lease, or -1 for a server that never
     *                       expires one (a session store's, whose holder's client ends it)
     */
    record Holder(String name, String owner, String description, long fence, long grantedAtMillis, long remainingNanos,
                  int waiters, Hold hold) {
    }

    /** A grant or a busy answer, as the server gives it. */
    record Answer(boolean granted, long fence, Duration holderRemaining) {
    }

    private final Bug bug;
    private final Map<String, Deque<Entry>> queues = new HashMap<>();
    private final Map<String, Long> perNameCounters = new HashMap<>();
    private final Map<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();
    /**
     * Owners whose request was abandoned after an unknown outcome: a late write of theirs (one that
     * was in flight while its cleanup ran) must not take the lock. Guarded by this.
     */
    private final Set<String> abandoned = new java.util.HashSet<>();
    private long fenceCounter;
    /** The last holder shown of each name, for {@link Bug#STALE_INSPECTION}. Guarded by this. */
    private final Map<String, Holder> lastShown = new HashMap<>();
    /** {@link Bug#REVOKE_REUSES_TOKEN}: the evicted holder's token, handed to the next grant of the name. Guarded by this. */
    private final Map<String, Long> reusedFence = new HashMap<>();
    /**
     * Owner token → the reason of the revoke that ended its grant: what its next extension is
     * answered with (a marker the revoke leaves, as a Redis backend's does). Kept for the life of the server.
     */
    private final Map<String, String> revocations = new ConcurrentHashMap<>();

    /** While set, every acquire reply waits for this gate after the server has decided (a slow network). */
    private volatile CountDownLatch replyGate;
    private volatile CountDownLatch replyHeld;
    /**
     * Owner token → what its driver does when the server drops that owner's grant: told null when
     * the server did it on its own (a session expiry), the reason when an operator revoked it.
     */
    private final Map<String, java.util.function.Consumer<String>> revocationListeners = new ConcurrentHashMap<>();
    /**
     * On a session store: owner token → the client session its request was written on (a ZooKeeper
     * node's ephemeral owner). What a session wrote goes when it ends ({@link #endSession}).
     */
    private final Map<String, Long> sessionOf = new ConcurrentHashMap<>();
    /** Session → what its client does when the server ends it (it hears of it at once). */
    private final Map<Long, Runnable> sessionListeners = new ConcurrentHashMap<>();
    /** Sessions the server ended: a request written on one is refused, as an expired session's. */
    private final Set<Long> endedSessions = ConcurrentHashMap.newKeySet();
    /** The engines of the connected clients, told when the "connection" is suspended and restored. */
    private final Set<DriverContext> connections = ConcurrentHashMap.newKeySet();

    /**
     * The replicas whose replication link is cut, by replica index, each with the lock table as it
     * was when its link was cut (what it has); a replica not in the map is in step with this server.
     * Guarded by this.
     */
    private final Map<Integer, Map<String, Deque<Entry>>> laggingReplicas = new HashMap<>();

    /** Batched renewals received ({@code extendAll} calls) and the leases they carried, for engine tests. */
    final AtomicLong renewalBatches = new AtomicLong();
    final AtomicLong renewedLeases = new AtomicLong();

    private MemoryServer(Bug bug) {
        this.bug = bug;
    }

    /**
     * The principals of a server whose name starts with {@code secure}: {@code locker} may take every
     * lock, {@code outsider} only those whose names start with {@code outsider-}.
     */
    static final java.util.Map<String, String> PASSWORDS = java.util.Map.of("locker", "locker-pw-7f3a", "outsider", "outsider-pw-2c9d");

    /**
     * Checks that {@code principal} may act on the lock {@code name}.
     *
     * @param principal the authenticated user, or null on a server without authentication
     * @throws io.distlock.AccessDeniedException if it may not
     */
    void authorize(String principal, String name, String endpoint) {
        if (principal != null && principal.equals("outsider") && !name.startsWith("outsider-")) {
            throw new io.distlock.AccessDeniedException(endpoint, "user '" + principal + "' has no rights on lock '"
                    + name + "' at " + endpoint, null);
        }
    }

    /**
     * What a principal with the server's own tools can do to a lock: delete whatever holds it, if
     * its rights allow (or the server keeps no access control, {@link Bug#STATE_WITHOUT_ACL}).
     */
    void tamper(String principal, String name) {
        if (bug != Bug.STATE_WITHOUT_ACL) {
            authorize(principal, name, "memory");
        }
        revoke(name, false);
    }

    static MemoryServer named(String scheme, String serverName, Bug bug) {
        return SERVERS.computeIfAbsent(scheme + "://" + serverName, k -> new MemoryServer(bug));
    }

    /**
     * One attempt of {@code owner} on the queue {@code name} (a lock's name, or the key of a
     * read-write lock or a semaphore, {@link MemoryDriver#key}). A request keeps its place in line
     * between attempts; what is granted is decided by {@link #settle}.
     *
     * @throws PermitCountMismatchException if a permit asks for another count than the queue's entries
     */
    Answer tryAcquire(String name, String owner, Duration leaseTime, String description, Hold hold) {
        Answer answer;
        boolean changed;
        synchronized (this) {
            if (!laggingReplicas.isEmpty() && bug != Bug.ASYNC_REPLICATION) {
                // Synchronous replication: a grant is acknowledged once every replica has it, so
                // with one cut off none can be; nothing is written, and the client cannot tell.
                throw new BackendUnavailableException("memory-replicas", "memory server cannot confirm a grant of '" + name
                        + "': replicas " + laggingReplicas.keySet() + " do not acknowledge", null);
            }
            long now = System.nanoTime();
            changed = settle(name, now);
            Deque<Entry> queue = queues.computeIfAbsent(name, k -> new ArrayDeque<>());
            Entry entry = find(queue, owner);
            if (entry == null && abandoned.contains(owner) && bug != Bug.LATE_WRITE_WINS) {
                // A late request whose cleanup already ran: it takes nothing.
                Entry head = queue.peekFirst();
                if (queue.isEmpty()) {
                    queues.remove(name);
                }
                return new Answer(false, 0, head == null ? Duration.ZERO : Duration.ofNanos(Math.max(0, head.expiresAt - now)));
            }
            if (entry == null && hold.kind() == Hold.Kind.PERMIT) {
                for (Entry other : queue) {
                    if (other.hold.permits() != hold.permits()) {
                        if (queue.isEmpty()) {
                            queues.remove(name);
                        }
                        throw new PermitCountMismatchException(MemoryDriver.nameOf(name), other.hold.permits(),
                                hold.permits());
                    }
                }
            }
            if (entry == null) {
                entry = new Entry(owner, leaseTime.toNanos(), description, hold);
                queue.addLast(entry);
                changed |= settle(name, now);
            }
            if (entry.granted && entry.claimed && bug == Bug.OWN_WRITE_UNRECOGNISED) {
                // The defect: the owner's own grant, asked for again (its reply was lost), looks like someone else's.
                answer = new Answer(false, 0, Duration.ofNanos(Math.max(0, entry.expiresAt - now)));
            } else if (entry.granted) {
                if (!entry.claimed) {
                    entry.claimed = true;
                    entry.expiresAt = now + honoured(entry.leaseNanos);
                    scheduleExpiry(name, entry.expiresAt);
                }
                answer = new Answer(true, entry.fence, Duration.ZERO);
            } else {
                answer = new Answer(false, 0, Duration.ofNanos(Math.max(0, firstExpiry(queue) - now)));
            }
        }
        if (changed) {
            fire(name);
        }
        CountDownLatch gate = replyGate;
        if (gate != null) {
            replyHeld.countDown();
            awaitUninterruptibly(gate); // a reply on the wire does not care about the caller's interrupt
        }
        return answer;
    }

    /**
     * {@link Bug#NON_ATOMIC_PERMITS}' first round trip: how many permits of {@code key} are held now.
     */
    synchronized int permitsHeld(String key) {
        settle(key, System.nanoTime());
        Deque<Entry> queue = queues.get(key);
        return queue == null ? 0 : (int) queue.stream().filter(entry -> entry.granted).count();
    }

    /**
     * {@link Bug#NON_ATOMIC_PERMITS}' second round trip: a permit written without looking again at
     * what is held (the count was read in the first).
     */
    Answer grantPermit(String key, String owner, Duration leaseTime, String description, Hold hold) {
        synchronized (this) {
            Entry entry = writeGrant(key, owner, leaseTime, description, hold);
            entry.expiresAt = System.nanoTime() + honoured(entry.leaseNanos);
            scheduleExpiry(key, entry.expiresAt);
            return new Answer(true, entry.fence, Duration.ZERO);
        }
    }

    /**
     * A defect's write: a grant put at the head of {@code key}'s queue without looking at who else is
     * there, with a new fence; the caller sets its expiry.
     */
    private Entry writeGrant(String key, String owner, Duration leaseTime, String description, Hold hold) {
        Entry entry = new Entry(owner, leaseTime.toNanos(), description, hold);
        entry.granted = true;
        entry.claimed = true;
        entry.fence = nextFence(key);
        entry.grantedAtMillis = System.currentTimeMillis();
        queues.computeIfAbsent(key, k -> new ArrayDeque<>()).addFirst(entry);
        return entry;
    }

    /**
     * Holds every acquire reply, after the server has decided, until {@code gate} opens.
     *
     * @return a latch that opens when a reply is being held
     */
    CountDownLatch holdRepliesUntil(CountDownLatch gate) {
        replyHeld = new CountDownLatch(1);
        replyGate = gate;
        return replyHeld;
    }

    void stopHoldingReplies() {
        CountDownLatch gate = replyGate;
        replyGate = null;
        if (gate != null) {
            gate.countDown();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    void connected(DriverContext context) {
        connections.add(context);
    }

    void disconnected(DriverContext context) {
        connections.remove(context);
    }

    /** Every connected client's connection drops (a session store's SUSPENDED), keeping its grants. */
    void suspendConnections() {
        connections.forEach(DriverContext::connectionSuspended);
    }

    /** Every connected client's connection is back with its session (RECONNECTED). */
    void restoreConnections() {
        connections.forEach(DriverContext::connectionRestored);
    }

    /**
     * Opens a client session on this server: {@code onEnd} runs when the server ends it.
     *
     * @return the session's id
     */
    long openSession(Runnable onEnd) {
        long id = SESSION_IDS.incrementAndGet();
        sessionListeners.put(id, onEnd);
        return id;
    }

    /**
     * A request of {@code owner} arrives on session {@code session}: what it writes belongs to that
     * session. A session the server ended takes no request.
     *
     * @throws BackendUnavailableException if the session ended (the client must move to a new one)
     */
    void onSession(String owner, long session) {
        if (endedSessions.contains(session)) {
            throw new BackendUnavailableException("memory", "session " + session + " has ended", null);
        }
        sessionOf.put(owner, session);
    }

    /**
     * Ends, on the server's own initiative, the session whose request holds or was just granted
     * {@code name} (an expiry, an operator closing it): everything written on it goes, then its
     * client is told.
     */
    void endSession(String name) {
        Long session;
        List<String> changed = new ArrayList<>();
        synchronized (this) {
            Entry head = head(name);
            session = head == null ? null : sessionOf.get(head.owner);
            if (session == null) {
                return;
            }
            endedSessions.add(session);
            long now = System.nanoTime();
            for (Map.Entry<String, Deque<Entry>> queue : new ArrayList<>(queues.entrySet())) {
                if (queue.getValue().removeIf(entry -> session.equals(sessionOf.get(entry.owner)))) {
                    changed.add(queue.getKey());
                    settle(queue.getKey(), now);
                }
            }
            sessionOf.values().removeIf(session::equals);
        }
        changed.forEach(this::fire);
        Runnable listener = sessionListeners.remove(session);
        if (listener != null) {
            listener.run();
        }
    }

    void onRevoke(String owner, java.util.function.Consumer<String> listener) {
        revocationListeners.put(owner, listener);
    }

    void forget(String owner) {
        revocationListeners.remove(owner);
    }

    /** Drops the current holder of {@code name} on the server's own initiative (a session expiry) and tells its driver. */
    void revoke(String name) {
        revoke(name, true);
    }

    /**
     * Drops the current holder of {@code name} on the server's own initiative; tells its driver
     * only if {@code tellHolder} (a session expiry does; a deleted key or an eviction does not).
     */
    void revoke(String name, boolean tellHolder) {
        Entry head;
        synchronized (this) {
            head = head(name);
            if (head == null || !head.granted) {
                return;
            }
            queues.get(name).pollFirst();
            settle(name, System.nanoTime());
        }
        java.util.function.Consumer<String> listener = revocationListeners.remove(head.owner);
        if (listener != null && tellHolder) {
            listener.accept(null);
        }
        fire(name);
    }

    /**
     * What an inspector sees of {@code name}: its holder, or null if nobody holds it — unless the
     * server has {@link Bug#STALE_INSPECTION}, which keeps showing the last holder it showed.
     */
    synchronized Holder inspect(String name) {
        long now = System.nanoTime();
        settle(name, now);
        Entry head = head(name);
        if (head == null || !head.granted) {
            return bug == Bug.STALE_INSPECTION ? lastShown.get(name) : null;
        }
        Holder holder = holder(name, head, now);
        lastShown.put(name, holder);
        return holder;
    }

    private Holder holder(String name, Entry entry, long now) {
        long waiting = queues.get(name).stream().filter(e -> !e.granted).count();
        return new Holder(name, entry.owner, entry.description, entry.fence, entry.grantedAtMillis,
                bug == Bug.NO_EXPIRY ? -1 : Math.max(0, entry.expiresAt - now), (int) waiting, entry.hold);
    }

    /**
     * What an inspector sees of a read-write lock's or a semaphore's queue {@code key}: every granted
     * entry, in line order (which is grant order).
     */
    synchronized List<Holder> holdsOf(String key) {
        long now = System.nanoTime();
        settle(key, now);
        Deque<Entry> queue = queues.get(key);
        List<Holder> held = new ArrayList<>();
        if (queue != null) {
            for (Entry entry : queue) {
                if (entry.granted) {
                    held.add(holder(key, entry, now));
                }
            }
        }
        return held;
    }

    /**
     * An operator takes one hold of queue {@code key} back — the one granted with fence {@code fence}
     * (a hold's id): as {@link #revoke(String, String)} does for a lock's holder, its grant ends,
     * the fencing counter moves past it, the reason is kept for its next extension, its driver is
     * told, and waiters are woken; the other holds stay.
     *
     * @return the hold revoked, or null if no such hold is held (nothing changed)
     */
    Holder revokeHold(String key, long fence, String reason) {
        Holder holder;
        List<String> ended = new ArrayList<>();
        synchronized (this) {
            long now = System.nanoTime();
            settle(key, now);
            Deque<Entry> queue = queues.get(key);
            Entry found = queue == null ? null
                    : queue.stream().filter(e -> e.granted && e.fence == fence).findFirst().orElse(null);
            if (found == null) {
                return null;
            }
            holder = holder(key, found, now);
            List<Entry> taken = bug == Bug.REVOKE_TAKES_EVERY_HOLD
                    ? queue.stream().filter(e -> e.granted).toList() // the defect: every hold of the primitive goes
                    : List.of(found);
            for (Entry entry : taken) {
                queue.remove(entry);
                fenceCounter = Math.max(fenceCounter, entry.fence) + 1;
                revocations.put(entry.owner, reason);
                ended.add(entry.owner);
            }
            settle(key, now);
        }
        for (String owner : ended) {
            java.util.function.Consumer<String> listener = revocationListeners.remove(owner);
            if (listener != null && bug != Bug.HOLD_REVOKE_UNHEARD) { // the defect: the holder is not told
                listener.accept(reason);
            }
        }
        fire(key);
        return holder;
    }

    /** The held locks whose names start with {@code prefix}, ordered by name, at most {@code limit}. */
    synchronized List<Holder> holders(String prefix, int limit) {
        List<Holder> held = new ArrayList<>();
        for (String name : new java.util.TreeSet<>(queues.keySet())) {
            if (held.size() >= limit) {
                break;
            }
            if (name.startsWith(prefix) && MemoryDriver.isLock(name)) {
                Holder holder = inspect(name);
                if (holder != null) {
                    held.add(holder);
                }
            }
        }
        return held;
    }

    /**
     * An operator takes {@code name} back: its holder's grant ends, the fencing counter moves past
     * the holder's token (every later grant is above it), the reason is kept for the holder's next
     * extension, the holder's driver is told, and waiters are woken — all in one step.
     *
     * @return the holder revoked, or null if nobody held the lock (nothing changed)
     */
    Holder revoke(String name, String reason) {
        Holder holder;
        synchronized (this) {
            holder = inspect(name);
            Entry head = head(name);
            if (head == null || !head.granted) {
                return null;
            }
            queues.get(name).pollFirst();
            if (bug == Bug.REVOKE_REUSES_TOKEN) {
                reusedFence.put(name, head.fence); // the defect: the fence does not move, the next grant reuses it
            } else {
                fenceCounter = Math.max(fenceCounter, head.fence) + 1;
            }
            revocations.put(head.owner, reason);
            settle(name, System.nanoTime());
        }
        java.util.function.Consumer<String> listener = revocationListeners.remove(holder.owner());
        if (listener != null && bug != Bug.REVOKE_UNNOTICED) {
            listener.accept(reason);
        }
        fire(name);
        return holder;
    }

    /**
     * @return the reason of the revoke that ended {@code owner}'s grant, or null if none did (what
     *         an extension that finds the lock gone is answered with)
     */
    String revocation(String owner) {
        return bug == Bug.REVOKE_UNNOTICED ? null : revocations.get(owner);
    }

    boolean extend(String name, String owner, Duration leaseTime) {
        synchronized (this) {
            long now = System.nanoTime();
            settle(name, now);
            Entry held = heldBy(name, owner);
            if (held == null && bug == Bug.BLIND_EXTEND) {
                held = grantedHead(name); // the defect: whoever holds the lock is prolonged
            }
            if (held == null && bug == Bug.EXTEND_TAKES_FREE_LOCK && grantedHead(name) == null) {
                held = writeGrant(name, owner, leaseTime, "an extension", Hold.EXCLUSIVE); // the defect: a free lock taken again
            }
            if (held == null || bug == Bug.EXTEND_REPORTS_LOST) { // the defect: a held lease answered "not held"
                return false;
            }
            long expiresAt = now + honoured(leaseTime.toNanos());
            // Monotone, as the SPI asks: an extension never moves the expiry earlier (the defect does).
            if (bug == Bug.REORDERED_EXTENDS || expiresAt - held.expiresAt > 0) {
                held.expiresAt = expiresAt;
                scheduleExpiry(name, held.expiresAt);
            }
            return true;
        }
    }

    boolean release(String name, String owner) {
        boolean released;
        synchronized (this) {
            long now = System.nanoTime();
            settle(name, now);
            Entry held = heldBy(name, owner);
            if (held == null && bug == Bug.BLIND_DELETE) {
                held = grantedHead(name); // the defect: whoever holds the lock is deleted
            }
            released = held != null;
            if (released) {
                queues.get(name).remove(held);
                settle(name, now);
            }
        }
        fire(name);
        return released;
    }

    /** @return true if {@code owner} holds {@code name} now */
    synchronized boolean holds(String name, String owner) {
        settle(name, System.nanoTime());
        return heldBy(name, owner) != null;
    }

    /** @return {@code owner}'s granted entry of queue {@code name} (a lock's head, or any reader or permit), or null. Guarded by this. */
    private Entry heldBy(String name, String owner) {
        Deque<Entry> queue = queues.get(name);
        if (queue != null) {
            for (Entry entry : queue) {
                if (entry.granted && entry.owner.equals(owner)) {
                    return entry;
                }
            }
        }
        return null;
    }

    /** @return the head of queue {@code name} if it is granted, else null. Guarded by this. */
    private Entry grantedHead(String name) {
        Entry head = head(name);
        return head != null && head.granted ? head : null;
    }

    /**
     * For the TCK's lock probe: how long the holder of {@code name} keeps it, or null if nobody
     * holds it. A server that never expires (a session store) holds until told.
     */
    synchronized Duration heldFor(String name) {
        long now = System.nanoTime();
        settle(name, now);
        Entry head = head(name);
        if (head == null || !head.granted) {
            return null;
        }
        return bug == Bug.NO_EXPIRY ? io.distlock.tck.LockProbe.UNTIL_RELEASED : Duration.ofNanos(Math.max(0, head.expiresAt - now));
    }

    /**
     * A crash and a restart without the lock table: every lock is forgotten, no client is told.
     * The fencing counter is durable (the reference models a store whose fence survives), unless
     * the defect resets it.
     */
    void restart() {
        synchronized (this) {
            queues.clear();
            perNameCounters.clear();
            if (bug == Bug.FENCE_RESETS_ON_RESTART) {
                fenceCounter = 0;
            }
        }
        revocationListeners.clear();
        listeners.keySet().forEach(this::fire);
    }

    /**
     * The server's clock jumps forward by {@code delta}. The reference keeps time with
     * {@link System#nanoTime()}, a monotonic clock that no jump moves, so nothing changes; the
     * wall-clock defect ends every grant {@code delta} early.
     */
    void jumpClock(Duration delta) {
        if (bug != Bug.WALL_CLOCK_EXPIRY) {
            return;
        }
        List<String> changed = new ArrayList<>();
        synchronized (this) {
            long now = System.nanoTime();
            for (Map.Entry<String, Deque<Entry>> queue : queues.entrySet()) {
                Entry head = queue.getValue().peekFirst();
                if (head != null && head.granted) {
                    head.expiresAt -= delta.toNanos();
                    changed.add(queue.getKey());
                }
            }
            changed.forEach(name -> settle(name, now));
        }
        changed.forEach(this::fire);
    }

    /** Replica {@code replica} stops receiving this server's changes: it keeps the lock table of now. */
    synchronized void cutReplication(int replica) {
        laggingReplicas.computeIfAbsent(replica, r -> copy(queues));
    }

    /**
     * Fails over to replica {@code replica}: this server now has the replica's lock table (what a
     * lagging replica never received is gone, and nobody is told), and every replica follows it.
     */
    void promote(int replica) {
        List<String> names;
        synchronized (this) {
            Map<String, Deque<Entry>> lagging = laggingReplicas.get(replica);
            names = new ArrayList<>(queues.keySet());
            if (lagging != null) {
                queues.clear();
                queues.putAll(copy(lagging));
                names.addAll(queues.keySet());
                names.forEach(name -> settle(name, System.nanoTime()));
            }
            laggingReplicas.clear();
        }
        names.forEach(this::fire);
    }

    /** Every cut replication link heals: the replicas catch up. */
    synchronized void restoreReplication() {
        laggingReplicas.clear();
    }

    private static Map<String, Deque<Entry>> copy(Map<String, Deque<Entry>> table) {
        Map<String, Deque<Entry>> copy = new HashMap<>();
        table.forEach((name, queue) -> {
            Deque<Entry> entries = new ArrayDeque<>();
            for (Entry entry : queue) {
                Entry e = new Entry(entry.owner, entry.leaseNanos, entry.description, entry.hold);
                e.grantedAtMillis = entry.grantedAtMillis;
                e.granted = entry.granted;
                e.claimed = entry.claimed;
                e.expiresAt = entry.expiresAt;
                e.fence = entry.fence;
                entries.addLast(e);
            }
            copy.put(name, entries);
        });
        return copy;
    }

    /** Runs {@code task} later on the server's timer (for drivers that model a slow path). */
    static void later(Runnable task, long delay, TimeUnit unit) {
        Timer.INSTANCE.schedule(task, delay, unit);
    }

    void abandon(String name, String owner, boolean outcomeUnknown) {
        if (outcomeUnknown) {
            synchronized (this) {
                abandoned.add(owner);
            }
        }
        abandon(name, owner);
    }

    void abandon(String name, String owner) {
        synchronized (this) {
            Deque<Entry> queue = queues.get(name);
            if (queue == null) {
                return;
            }
            Entry entry = find(queue, owner);
            if (entry == null) {
                return;
            }
            queue.remove(entry);
            settle(name, System.nanoTime());
        }
        fire(name);
    }

    Watch watch(String name, Runnable onChange) {
        Set<Runnable> set = listeners.computeIfAbsent(name, k -> new CopyOnWriteArraySet<>());
        set.add(onChange);
        return () -> set.remove(onChange);
    }

    /**
     * Drops expired holders and grants, in line order, every request that may hold beside those
     * ahead of it: a lock or a writer only at the head, a reader while no writer is ahead of it
     * (granted or waiting: write preference), a permit among the first {@code permits}. Nobody jumps
     * a request that must wait. Guarded by this.
     *
     * @return true if anything changed
     */
    private boolean settle(String name, long now) {
        Deque<Entry> queue = queues.get(name);
        if (queue == null) {
            return false;
        }
        boolean changed = false;
        if (bug != Bug.NO_EXPIRY) {
            changed = queue.removeIf(entry -> entry.granted && now - entry.expiresAt >= 0
                    && !(bug == Bug.DEAD_PERMIT_KEPT && entry.hold.kind() == Hold.Kind.PERMIT));
        }
        if (queue.isEmpty()) {
            queues.remove(name);
            perNameCounters.remove(name);
            return changed;
        }
        if (bug == Bug.LIFO_WAITERS && !queue.peekFirst().granted && queue.size() > 1) {
            // The defect: the newest waiter jumps the queue.
            queue.addFirst(queue.pollLast());
        }
        int position = 0;
        boolean writerAhead = false;
        boolean writerHolds = false;
        long holding = queue.stream().filter(entry -> entry.granted).count();
        for (Entry entry : queue) {
            boolean alone = holding == (entry.granted ? 1 : 0);
            if (!admissible(entry, position, alone, writerAhead, writerHolds)) {
                if (bug == Bug.WRITER_STARVATION && entry.hold.kind() == Hold.Kind.WRITE) {
                    position++;
                    continue; // the defect: a waiting writer holds back no reader
                }
                break;
            }
            if (!entry.granted) {
                holding++;
                entry.granted = true;
                entry.fence = nextFence(name);
                entry.grantedAtMillis = System.currentTimeMillis();
                entry.expiresAt = now + honoured(entry.leaseNanos);
                scheduleExpiry(name, entry.expiresAt);
                changed = true;
            }
            Hold.Kind kind = entry.hold.kind();
            if (kind == Hold.Kind.EXCLUSIVE) {
                break;
            }
            writerAhead |= kind == Hold.Kind.WRITE;
            writerHolds |= kind == Hold.Kind.WRITE;
            position++;
        }
        return changed;
    }

    /**
     * @param alone whether no other entry of the queue holds (a writer granted at the head with readers
     *              behind it holding is what only {@link Bug#WRITER_STARVATION}'s queue can have)
     */
    private boolean admissible(Entry entry, int position, boolean alone, boolean writerAhead, boolean writerHolds) {
        switch (entry.hold.kind()) {
            case READ:
                // READER_BESIDE_WRITER's defect: a reader is let in beside a writer that holds.
                return !writerAhead || (bug == Bug.READER_BESIDE_WRITER && writerHolds);
            case PERMIT:
                return position < entry.hold.permits();
            default:
                return position == 0 && alone;
        }
    }

    /** When the first of the queue's grants ends: a busy answer's hint. */
    private static long firstExpiry(Deque<Entry> queue) {
        long first = Long.MAX_VALUE;
        long now = System.nanoTime();
        for (Entry entry : queue) {
            if (entry.granted) {
                first = Math.min(first, entry.expiresAt - now);
            }
        }
        return first == Long.MAX_VALUE ? now : now + first;
    }

    private long nextFence(String name) {
        Long reused = reusedFence.remove(name);
        if (reused != null) {
            return reused; // the defect of REVOKE_REUSES_TOKEN: the evicted holder's token again
        }
        if (bug == Bug.NON_MONOTONIC_FENCE) {
            // The defect: a counter kept with the lock's state, so it starts over whenever the lock is free.
            return perNameCounters.merge(name, 1L, Long::sum);
        }
        return ++fenceCounter;
    }

    private long honoured(long leaseNanos) {
        return bug == Bug.EARLY_EXPIRY ? leaseNanos / 2 : leaseNanos;
    }

    private Entry head(String name) {
        Deque<Entry> queue = queues.get(name);
        return queue == null ? null : queue.peekFirst();
    }

    private static Entry find(Deque<Entry> queue, String owner) {
        for (Entry entry : queue) {
            if (entry.owner.equals(owner)) {
                return entry;
            }
        }
        return null;
    }

    private void scheduleExpiry(String name, long at) {
        Timer.INSTANCE.schedule(() -> {
            boolean changed;
            synchronized (this) {
                changed = settle(name, System.nanoTime());
            }
            if (changed) {
                fire(name);
            }
        }, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void fire(String name) {
        Set<Runnable> set = listeners.get(name);
        if (set == null) {
            return;
        }
        List<Runnable> snapshot = new ArrayList<>(set);
        snapshot.forEach(Runnable::run);
    }

    /** For the driver: the grant's fencing token as the contract wants it. */
    static OptionalLong token(boolean fencing, long fence) {
        return fencing ? OptionalLong.of(fence) : OptionalLong.empty();
    }
}
