package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Revoked;

import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A driver whose every answer the engine test decides, with a small model of the server: who
 * holds which name, until when (on the test's clock), and every call made. It stands in for no
 * backend: the engine's policy is what is tested against it; backends are verified by the TCK.
 */
final class ScriptedDriver implements LockDriver {

    static final BackendDescriptor DESCRIPTOR = new BackendDescriptor("scripted", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION));

    /** The same, with the operator's features: inspection and revocation. */
    static final BackendDescriptor OPERATOR_DESCRIPTOR = new BackendDescriptor("scripted", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION, Feature.INSPECTION,
                    Feature.REVOCATION));

    /** The same, with read-write locks and semaphores. */
    static final BackendDescriptor SHARED_HOLDS_DESCRIPTOR = new BackendDescriptor("scripted", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION, Feature.WAIT_NOTIFICATION,
                    Feature.READ_WRITE, Feature.SEMAPHORE));

    /** The same, with read-write locks, semaphores, inspection and revocation. */
    static final BackendDescriptor SHARED_OPERATOR_DESCRIPTOR = new BackendDescriptor("scripted", Guarantee.EFFICIENCY,
            EnumSet.of(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL, Feature.LOSS_NOTIFICATION, Feature.WAIT_NOTIFICATION,
                    Feature.READ_WRITE, Feature.SEMAPHORE, Feature.INSPECTION, Feature.REVOCATION));

    /** What the backend declares: {@link #DESCRIPTOR} unless set (before connecting). */
    volatile BackendDescriptor declared;
    /** Every request's hold, in the order the driver was asked ({@link #tryAcquire}). */
    final List<io.distlock.spi.Hold> holds = new CopyOnWriteArrayList<>();
    /** Every watch asked for, as the request's name and hold. */
    final List<String> watches = new CopyOnWriteArrayList<>();

    /** The engine's view of the server: holder token and expiry (test clock) per name. */
    record Held(String owner, long expiresAt) { }

    final List<String> calls = new CopyOnWriteArrayList<>();
    final Map<String, Held> server = new ConcurrentHashMap<>();
    final AtomicInteger extensionsInFlight = new AtomicInteger();
    final AtomicInteger maxExtensionsInFlight = new AtomicInteger();
    final AtomicLong fence = new AtomicLong();
    private final LongSupplier clock;
    private final boolean sessionStore;
    volatile DriverContext context;
    /** When set, the next attempts are answered by it instead of the server model. */
    volatile Function<LockRequest, Attempt> attempts;
    /** When set, every release that deletes a lock reports that it woke waiters, with this round trip. */
    volatile Duration releaseWakesWaiters;
    /** While true, every call fails as an unreachable server does. */
    volatile boolean away;
    /** When set, extend and extendAll wait for it (a slow server); the call is counted in flight meanwhile. */
    volatile CountDownLatch extendGate;
    /** What {@link #lateWritesPossible()} answers. */
    volatile boolean lateWrites;
    /** The session the model's grants are bound to (a session store's), or null for none. */
    volatile Object session;
    /** Thrown by {@link #release} once reached, if set (a release the server does not confirm). */
    volatile RuntimeException releaseFailure;
    /** Thrown by {@link #abandon} once reached, if set (a server that refuses the client). */
    volatile RuntimeException abandonRefusal;

    /** Whether the backend declares {@link Feature#INSPECTION} and {@link Feature#REVOCATION}. */
    private final boolean operator;

    ScriptedDriver(LongSupplier clock, boolean sessionStore) {
        this(clock, sessionStore, false);
    }

    ScriptedDriver(LongSupplier clock, boolean sessionStore, boolean operator) {
        this.clock = clock;
        this.sessionStore = sessionStore;
        this.operator = operator;
    }

    LockBackend backend() {
        return new LockBackend() {
            @Override
            public BackendDescriptor descriptor() {
                return declared != null ? declared : operator ? OPERATOR_DESCRIPTOR : DESCRIPTOR;
            }

            @Override
            public LockDriver connect(URI uri, LockOptions options, DriverContext ctx) {
                context = ctx;
                return ScriptedDriver.this;
            }
        };
    }

    /** Owner token → the reason of the revoke that ended its lease, as a server's marker keeps it. */
    final Map<String, String> revocations = new ConcurrentHashMap<>();

    /** Owner token of the last request for each name, as the server saw it. */
    private final Map<String, String> owners = new ConcurrentHashMap<>();

    String lastOwner(String name) {
        return owners.get(name);
    }

    private void reachable(String call) {
        calls.add(call);
        if (away) {
            throw new BackendUnavailableException("scripted:1", "scripted server unreachable (" + call + ")", null);
        }
    }

    long count(String prefix) {
        return calls.stream().filter(c -> c.startsWith(prefix)).count();
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        holds.add(request.hold());
        owners.put(request.name(), request.ownerToken());
        reachable("tryAcquire " + request.name());
        Function<LockRequest, Attempt> scripted = attempts;
        if (scripted != null) {
            return scripted.apply(request);
        }
        return model(request);
    }

    /** The server model's answer to an attempt (what an unscripted {@link #tryAcquire} gives). */
    Attempt model(LockRequest request) {
        long now = clock.getAsLong();
        Held held = server.get(request.name());
        if (held != null && held.expiresAt - now > 0 && !held.owner.equals(request.ownerToken())) {
            return Attempt.busy(Duration.ofNanos(held.expiresAt - now));
        }
        server.put(request.name(), new Held(request.ownerToken(), sessionStore ? Long.MAX_VALUE : now + request.leaseTime().toNanos()));
        return Attempt.granted(new Grant(request, OptionalLong.of(fence.incrementAndGet()), null, session));
    }

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        reachable("extend " + grant.name() + " " + leaseTime.toMillis());
        int inFlight = extensionsInFlight.incrementAndGet();
        maxExtensionsInFlight.accumulateAndGet(inFlight, Math::max);
        try {
            CountDownLatch gate = extendGate;
            if (gate != null) {
                gate.await();
            }
            return apply(grant, leaseTime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("scripted:1", "interrupted", e);
        } finally {
            extensionsInFlight.decrementAndGet();
        }
    }

    /** Compare-and-extend, monotone as the SPI asks; a revoked owner's is answered with the revocation's reason. */
    private ExtendOutcome apply(Grant grant, Duration leaseTime) {
        long now = clock.getAsLong();
        Held held = server.get(grant.name());
        if (held == null || !held.owner.equals(grant.ownerToken()) || held.expiresAt - now <= 0) {
            String revoked = revocations.get(grant.ownerToken());
            return revoked != null ? ExtendOutcome.revoked(revoked) : ExtendOutcome.lost();
        }
        long expiresAt = sessionStore ? Long.MAX_VALUE : now + leaseTime.toNanos();
        if (expiresAt - held.expiresAt > 0) {
            server.put(grant.name(), new Held(held.owner, expiresAt));
        }
        return ExtendOutcome.extended();
    }

    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        calls.add("extendAll " + renewals.size());
        return LockDriver.super.extendAll(renewals);
    }

    @Override
    public boolean release(Grant grant) {
        reachable("release " + grant.name());
        RuntimeException failure = releaseFailure;
        if (failure != null) {
            throw failure;
        }
        Held held = server.get(grant.name());
        boolean released = held != null && held.owner.equals(grant.ownerToken()) && server.remove(grant.name(), held);
        Duration roundTrip = releaseWakesWaiters;
        if (released && roundTrip != null) {
            context.releaseWokeWaiters(grant.name(), roundTrip);
        }
        return released;
    }

    @Override
    public List<Grant> releaseAll(List<Grant> grants) {
        calls.add("releaseAll " + grants.size());
        return LockDriver.super.releaseAll(grants);
    }

    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        reachable("abandon " + request.name() + (outcomeUnknown ? " unknown" : ""));
        RuntimeException refusal = abandonRefusal;
        if (refusal != null) {
            throw refusal;
        }
        Held held = server.get(request.name());
        if (held != null && held.owner.equals(request.ownerToken())) {
            server.remove(request.name(), held);
        }
    }

    @Override
    public boolean lateWritesPossible() {
        return lateWrites;
    }

    @Override
    public boolean serverExpiresLeases() {
        return !sessionStore;
    }

    @Override
    public void leaseExpired(Grant grant) {
        reachable("leaseExpired " + grant.name());
        Held held = server.get(grant.name());
        if (held != null && held.owner.equals(grant.ownerToken())) {
            server.remove(grant.name(), held);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        reachable("inspect " + name);
        Held held = server.get(name);
        return held == null || held.expiresAt - clock.getAsLong() <= 0 ? Optional.empty() : Optional.of(info(name));
    }

    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        reachable("holders " + prefix + " " + limit);
        return server.keySet().stream().filter(name -> name.startsWith(prefix)).sorted().map(this::info).toList();
    }

    @Override
    public Optional<Revoked> revoke(String name, String reason) {
        reachable("revoke " + name + " " + reason);
        Held held = server.remove(name);
        if (held == null) {
            return Optional.empty();
        }
        revocations.put(held.owner, reason);
        return Optional.of(new Revoked(info(name), held.owner));
    }

    /**
     * Hold id → owner token of each hold {@link #holds(String, Feature)} shows, as a test sets it up
     * (the model's server keeps one holder per name: holds of a primitive are scripted here).
     */
    final Map<String, String> holdOwners = new java.util.concurrent.ConcurrentSkipListMap<>();

    @Override
    public List<LockInfo> holds(String name, Feature primitive) {
        reachable("holds " + name + " " + primitive);
        return holdOwners.keySet().stream().map(id -> holdInfo(name, primitive, id)).toList();
    }

    @Override
    public Optional<Revoked> revokeHold(String name, Feature primitive, String holdId, String reason) {
        reachable("revokeHold " + name + " " + primitive + " " + holdId + " " + reason);
        String owner = holdOwners.remove(holdId);
        if (owner == null) {
            return Optional.empty();
        }
        revocations.put(owner, reason);
        return Optional.of(new Revoked(holdInfo(name, primitive, holdId), owner));
    }

    private LockInfo holdInfo(String name, Feature primitive, String id) {
        return primitive == Feature.SEMAPHORE
                ? LockInfo.builder(name).hold(LockInfo.Kind.PERMIT, id).permits(2).detail("scripted " + name).build()
                : LockInfo.builder(name).hold(LockInfo.Kind.READ, id).detail("scripted " + name).build();
    }

    private LockInfo info(String name) {
        return LockInfo.builder(name).owner(context.owner()).detail("scripted " + name).build();
    }

    /** @return true if the model's server holds {@code name} for {@code owner} now */
    boolean holds(String name, String owner) {
        Held held = server.get(name);
        return held != null && held.owner.equals(owner) && held.expiresAt - clock.getAsLong() > 0;
    }

    @Override
    public void close() {
        calls.add("close");
    }

    @Override
    public io.distlock.spi.Watch watch(LockRequest request, Runnable onChange) {
        watches.add(request.name() + " " + request.hold().kind());
        return io.distlock.spi.Watch.NONE;
    }
}
