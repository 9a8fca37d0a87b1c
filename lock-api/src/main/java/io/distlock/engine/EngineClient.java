package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockEvent;
import io.distlock.LockException;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Validity;

import java.net.URI;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The engine's {@link LockClient}: one per {@link io.distlock.Locks#connect} call, wrapping one
 * backend driver. It owns the client's runtime (the keeper thread, a small I/O executor, the
 * clock; see {@link EngineRuntime}), the leases it holds, the cleanup queue ({@link Cleanup}), and
 * the translation of driver failures into the contract's exceptions.
 */
final class EngineClient implements LockClient, DriverContext {

    static final System.Logger LOG = System.getLogger("io.distlock");

    private final BackendDescriptor descriptor;
    private final LockOptions options;
    /** Null without a listener: then no event is even created (the bench's uncontended row pays nothing). */
    private final LockListener listener;
    private final String endpoint;
    private final EngineRuntime runtime;
    private final LeaseKeeper keeper;
    private final Cleanup cleanup;
    private final ConcurrentHashMap<String, EngineLease> held = new ConcurrentHashMap<>();
    private final Waiting waiting;
    /**
     * Owner tokens come from a DRBG seeded once from the system's entropy: as unpredictable as the
     * platform default (NativePRNG), without its global lock and /dev/urandom read per token.
     */
    private final SecureRandom random = ownerTokenSource();
    private final Object closeLock = new Object();
    private volatile LockDriver driver;
    private volatile boolean closed;
    /** Set by the driver while its connection cannot vouch for the server-side state (see DriverContext). */
    private volatile boolean suspended;
    /** False for a session-based store: the engine then ends leases on the server at the end of their validity. */
    private volatile boolean serverExpiresLeases = true;
    private volatile boolean lateWritesPossible;
    /** On a session store: the sessions that vouch for this client's leases, each for its own. */
    private final Sessions sessions = new Sessions();

    private EngineClient(BackendDescriptor descriptor, LockOptions options, String endpoint, EngineRuntime runtime) {
        this.descriptor = descriptor;
        this.options = options;
        this.listener = options.listener().orElse(null);
        this.endpoint = endpoint;
        this.runtime = runtime;
        this.keeper = new LeaseKeeper(this);
        this.cleanup = new Cleanup(this);
        this.waiting = new Waiting(options, descriptor.has(Feature.WAIT_NOTIFICATION));
    }

    static LockClient connect(LockBackend backend, URI uri, LockOptions options) {
        return connect(backend, uri, options, new EngineRuntime.Threads(backend.descriptor().scheme()));
    }

    /** With a given runtime: the engine's own tests run it on a manual clock. */
    static EngineClient connect(LockBackend backend, URI uri, LockOptions options, EngineRuntime runtime) {
        EngineClient client = new EngineClient(backend.descriptor(), options, Redaction.redact(uri.toString()), runtime);
        try {
            client.driver = Objects.requireNonNull(backend.connect(uri, options, client),
                    "backend " + backend.getClass().getName() + " returned no driver");
            client.serverExpiresLeases = client.driver.serverExpiresLeases();
            client.lateWritesPossible = client.driver.lateWritesPossible();
            client.waiting.connected(client.driver);
        } catch (RuntimeException e) {
            runtime.shutdown();
            throw client.translate(e, "connect to " + client.endpoint);
        }
        return client;
    }

    // ---- LockClient ----------------------------------------------------------------------

    @Override
    public DistributedLock lock(String name) {
        Arguments.name(name);
        checkOpen();
        return new EngineLock(this, name);
    }

    @Override
    public BackendDescriptor backend() {
        return descriptor;
    }

    @Override
    public void close() {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        waiting.wakeAll();
        List<Grant> grants = new ArrayList<>();
        for (EngineLease lease : new ArrayList<>(held.values())) {
            if (lease.releaseLocally()) {
                grants.add(lease.grant());
                emit(LockEvent.Type.RELEASED, lease.lockName(), lease.heldNanos(), null, null);
            }
        }
        try {
            // One batch (per node, as the driver sends it), bounded by one operation timeout overall.
            cleanup.closeBatch(grants, options.operationTimeout().toNanos());
        } finally {
            try {
                driver.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "closing the " + descriptor.scheme() + " driver failed", e);
            } finally {
                runtime.shutdown();
            }
        }
    }

    @Override
    public String toString() {
        return "LockClient[" + endpoint + (closed ? ", closed" : "") + "]";
    }

    // ---- DriverContext --------------------------------------------------------------------

    @Override
    public void leaseLost(Grant grant, Lease.LossReason reason) {
        Objects.requireNonNull(reason, "reason");
        EngineLease lease = held.get(grant.ownerToken());
        if (lease != null && lease.grant() == grant) {
            lease.markLost(reason);
        }
    }

    @Override
    public void connectionSuspended() {
        if (!suspended) {
            suspended = true;
            LOG.log(System.Logger.Level.WARNING, "connection to {0} suspended: its leases are not valid until it is"
                    + " restored with the same session", endpoint);
        }
    }

    @Override
    public void connectionRestored() {
        if (suspended) {
            suspended = false;
            LOG.log(System.Logger.Level.INFO, "connection to {0} restored with its session", endpoint);
        }
        cleanup.retryNow();
    }

    @Override
    public void sessionConfirmed(Object session, long sentAtNanos, Duration sessionTimeout) {
        Objects.requireNonNull(session, "session");
        sessions.confirmed(session, Validity.deadline(options, sentAtNanos, sessionTimeout));
    }

    @Override
    public void sessionEnded(Object session) {
        Objects.requireNonNull(session, "session");
        for (EngineLease lease : sessions.ended(session)) {
            lease.markLost(Lease.LossReason.BACKEND_LOST);
        }
    }

    // ---- what locks and leases use --------------------------------------------------------

    long nanoTime() {
        return runtime.nanoTime();
    }

    EngineRuntime runtime() {
        return runtime;
    }

    LockDriver driver() {
        return driver;
    }

    String endpoint() {
        return endpoint;
    }

    /**
     * How much of a lease's own validity the client can still vouch for: none while the connection
     * is suspended, and never past what the session that granted it can vouch for.
     *
     * @param session the lease's session, or null for a lease bound to none
     */
    long validityLeft(long leaseValidUntil, Sessions.Session session) {
        if (suspended) {
            return 0;
        }
        long now = runtime.nanoTime();
        long left = leaseValidUntil - now;
        return session == null ? left : Math.min(left, session.vouchesFor(now));
    }

    LockOptions options() {
        return options;
    }

    /**
     * Why a grant that came back could not be used (it was given back): this client cannot vouch for
     * it — its connection is suspended, or the session that granted it ended, is unknown, or was not
     * confirmed recently enough — or else it arrived with no validity left.
     *
     * @param roundTripNanos how long the attempt took
     * @return the exception to report: the outcome counts as unknown, never as contention
     */
    BackendUnavailableException unusable(Grant grant, long roundTripNanos) {
        if (suspended) {
            return new BackendUnavailableException(endpoint, "the connection to " + endpoint + " is suspended: the"
                    + " server granted the lock, but this client cannot vouch for a lease until it is restored (the"
                    + " grant was given back)", null);
        }
        if (grant.session() != null) {
            String refusal = sessions.refusal(grant.session(), runtime.nanoTime());
            if (refusal != null) {
                return new BackendUnavailableException(endpoint, endpoint + " granted '" + grant.name() + "', but "
                        + refusal + " (the grant was given back)", null);
            }
        }
        Duration leaseTime = grant.request().leaseTime();
        return new BackendUnavailableException(endpoint, "the grant of '" + grant.name() + "' from " + endpoint + " arrived after "
                + TimeUnit.NANOSECONDS.toMillis(roundTripNanos) + " ms, with no validity left of its lease of "
                + leaseTime.toMillis() + " ms (less the clock-drift allowance of " + options.clockDrift(leaseTime).toMillis()
                + " ms): the lock was free, but the lease could not be used and was given back; a slow server or"
                + " network, or a lease too short for it", null);
    }

    /** @return true while the driver reports its connection suspended */
    boolean suspended() {
        return suspended;
    }

    boolean closed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the distlock client for " + endpoint + " is closed");
        }
    }

    void require(Feature feature, String operation) {
        if (!descriptor.has(feature)) {
            throw new UnsupportedOperationException(operation + " needs feature " + feature
                    + ", which backend '" + descriptor.scheme() + "' does not declare");
        }
    }

    /** A lease time in range, and longer than this client's drift allowance (else every grant arrives already expired). */
    void checkLeaseTime(Duration leaseTime) {
        Arguments.leaseTime(leaseTime);
        Duration drift = options.clockDrift(leaseTime);
        if (drift.compareTo(leaseTime) >= 0) {
            throw new IllegalArgumentException("leaseTime " + leaseTime + " is not longer than the client's clock-drift"
                    + " allowance for it (" + drift + " = " + options.clockDriftFactor() + " × lease + "
                    + options.clockDriftMinimum() + "): no lease could ever be valid; use a longer lease or a smaller"
                    + " LockOptions.clockDrift");
        }
    }

    private static SecureRandom ownerTokenSource() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom(); // a JDK without DRBG (it is standard since 9): the platform default
        }
    }

    /** A fresh owner token: 128 bits from SecureRandom, never reused, never a constant. */
    String newOwnerToken() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * One attempt. A {@link BackendUnavailableException} the driver throws is an unknown outcome,
     * like {@link Attempt#unknown}; any other failure is thrown (the caller treats its outcome as
     * unknown for the cleanup). A call the client's close cut short is reported as such.
     */
    Attempt tryOnce(LockRequest request) {
        try {
            return Objects.requireNonNull(driver.tryAcquire(request), "driver returned no attempt");
        } catch (BackendUnavailableException e) {
            if (closed) {
                throw closedDuring("acquire '" + request.name() + "'", e);
            }
            return Attempt.unknown(e);
        } catch (RuntimeException e) {
            if (closed) {
                throw closedDuring("acquire '" + request.name() + "'", e);
            }
            throw translate(e, "acquire '" + request.name() + "' on " + endpoint);
        }
    }

    private IllegalStateException closedDuring(String operation, RuntimeException cause) {
        return new IllegalStateException("the distlock client for " + endpoint + " was closed during " + operation, cause);
    }

    /**
     * Turns a grant into a lease whose validity is counted from {@code requestStart}: the time
     * the acquire took is already spent, and the drift allowance is taken off. A grant whose
     * validity is already over is useless: it is released and null returned.
     */
    EngineLease admit(Grant grant, long requestStart) {
        Duration leaseTime = grant.request().leaseTime();
        long validUntil = Validity.deadline(options, requestStart, leaseTime);
        EngineLease lease = new EngineLease(this, grant, requestStart, validUntil);
        held.put(grant.ownerToken(), lease);
        if (grant.session() != null) {
            // Recorded under the same lock as the sweep of an ended session: a grant whose session
            // ended before this point is refused here, one whose session ends after it is swept.
            if (!sessions.bind(lease, grant.session())) {
                held.remove(grant.ownerToken(), lease);
                cleanup.now(new Cleanup.Release(grant, mootAt(requestStart, leaseTime)));
                return null;
            }
        }
        if (lease.validityLeft() <= 0) {
            forget(lease);
            cleanup.now(new Cleanup.Release(grant, mootAt(requestStart, leaseTime)));
            return null;
        }
        if (closed) {
            if (lease.releaseLocally()) {
                cleanup.now(new Cleanup.Release(grant, mootAt(requestStart, leaseTime)));
            }
            throw new IllegalStateException("the distlock client for " + endpoint + " was closed during the acquire");
        }
        if (!serverExpiresLeases) {
            // Nothing on the server ends this lease (a session-based store): the keeper does, at
            // the end of its validity, so that leaseTime bounds the hold on every backend.
            lease.watchExpiry();
            keeper.schedule(lease);
        }
        return lease;
    }

    /**
     * Ends a request that produced no lease. If its last attempt got no answer, the removal goes to
     * the cleanup queue at once (the backend is likely away, and the caller must not wait out
     * another timeout for it); otherwise it is tried on the caller's thread first, so that an
     * acquire that ends (a timeout, an interrupt) has withdrawn its request when it returns.
     *
     * @param outcomeUnknown  some attempt of the request had an unknown outcome: remove by owner token
     * @param lastAttemptAway the last attempt got no answer
     */
    void abandon(LockRequest request, boolean outcomeUnknown, long lastSent, boolean lastAttemptAway) {
        Cleanup.Task task = new Cleanup.Abandon(request, outcomeUnknown, mootAt(lastSent, request.leaseTime()),
                lateWritesPossible);
        if (lastAttemptAway || closed) {
            cleanup.soon(task);
        } else {
            cleanup.now(task);
        }
    }

    /** The lease was given back by its holder: remove it from the server now, or as soon as the server is back. */
    void release(EngineLease lease) {
        cleanup.now(new Cleanup.Release(lease.grant(), mootAt(lease)));
    }

    /**
     * A lease ended without a release (expired, revoked, lost with its session): whatever may still
     * hold the lock on the server for it goes, off the caller's and the keeper's thread.
     */
    void leaseEnded(EngineLease lease) {
        cleanup.soon(serverExpiresLeases ? new Cleanup.Release(lease.grant(), mootAt(lease)) : new Cleanup.LeaseEnd(lease.grant()));
    }

    /** @return true if a listener is set: only then are events worth creating */
    boolean listening() {
        return listener != null;
    }

    /**
     * Tells the listener, if any. Its failure is logged and otherwise ignored: a listener never
     * changes what a lock does, and an exception from it must not look like the lock's own.
     */
    void emit(LockEvent.Type type, String lockName, long nanos, Lease.LossReason reason, Throwable failure) {
        LockListener l = listener;
        if (l == null) {
            return;
        }
        try {
            l.onEvent(new LockEvent(type, descriptor.scheme(), lockName, Duration.ofNanos(Math.max(0, nanos)), reason, failure));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "lock listener " + l.getClass().getName() + " failed on a " + type
                    + " event of '" + lockName + "'; ignored", e);
        }
    }

    /** When a removal stops mattering: on a TTL store, once the latest write's lease time (and a write in flight) has passed. */
    private long mootAt(long lastSent, Duration leaseTime) {
        return serverExpiresLeases ? lastSent + leaseTime.toNanos() + options.operationTimeout().toNanos() : Cleanup.never();
    }

    private long mootAt(EngineLease lease) {
        return serverExpiresLeases ? lease.writesLiveUntil() + options.operationTimeout().toNanos() : Cleanup.never();
    }

    /**
     * One extension. A {@link BackendUnavailableException} the driver throws is an unknown outcome;
     * other failures are thrown.
     */
    ExtendOutcome extend(Grant grant, Duration leaseTime) {
        try {
            return Objects.requireNonNull(driver.extend(grant, leaseTime), "driver returned no outcome");
        } catch (BackendUnavailableException e) {
            return ExtendOutcome.unknown(e);
        } catch (RuntimeException e) {
            if (closed) {
                throw closedDuring("extend '" + grant.name() + "'", e);
            }
            throw translate(e, "extend the lease on '" + grant.name() + "' on " + endpoint);
        }
    }

    /** A renewal batch: every failure that is not a definite answer is unknown, for every lease in it. */
    List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        try {
            List<ExtendOutcome> results = driver.extendAll(renewals);
            if (results.size() != renewals.size()) {
                throw new LockException("driver answered " + results.size() + " renewals for " + renewals.size());
            }
            return results;
        } catch (RuntimeException e) {
            BackendUnavailableException cause = e instanceof BackendUnavailableException ? (BackendUnavailableException) e
                    : new BackendUnavailableException(endpoint, "renewing " + renewals.size() + " leases on " + endpoint
                    + " failed: " + e, e);
            List<ExtendOutcome> unknown = new ArrayList<>(renewals.size());
            for (int i = 0; i < renewals.size(); i++) {
                unknown.add(ExtendOutcome.unknown(cause));
            }
            return unknown;
        }
    }

    void forget(EngineLease lease) {
        held.remove(lease.grant().ownerToken(), lease);
        Sessions.Session session = lease.session();
        if (session != null) {
            sessions.unbind(lease, session);
        }
        keeper.forget(lease);
    }

    /** Hands the lease to the keeper, for renewal and for loss detection. */
    void watch(EngineLease lease) {
        keeper.schedule(lease);
    }

    /** A new acquire call on this client (see {@link Acquisition}). */
    Acquisition acquisition(String name, Duration leaseTime, long maxWaitNanos, boolean waits, long unknownGraceNanos) {
        return new Acquisition(this, waiting, name, leaseTime, maxWaitNanos, waits, unknownGraceNanos);
    }

    /** @return how many removals wait for the server (for tests and diagnostics) */
    int pendingCleanups() {
        return cleanup.pending();
    }

    /** @return true if some removal has not been confirmed by the server yet */
    boolean pendingRemovals() {
        return cleanup.pending() > 0;
    }

    /**
     * Keeps the contract's exceptions as they are and wraps anything else a driver lets escape,
     * so that users only ever catch {@link LockException} (and JDK misuse exceptions).
     */
    RuntimeException translate(RuntimeException e, String operation) {
        if (e instanceof LockException || e instanceof IllegalArgumentException || e instanceof IllegalStateException
                || e instanceof NullPointerException || e instanceof UnsupportedOperationException) {
            return e;
        }
        return new LockException("backend '" + descriptor.scheme() + "' failed to " + operation + ": " + e, e);
    }
}
