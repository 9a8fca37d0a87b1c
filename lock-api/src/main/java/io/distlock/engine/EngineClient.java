package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.Grant;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;

import java.net.URI;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's {@link LockClient}: one per {@link io.distlock.Locks#connect} call, wrapping one
 * backend driver. It owns the client's only scheduler thread (see {@link LeaseKeeper}), the
 * leases it holds, and the translation of driver failures into the contract's exceptions.
 */
final class EngineClient implements LockClient, DriverContext {

    static final System.Logger LOG = System.getLogger("io.distlock");
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();

    private final BackendDescriptor descriptor;
    private final LockOptions options;
    private final String endpoint;
    private final ScheduledThreadPoolExecutor scheduler;
    private final LeaseKeeper keeper;
    private final ConcurrentHashMap<String, EngineLease> held = new ConcurrentHashMap<>();
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
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

    private EngineClient(BackendDescriptor descriptor, LockOptions options, String endpoint) {
        this.descriptor = descriptor;
        this.options = options;
        this.endpoint = endpoint;
        String threadName = "distlock-" + descriptor.scheme() + "-keeper-" + CLIENT_IDS.incrementAndGet();
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.keeper = new LeaseKeeper(this, scheduler);
    }

    static LockClient connect(LockBackend backend, URI uri, LockOptions options) {
        EngineClient client = new EngineClient(backend.descriptor(), options, Redaction.redact(uri.toString()));
        try {
            client.driver = Objects.requireNonNull(backend.connect(uri, options, client),
                    "backend " + backend.getClass().getName() + " returned no driver");
            client.serverExpiresLeases = client.driver.serverExpiresLeases();
        } catch (RuntimeException e) {
            client.scheduler.shutdownNow();
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
        waiters.forEach(Waiter::run);
        for (EngineLease lease : new ArrayList<>(held.values())) {
            try {
                lease.release();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not release lease on ''{0}'' while closing the client for {1};"
                        + " it expires on the server at the end of its lease time: {2}", lease.lockName(), endpoint, e.toString());
            }
        }
        try {
            driver.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the " + descriptor.scheme() + " driver failed", e);
        } finally {
            scheduler.shutdownNow();
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
    }

    // ---- what locks and leases use --------------------------------------------------------

    /** True while the driver reports its connection suspended: no lease of this client is valid then. */
    boolean suspended() {
        return suspended;
    }

    LockOptions options() {
        return options;
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

    Attempt tryOnce(LockRequest request) {
        try {
            return Objects.requireNonNull(driver.tryAcquire(request), "driver returned no attempt");
        } catch (RuntimeException e) {
            throw translate(e, "acquire '" + request.name() + "' on " + endpoint);
        }
    }

    /**
     * Turns a grant into a lease whose validity is counted from {@code requestStart}: the time
     * the acquire took is already spent, and the drift allowance is taken off. A grant whose
     * validity is already over is useless: it is released and null returned.
     */
    EngineLease admit(Grant grant, long requestStart) {
        Duration leaseTime = grant.request().leaseTime();
        long validUntil = requestStart + leaseTime.toNanos() - options.clockDrift(leaseTime).toNanos();
        if (validUntil - System.nanoTime() <= 0) {
            releaseQuietly(grant);
            return null;
        }
        EngineLease lease = new EngineLease(this, grant, requestStart, validUntil);
        held.put(grant.ownerToken(), lease);
        if (closed) {
            lease.releaseQuietly();
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

    /** Ends a request that produced no lease; failures are only logged (the server's TTL is the backstop). */
    void abandon(LockRequest request, boolean outcomeUnknown, Throwable primary) {
        try {
            driver.abandon(request, outcomeUnknown);
        } catch (RuntimeException e) {
            if (primary != null) {
                primary.addSuppressed(e);
            } else {
                LOG.log(System.Logger.Level.WARNING, "could not clean up an abandoned acquire of ''{0}'' on {1};"
                        + " anything left expires with its lease time: {2}", request.name(), endpoint, e.toString());
            }
        }
    }

    boolean extend(Grant grant, Duration leaseTime) {
        try {
            return driver.extend(grant, leaseTime);
        } catch (RuntimeException e) {
            throw translate(e, "extend the lease on '" + grant.name() + "' on " + endpoint);
        }
    }

    List<Boolean> extendAll(List<Renewal> renewals) {
        try {
            List<Boolean> results = driver.extendAll(renewals);
            if (results.size() != renewals.size()) {
                throw new LockException("driver answered " + results.size() + " renewals for " + renewals.size());
            }
            return results;
        } catch (RuntimeException e) {
            throw translate(e, "renew " + renewals.size() + " leases on " + endpoint);
        }
    }

    void release(Grant grant) {
        try {
            driver.release(grant);
        } catch (RuntimeException e) {
            throw translate(e, "release '" + grant.name() + "' on " + endpoint);
        }
    }

    void releaseQuietly(Grant grant) {
        try {
            release(grant);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not release ''{0}'' on {1}; it expires with its lease time: {2}",
                    grant.name(), endpoint, e.toString());
        }
    }

    /**
     * A lease ended without a release. For a driver whose server does not expire leases, tell it
     * to remove the lock, off the caller's and the keeper's thread (the keeper serves every lease).
     */
    void leaseEnded(Grant grant) {
        if (serverExpiresLeases) {
            return;
        }
        try {
            ForkJoinPool.commonPool().execute(() -> {
                try {
                    driver.leaseExpired(grant);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "could not end the expired lease on ''{0}'' on {1}: {2}",
                            grant.name(), endpoint, e.toString());
                }
            });
        } catch (RejectedExecutionException e) {
            driver.leaseExpired(grant);
        }
    }

    void forget(EngineLease lease) {
        held.remove(lease.grant().ownerToken(), lease);
    }

    /** Hands the lease to the keeper, for renewal and for loss detection. */
    void watch(EngineLease lease) {
        keeper.schedule(lease);
    }

    Waiter newWaiter(String name) {
        Waiter waiter = new Waiter();
        waiters.add(waiter);
        if (descriptor.has(Feature.WAIT_NOTIFICATION)) {
            try {
                waiter.watching(driver.watch(name, waiter));
            } catch (RuntimeException e) {
                waiters.remove(waiter);
                throw translate(e, "watch '" + name + "' on " + endpoint);
            }
        }
        return waiter;
    }

    void dropWaiter(Waiter waiter) {
        waiters.remove(waiter);
        waiter.close();
    }

    boolean waitsForNotifications() {
        return descriptor.has(Feature.WAIT_NOTIFICATION);
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
