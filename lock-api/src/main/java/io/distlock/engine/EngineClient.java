package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.spi.DriverContext;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The engine's {@link LockClient}: one per {@link io.distlock.Locks#connect} call, wrapping one
 * backend driver. It puts the client's parts together and is their face to the user
 * ({@link LockClient}) and to the driver ({@link DriverContext}); it decides nothing of its own:
 *
 * <ul>
 *   <li>{@link ClientState} — what every part reads: options, endpoint, clock and executors
 *       ({@link EngineRuntime}), closed, suspended;</li>
 *   <li>{@link DriverCalls} — the driver's calls, and what their failures mean;</li>
 *   <li>{@link Leases} — the leases held, their sessions ({@link Sessions}), the keeper that renews and
 *       ends them ({@link LeaseKeeper}) and the one cleanup queue ({@link Cleanup});</li>
 *   <li>{@link Waiting} — how acquirers wait; {@link Events} — the listener; {@link OwnerTokens};</li>
 *   <li>{@link Inspection} — an operator's calls: who holds a lock, and taking it back.</li>
 * </ul>
 *
 * A lock handle ({@link EngineLock}) and each acquire call ({@link Acquisition}) get those parts
 * ({@link Parts}) and call them directly.
 */
final class EngineClient implements LockClient, DriverContext {

    static final System.Logger LOG = System.getLogger("io.distlock");

    private final ClientState state;
    private final DriverCalls calls;
    private final Leases leases;
    private final Waiting waiting;
    private final Parts parts;
    private final Inspection inspection;
    private final String owner;

    private EngineClient(BackendDescriptor descriptor, LockOptions options, String endpoint, EngineRuntime runtime) {
        this.state = new ClientState(descriptor, options, endpoint, runtime);
        Events events = new Events(options, descriptor.scheme());
        this.calls = new DriverCalls(state);
        this.leases = new Leases(state, events, calls);
        this.waiting = new Waiting(options, descriptor.has(Feature.WAIT_NOTIFICATION));
        OwnerTokens tokens = new OwnerTokens();
        this.parts = new Parts(state, events, calls, leases, waiting, tokens);
        this.inspection = new Inspection(state, calls, leases, events);
        this.owner = Owners.of(options.owner().orElse(null), tokens);
    }

    static LockClient connect(LockBackend backend, URI uri, LockOptions options) {
        return connect(backend, uri, options, new EngineRuntime.Threads(backend.descriptor().scheme()));
    }

    /** With a given runtime: the engine's own tests run it on a manual clock. */
    static EngineClient connect(LockBackend backend, URI uri, LockOptions options, EngineRuntime runtime) {
        EngineClient client = new EngineClient(backend.descriptor(), options, Redaction.redact(uri.toString()), runtime);
        try {
            LockDriver driver = Objects.requireNonNull(backend.connect(uri, options, client),
                    "backend " + backend.getClass().getName() + " returned no driver");
            client.calls.connected(driver);
            client.leases.connected(driver);
            client.waiting.connected(driver);
        } catch (RuntimeException e) {
            runtime.shutdown();
            throw client.calls.translate(e, "connect to " + client.state.endpoint());
        }
        return client;
    }

    // ---- LockClient ----------------------------------------------------------------------

    @Override
    public DistributedLock lock(String name) {
        Arguments.name(name);
        state.checkOpen();
        calls.driver().checkName(name);
        return new EngineLock(parts, name, Hold.EXCLUSIVE);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        Arguments.name(name);
        state.checkOpen();
        calls.driver().checkName(name);
        state.require(Feature.READ_WRITE, "LockClient.readWriteLock");
        return new EngineReadWriteLock(name, new EngineLock(parts, name, Hold.READ), new EngineLock(parts, name, Hold.WRITE), inspection);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        Arguments.name(name);
        Arguments.permits(permits);
        state.checkOpen();
        calls.driver().checkName(name);
        state.require(Feature.SEMAPHORE, "LockClient.semaphore");
        return new EngineSemaphore(new EngineLock(parts, name, Hold.permit(permits)), permits, inspection);
    }

    @Override
    public BackendDescriptor backend() {
        return state.descriptor();
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return inspection.inspect(name);
    }

    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        return inspection.holders(prefix, limit);
    }

    @Override
    public Optional<LockInfo> revoke(String name, String reason) {
        return inspection.revoke(name, reason);
    }

    @Override
    public void close() {
        if (!state.markClosed()) {
            return;
        }
        waiting.wakeAll();
        try {
            // One batch (per node, as the driver sends it), bounded by one operation timeout overall.
            leases.releaseAllOnClose();
        } finally {
            try {
                calls.driver().close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "closing the " + state.descriptor().scheme() + " driver failed", e);
            } finally {
                state.runtime().shutdown();
            }
        }
    }

    @Override
    public String toString() {
        return "LockClient[" + state.endpoint() + (state.closed() ? ", closed" : "") + "]";
    }

    // ---- DriverContext --------------------------------------------------------------------

    @Override
    public void leaseLost(Grant grant, Lease.LossReason reason) {
        leases.lost(grant, reason);
    }

    @Override
    public void leaseRevoked(String ownerToken, String reason) {
        leases.revoked(ownerToken, reason);
    }

    @Override
    public String owner() {
        return owner;
    }

    @Override
    public void connectionSuspended() {
        if (state.suspended(true)) {
            LOG.log(System.Logger.Level.WARNING, "connection to {0} suspended: its leases are not valid until it is"
                    + " restored with the same session", state.endpoint());
        }
    }

    @Override
    public void connectionRestored() {
        if (state.suspended(false)) {
            LOG.log(System.Logger.Level.INFO, "connection to {0} restored with its session", state.endpoint());
        }
        leases.retryCleanupNow();
    }

    @Override
    public void sessionConfirmed(Object session, long sentAtNanos, Duration sessionTimeout) {
        leases.sessionConfirmed(session, sentAtNanos, sessionTimeout);
    }

    @Override
    public void sessionEnded(Object session) {
        leases.sessionEnded(session);
    }

    @Override
    public void releaseWokeWaiters(String name, Duration roundTrip) {
        waiting.releaseWokeWaiters(name, roundTrip, state.nanoTime());
    }

    // ---- for the engine's own tests --------------------------------------------------------

    /** @return how many removals wait for the server */
    int pendingCleanups() {
        return leases.pendingCleanups();
    }

    /** @return how many names have a courtesy pause recorded ({@link Waiting#releaseWokeWaiters}) */
    int courtesies() {
        return waiting.courtesies();
    }

    /** @return true if a listener is set (without one, no event is even created) */
    boolean listening() {
        return parts.events().listening();
    }
}
