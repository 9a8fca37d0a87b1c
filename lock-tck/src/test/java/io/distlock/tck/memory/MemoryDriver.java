package io.distlock.tck.memory;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockInfo;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Revoked;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One client's connection to a {@link MemoryServer}, over a {@link MemoryLink} (a network that can
 * fail): to a server of its own JVM, or through a {@link MemoryGateway} to one in another (the
 * {@link MemoryProtocol} either way). Each {@link Bug} that lives in a driver is switched on here.
 */
final class MemoryDriver implements LockDriver {

    private static final String CONSTANT_OWNER = "owner";
    /** How long a session store's session vouches for its grants: the memory server never expires one. */
    private static final Duration SESSION_NEVER_EXPIRES = Duration.ofDays(1);
    /** The fencing counter of {@link Bug#JVM_LOCAL_FENCE}: one per JVM, shared by its clients. */
    private static final AtomicLong JVM_LOCAL_FENCE = new AtomicLong();
    /** The round trip each extension costs under {@link Bug#PER_LEASE_RENEWAL}: a server 2 ms away. */
    private static final long PER_LEASE_ROUND_TRIP = TimeUnit.MILLISECONDS.toNanos(2);

    private final MemoryProtocol server;
    private final Bug bug;
    private final boolean fencing;
    private final DriverContext context;
    private final boolean sessionStore;
    /** The routes to the server: one link, or several that a call round-robins over (as jetcd over members). */
    private final List<MemoryLink> links;
    private final AtomicInteger nextLink = new AtomicInteger();
    /** Owners whose acquire was sent again past a link that did not answer: a late copy may still land. */
    private final Set<String> resent = ConcurrentHashMap.newKeySet();
    private final long timeoutNanos;
    private final String clientId = UUID.randomUUID().toString();
    private final Set<Runnable> watchers = ConcurrentHashMap.newKeySet();
    /** A watch was opened (the {@link Bug#HANGING_CLOSE} defect needs one). */
    private volatile boolean watchedOnce;
    /** Set by {@link #close()}: ends the {@link Bug#HANGING_ACQUIRE} defect's wait. */
    private volatile boolean closed;

    /** A session store's current session on the server (a new one once the server ended it). */
    private volatile long session;
    /**
     * The grants this driver has recorded: what {@link Bug#SWEEP_FORGETS_IN_FLIGHT} marks lost when
     * its session ends (an in-flight grant, recorded after the sweep, is not among them).
     */
    private final Set<Grant> recorded = ConcurrentHashMap.newKeySet();

    /** The authenticated user on a {@code secure} server, else null. */
    private final String principal;
    private final String endpoint;
    /** The credentials were refused, and the driver has {@link Bug#WRONG_PASSWORD_AS_UNAVAILABLE}. */
    private final boolean refusedAsUnavailable;

    MemoryDriver(MemoryProtocol server, Bug bug, boolean fencing, DriverContext context, boolean sessionStore,
                 List<MemoryLink> links, Duration operationTimeout, String principal, String endpoint,
                 boolean refusedAsUnavailable) {
        this.principal = principal;
        this.endpoint = endpoint;
        this.refusedAsUnavailable = refusedAsUnavailable;
        this.server = server;
        this.context = context;
        this.bug = bug;
        this.fencing = fencing;
        this.sessionStore = sessionStore;
        this.links = List.copyOf(links);
        this.timeoutNanos = operationTimeout.toNanos();
        server.connected(context);
        if (sessionStore) {
            links.forEach(link -> link.onDrop(context::connectionSuspended));
            openSession();
        }
        links.forEach(link -> link.onHeal(() -> {
            if (bug != Bug.NEVER_RESTORED) {
                context.connectionRestored();
            }
            watchers.forEach(Runnable::run); // a change may have gone unheard while the link was down
        }));
    }

    /** A new session, vouched for before any grant is bound to it. */
    private void openSession() {
        long opened = server.openSession(this::sessionEnded);
        context.sessionConfirmed(opened, System.nanoTime(), SESSION_NEVER_EXPIRES);
        session = opened;
    }

    /**
     * The server ended this client's session: everything it wrote is gone. The engine loses every
     * lease the session granted — those recorded and one on its way — unless the driver has
     * {@link Bug#SWEEP_FORGETS_IN_FLIGHT}, which binds its grants to no session and marks lost
     * only those it has recorded. The client goes on with a new session.
     */
    private void sessionEnded() {
        long ended = session;
        openSession();
        if (bug == Bug.SWEEP_FORGETS_IN_FLIGHT) {
            recorded.forEach(grant -> context.leaseLost(grant, Lease.LossReason.BACKEND_LOST));
        } else {
            context.sessionEnded(ended);
        }
    }

    private String owner(LockRequest request) {
        if (bug == Bug.CONSTANT_OWNER_TOKEN) {
            return CONSTANT_OWNER;
        }
        return bug == Bug.OWNER_BY_NAME ? clientId + ":" + request.name() : request.ownerToken();
    }

    private <T> T call(String what, Supplier<T> request) {
        return call(what, request, null);
    }

    /**
     * One link: the call goes over it. Several: calls take the current link, as a client stays with
     * the node it is connected to; an attempt waits a share of the operation timeout, and one that
     * gets no answer (its copy may still land when that link heals) or is refused is sent again
     * over the next link, which becomes the current one, until the timeout has passed.
     */
    private <T> T call(String what, Supplier<T> request, Runnable onResend) {
        if (refusedAsUnavailable) {
            // The defect: the server's refusal of the password is taken for no answer.
            throw new BackendUnavailableException(endpoint, "cannot reach " + endpoint + " (" + what + ")", null);
        }
        if (links.size() == 1) {
            return links.get(0).call(what, timeoutNanos, request);
        }
        long deadline = System.nanoTime() + timeoutNanos;
        long attempt = timeoutNanos / (links.size() + 1);
        for (int i = 0; ; i++) {
            int current = nextLink.get();
            MemoryLink link = links.get(Math.floorMod(current, links.size()));
            try {
                return link.call(what, Math.min(attempt, Math.max(1, deadline - System.nanoTime())), request);
            } catch (BackendUnavailableException e) {
                nextLink.compareAndSet(current, current + 1); // fail over to the next route
                if (System.nanoTime() - deadline >= 0 || i >= 3 * links.size()) {
                    throw e;
                }
                if (onResend != null) {
                    onResend.run();
                }
            }
        }
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        MemoryServer.Answer answer;
        long sent = System.nanoTime();
        if (bug == Bug.TIMEOUT_PER_READ) {
            // The defect: a first read (the connection's id, say) with a timeout of its own, and the
            // request's read after it with another.
            try {
                call("hello " + request.name(), () -> Boolean.TRUE);
            } catch (BackendUnavailableException firstReadTimedOut) {
                // carried on to the request, as a driver that reads its connection's id lazily does
            }
        }
        try {
            server.authorize(principal, request.name(), endpoint);
        } catch (io.distlock.AccessDeniedException e) {
            if (bug == Bug.NO_RIGHTS_AS_BUSY) {
                return Attempt.busy(); // the defect: a refusal taken for contention
            }
            throw e;
        }
        long on = session;
        try {
            answer = call("acquire " + request.name(), () -> {
                if (sessionStore) {
                    server.onSession(owner(request), on);
                }
                if (bug == Bug.NON_ATOMIC_PERMITS && request.hold().kind() == Hold.Kind.PERMIT) {
                    return permitInTwoTrips(request);
                }
                return server.tryAcquire(key(request), owner(request), request.leaseTime(), context.owner(), request.hold());
            }, () -> resent.add(owner(request)));
        } catch (BackendUnavailableException e) {
            if (bug == Bug.UNKNOWN_AS_BUSY) {
                return Attempt.busy(); // the defect: no answer taken for contention
            }
            throw e;
        }
        if (!answer.granted() && bug == Bug.HANGING_ACQUIRE) {
            // The defect: wait for a release notice this server never sends, with no deadline, through
            // interrupts; only the client's close lets the thread go.
            while (!closed) {
                java.util.concurrent.locks.LockSupport.parkNanos(this, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
        if (answer.granted() && bug == Bug.LATE_GRANT_AS_BUSY && System.nanoTime() - sent > request.leaseTime().toNanos()) {
            // The defect: a grant that came back too late to use is deleted and taken for contention.
            server.release(key(request), owner(request));
            return Attempt.busy();
        }
        if (answer.granted()) {
            // On a session store the grant is bound to the session it was written on.
            Object boundTo = sessionStore && bug != Bug.SWEEP_FORGETS_IN_FLIGHT ? on : null;
            Grant grant = new Grant(request, token(answer), null, boundTo);
            server.onRevoke(owner(request), reason -> {
                if (reason == null) {
                    context.leaseLost(grant, Lease.LossReason.BACKEND_LOST); // the server dropped it (a session expiry)
                } else {
                    context.leaseRevoked(grant.ownerToken(), reason); // an operator revoked it
                }
            });
            if (sessionStore) {
                recorded.add(grant);
            }
            return Attempt.granted(grant);
        }
        return Attempt.busy(answer.holderRemaining());
    }

    /** The grant's fencing token: the server's, unless a defect takes it from elsewhere or drops it. */
    private OptionalLong token(MemoryServer.Answer answer) {
        if (bug == Bug.JVM_LOCAL_FENCE) {
            return OptionalLong.of(JVM_LOCAL_FENCE.incrementAndGet()); // the defect: this JVM's counter, not the server's
        }
        return MemoryServer.token(fencing && bug != Bug.NO_FENCING_TOKEN, answer.fence());
    }

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        if (bug == Bug.PER_LEASE_RENEWAL) {
            LockSupport.parkNanos(PER_LEASE_ROUND_TRIP); // the defect: each lease's extension is a round trip of its own
        }
        String owner = owner(grant.request());
        if (bug == Bug.REORDERED_EXTENDS) {
            // The defect: the extension is applied later, on another "connection", and reported at once.
            boolean holds = call("extend " + grant.name(), () -> server.holds(key(grant.request()), owner));
            MemoryServer.later(() -> server.extend(key(grant.request()), owner, leaseTime), ThreadLocalRandom.current().nextLong(30),
                    TimeUnit.MILLISECONDS);
            return ExtendOutcome.of(holds);
        }
        try {
            return call("extend " + grant.name(), () -> {
                if (server.extend(key(grant.request()), owner, leaseTime)) {
                    return ExtendOutcome.extended();
                }
                String revoked = server.revocation(owner); // a revoke left its reason for the holder's next extension
                return revoked == null ? ExtendOutcome.lost() : ExtendOutcome.revoked(revoked);
            });
        } catch (BackendUnavailableException e) {
            if (bug == Bug.TIMEOUT_AS_LOST) {
                return ExtendOutcome.lost(); // the defect: no answer taken for "no longer yours"
            }
            throw e;
        }
    }

    /** One "round trip" for the whole batch, as a pipelining driver would send it. */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        server.renewed(renewals.size());
        return LockDriver.super.extendAll(renewals);
    }

    @Override
    public boolean release(Grant grant) {
        return cleanup("release " + grant.name(), () -> releaseOnServer(grant));
    }

    /**
     * Releases on the server; if a copy of the grant's acquire may still land (it was sent again
     * past a link that did not answer), also marks the owner withdrawn, so that the late copy takes
     * nothing — unless the driver has {@link Bug#LATE_COPY_AFTER_RELEASE}.
     */
    private boolean releaseOnServer(Grant grant) {
        recorded.remove(grant);
        String owner = owner(grant.request());
        server.forget(owner);
        boolean released = server.release(key(grant.request()), owner);
        if (resent.remove(owner) && bug != Bug.LATE_COPY_AFTER_RELEASE) {
            server.abandon(key(grant.request()), owner, true);
        }
        return released;
    }

    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        if (bug != Bug.LEAKED_ABANDON) {
            cleanup("abandon " + request.name(), () -> {
                server.abandon(key(request), owner(request), outcomeUnknown);
                return true;
            });
        }
    }

    private boolean cleanup(String what, Supplier<Boolean> request) {
        try {
            return call(what, request);
        } catch (BackendUnavailableException e) {
            if (bug == Bug.FORGETS_FAILED_CLEANUP) {
                return false; // the defect: a removal that never reached the server counts as done
            }
            throw e;
        }
    }

    /**
     * The server's queue for what {@code request} holds: the lock's name itself, or the name in the
     * key space of read-write locks or of semaphores. A lock name has no control character, so no
     * lock's queue is ever one of theirs.
     */
    static String key(LockRequest request) {
        switch (request.hold().kind()) {
            case READ:
            case WRITE:
                return READ_WRITE_SPACE + request.name();
            case PERMIT:
                return SEMAPHORE_SPACE + request.name();
            default:
                return request.name();
        }
    }

    private static final String READ_WRITE_SPACE = "\u0001rw:";
    private static final String SEMAPHORE_SPACE = "\u0001semaphore:";

    /** @return the primitive's name for a queue's key ({@link #key}) */
    static String nameOf(String key) {
        return key.startsWith("\u0001") ? key.substring(key.indexOf(':') + 1) : key;
    }

    /** @return false for the queues of read-write locks and semaphores, which inspection of locks does not list */
    static boolean isLock(String key) {
        return !key.startsWith("\u0001");
    }

    /**
     * {@link Bug#NON_ATOMIC_PERMITS}' acquire: the permits held are counted in one round trip and the
     * permit written in another, so two clients that counted the same free permit both take it.
     */
    private MemoryServer.Answer permitInTwoTrips(LockRequest request) {
        String key = key(request);
        if (server.permitsHeld(key) >= request.hold().permits()) {
            return new MemoryServer.Answer(false, 0, Duration.ZERO);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // the second round trip's way to the server
        return server.grantPermit(key, owner(request), request.leaseTime(), context.owner(), request.hold());
    }

    @Override
    public Watch watch(LockRequest request, Runnable onChange) {
        return watch(key(request), onChange);
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        if (bug == Bug.SILENT_NOTIFICATIONS) {
            return Watch.NONE; // the defect: declared, never fired
        }
        Runnable heard = () -> {
            if (links.stream().anyMatch(MemoryLink::isUp)) {
                onChange.run();
            }
        };
        watchers.add(onChange);
        watchedOnce = true;
        Watch watch = server.watch(name, heard);
        return () -> {
            watchers.remove(onChange);
            watch.close();
        };
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        server.authorize(principal, name, endpoint);
        return Optional.ofNullable(call("inspect " + name, () -> server.inspect(name))).map(this::info);
    }

    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        server.authorize(principal, prefix, endpoint);
        return call("list " + prefix, () -> server.holders(prefix, limit)).stream().map(this::info).toList();
    }

    @Override
    public Optional<Revoked> revoke(String name, String reason) {
        server.authorize(principal, name, endpoint);
        return Optional.ofNullable(call("revoke " + name, () -> server.revoke(name, reason)))
                .map(holder -> new Revoked(info(holder), holder.owner()));
    }

    @Override
    public List<LockInfo> holds(String name, io.distlock.Feature primitive) {
        server.authorize(principal, name, endpoint);
        String key = spaceOf(primitive) + name;
        List<LockInfo> holds = call("list the holds of " + key, () -> server.holdsOf(key)).stream().map(this::info).toList();
        return bug == Bug.ONE_HOLD_SHOWN && holds.size() > 1 ? holds.subList(0, 1) : holds; // the defect: a lock's one holder
    }

    @Override
    public Optional<Revoked> revokeHold(String name, io.distlock.Feature primitive, String holdId, String reason) {
        server.authorize(principal, name, endpoint);
        long fence;
        try {
            fence = Long.parseLong(holdId);
        } catch (NumberFormatException notOurs) {
            return Optional.empty(); // no hold of this server has such an id
        }
        String key = spaceOf(primitive) + name;
        return Optional.ofNullable(call("revoke " + key + " hold " + holdId, () -> server.revokeHold(key, fence, reason)))
                .map(holder -> new Revoked(info(holder), holder.owner()));
    }

    private static String spaceOf(io.distlock.Feature primitive) {
        return primitive == io.distlock.Feature.SEMAPHORE ? SEMAPHORE_SPACE : READ_WRITE_SPACE;
    }

    /** What the server showed, as the contract shows it: never the owner token. A hold's id is its grant's number. */
    private LockInfo info(MemoryServer.Holder holder) {
        LockInfo.Builder info = LockInfo.builder(nameOf(holder.name())).owner(holder.description())
                .acquiredAt(java.time.Instant.ofEpochMilli(holder.grantedAtMillis()), LockInfo.Clock.SERVER)
                .waiters(holder.waiters()).detail("memory queue of '" + nameOf(holder.name()) + "'"
                        + (isLock(holder.name()) ? "" : " (" + holder.hold().describe() + ")") + " at " + endpoint);
        if (fencing) {
            info.fencingToken(holder.fence());
        }
        switch (holder.hold().kind()) {
            case READ -> info.hold(LockInfo.Kind.READ, Long.toString(holder.fence()));
            case WRITE -> info.hold(LockInfo.Kind.WRITE, Long.toString(holder.fence()));
            case PERMIT -> info.hold(LockInfo.Kind.PERMIT, Long.toString(holder.fence())).permits(holder.hold().permits());
            default -> { }
        }
        if (holder.remainingNanos() >= 0 && !sessionStore) {
            info.remaining(Duration.ofNanos(holder.remainingNanos()));
        }
        return info.build();
    }

    @Override
    public boolean serverExpiresLeases() {
        return !sessionStore;
    }

    /** A session store's server keeps a grant until told: the engine tells at the end of the lease. */
    @Override
    public void leaseExpired(Grant grant) {
        cleanup("end the lease on " + grant.name(), () -> releaseOnServer(grant));
    }

    @Override
    public void close() {
        closed = true;
        if (bug == Bug.HANGING_CLOSE && watchedOnce) {
            // The defect's effect: the notification thread it waits for waits for it in turn. Parked
            // for good (a daemon thread of the TCK's, which reports the hang and goes on).
            while (true) {
                java.util.concurrent.locks.LockSupport.park(this);
            }
        }
        if (bug == Bug.SLOW_CLOSE) {
            try {
                call("goodbye", () -> Boolean.TRUE); // the defect: an operation timeout more on a silent link
            } catch (BackendUnavailableException unanswered) {
                // nothing more to do: the session ends on the server by itself
            }
        }
        server.disconnected(context);
    }
}
