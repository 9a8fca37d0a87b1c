package io.distlock.spring;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.Locks;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Spring Integration {@code LockRegistry} backed by distlock: the backend is chosen by the URI
 * ({@code redis://}, {@code zookeeper://}, {@code etcd://}, ...), and every lock is distlock's
 * {@link LeaseLock} ({@link DistributedLock#asLock(Duration)}).
 *
 * <p><b>Keys.</b> A key is mapped to the lock name {@code prefix + String.valueOf(key)}; a name the
 * core does not accept (blank, too long, a control character) is refused by {@link #obtain} with the
 * core's {@link IllegalArgumentException}. {@link #obtain} returns the same lock object for the same
 * name until it is dropped from the cache by {@link #expireUnusedOlderThan(long)}; so the threads of
 * this process queue on one object, and only one of them asks the server at a time.
 *
 * <p><b>The locks</b> ({@link LeaseLock}): re-entrant for the holding thread, unlocked only by it;
 * each held with the registry's lease time and auto-renewed until the last unlock, so
 * {@link #renewLock(Object)} is needed only to lengthen one lease at once (it also sets the period
 * from then on); {@code tryLock} is {@code false} only for contention and throws
 * {@link BackendUnavailableException} for an unreachable backend; a lease lost while held makes the
 * last {@code unlock()} throw {@link LeaseLostException} (and refuses a re-entry), and one the client
 * cannot vouch for at that moment (a suspended connection) makes it throw
 * {@link io.distlock.LeaseUnconfirmedException}: its fate is unknown, not lost. Before a write that must not overlap
 * another holder's, check {@code lease().isValid()} or use the lease's fencing token
 * ({@link LeaseLock#lease()}).
 *
 * <p><b>Lifecycle.</b> A registry built from a URI owns its {@link LockClient} and closes it on
 * {@link #close()} / {@link #destroy()} (a Spring bean is destroyed with its context), which releases
 * every lease still held. A registry built on a given client leaves it open. Thread-safe.
 */
public final class DistlockLockRegistry
        implements ExpirableLockRegistry<LeaseLock>, RenewableLockRegistry<LeaseLock>, DisposableBean, AutoCloseable {

    /** The lease time of a registry that is not given one: renewed every 10 s while held. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

    /** How long a renewal that failed waits for the engine's notice of why the lease was lost. */
    private static final long LOSS_NOTICE_WAIT_MILLIS = 200;

    private final LockClient client;
    private final boolean ownsClient;
    private final String prefix;
    private final Duration leaseTime;
    private final ConcurrentMap<String, Cached> locks = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A cached lock and when it was last obtained (monotonic clock). */
    private record Cached(LeaseLock lock, long obtainedAt) { }

    /**
     * Connects to the backend the URI names, with no key prefix and {@link #DEFAULT_LEASE_TIME}; the
     * registry owns the client.
     *
     * @param uri a distlock URI, for example {@code redis://127.0.0.1:6379}
     * @throws io.distlock.NoSuchBackendException if no backend on the class or module path takes its scheme
     * @throws BackendUnavailableException       if the backend cannot be reached
     * @throws UnsupportedOperationException     if the backend lacks {@link Feature#AUTO_RENEWAL}
     */
    public DistlockLockRegistry(String uri) {
        this(uri, "", DEFAULT_LEASE_TIME);
    }

    /**
     * Connects to the backend the URI names; the registry owns the client.
     *
     * @param uri       a distlock URI, for example {@code zookeeper://127.0.0.1:2181}
     * @param prefix    put before every key's string form to make the lock name (may be empty)
     * @param leaseTime the lease time of every lock, renewed every third of it while held
     * @throws NullPointerException              if an argument is null
     * @throws IllegalArgumentException          if {@code leaseTime} is out of range, or the URI is malformed
     * @throws io.distlock.NoSuchBackendException if no backend on the class or module path takes its scheme
     * @throws BackendUnavailableException       if the backend cannot be reached
     * @throws UnsupportedOperationException     if the backend lacks {@link Feature#AUTO_RENEWAL}
     */
    public DistlockLockRegistry(String uri, String prefix, Duration leaseTime) {
        this(connect(uri, prefix, leaseTime), true, prefix, leaseTime);
    }

    /**
     * A registry on a client the caller keeps and closes.
     *
     * @param client    a client, left open by {@link #close()}
     * @param prefix    put before every key's string form to make the lock name (may be empty)
     * @param leaseTime the lease time of every lock, renewed every third of it while held
     * @throws NullPointerException          if an argument is null
     * @throws IllegalArgumentException      if {@code leaseTime} is out of range
     * @throws UnsupportedOperationException if the backend lacks {@link Feature#AUTO_RENEWAL}
     */
    public DistlockLockRegistry(LockClient client, String prefix, Duration leaseTime) {
        this(client, false, prefix, leaseTime);
    }

    private DistlockLockRegistry(LockClient client, boolean ownsClient, String prefix, Duration leaseTime) {
        this.client = Objects.requireNonNull(client, "client");
        this.ownsClient = ownsClient;
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.leaseTime = leaseTime;
        try {
            DistributedLock.checkLeaseTime(leaseTime);
            requireAutoRenewal(client);
        } catch (RuntimeException e) {
            if (ownsClient) {
                client.close();
            }
            throw e;
        }
    }

    private static LockClient connect(String uri, String prefix, Duration leaseTime) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(prefix, "prefix");
        DistributedLock.checkLeaseTime(leaseTime); // before connecting: bad arguments open no connection
        return Locks.connect(uri);
    }

    private static void requireAutoRenewal(LockClient client) {
        if (!client.backend().has(Feature.AUTO_RENEWAL)) {
            throw new UnsupportedOperationException("a LockRegistry keeps its locks by auto-renewal, which backend '"
                    + client.backend().scheme() + "' does not declare (" + Feature.AUTO_RENEWAL + ")");
        }
    }

    /** @return the client the locks are taken through */
    public LockClient client() {
        return client;
    }

    /** @return the lease time of every lock */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** @return the prefix put before every key (may be empty) */
    public String prefix() {
        return prefix;
    }

    /**
     * The lock for {@code key}: the same object for the same lock name while it stays cached.
     *
     * @param key any object; its {@code String.valueOf} after the prefix is the lock name
     * @return the lock
     * @throws NullPointerException     if {@code key} is null
     * @throws IllegalArgumentException if the lock name is not valid (blank, longer than
     *                                  {@link LockClient#MAX_NAME_LENGTH}, a control character)
     * @throws IllegalStateException    if the registry is closed
     */
    @Override
    public LeaseLock obtain(Object key) {
        Objects.requireNonNull(key, "lock key must not be null");
        checkOpen();
        String name = prefix + key;
        long now = System.nanoTime();
        return locks.compute(name, (n, cached) -> new Cached(cached != null ? cached.lock() : client.lock(n).asLock(leaseTime), now))
                .lock();
    }

    /**
     * Drops from the cache the locks last obtained more than {@code age} milliseconds ago that no
     * thread of this process holds or waits for. A later {@link #obtain} of such a key makes a new
     * lock object; a caller still holding a reference to the old one keeps a working lock, but one
     * that contends with the new object rather than queueing with it.
     *
     * @param age in milliseconds
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
        for (String name : locks.keySet()) {
            locks.computeIfPresent(name, (n, cached) ->
                    now - cached.obtainedAt() > ageNanos && !cached.lock().isLocked() ? null : cached);
        }
    }

    /** @return how many lock objects the cache holds */
    public int size() {
        return locks.size();
    }

    /**
     * Extends the current thread's lease on the lock of {@code key} by the registry's lease time
     * now, beyond the auto-renewal's schedule.
     *
     * @throws IllegalStateException       if the current thread does not hold that lock
     * @throws LeaseLostException          if the lease was found lost (the lock stays held locally
     *                                     until unlocked, which throws this again)
     * @throws BackendUnavailableException if no definite answer came; the lease is unchanged
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, leaseTime);
    }

    /**
     * Extends the current thread's lease on the lock of {@code key} so that it lasts at least
     * {@code ttl} from now ({@link Lease#extend(Duration)}: never shortened); the auto-renewal then
     * renews by {@code ttl}.
     *
     * @throws IllegalStateException       if the current thread does not hold that lock
     * @throws IllegalArgumentException    if {@code ttl} is out of range
     * @throws LeaseLostException          if the lease was found lost (the lock stays held locally
     *                                     until unlocked, which throws this again)
     * @throws BackendUnavailableException if no definite answer came; the lease is unchanged
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        LeaseLock lock = obtain(lockKey);
        Lease lease = lock.lease().orElseThrow(() -> new IllegalStateException("lock '" + lock.name()
                + "' is not held by thread " + Thread.currentThread().getName() + ": only its holder renews it"));
        if (!lease.extend(ttl)) {
            throw new LeaseLostException(lock.name(), lossOf(lease));
        }
    }

    private static Lease.LossReason lossOf(Lease lease) {
        try {
            return lease.lost().toCompletableFuture().get(LOSS_NOTICE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Lease.LossReason.EXPIRED;
        } catch (ExecutionException | TimeoutException e) {
            return Lease.LossReason.EXPIRED; // extend found the validity passed; the keeper has not said so yet
        }
    }

    /**
     * Closes the client if this registry opened it (releasing every lease still held), and empties
     * the cache. Idempotent.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            locks.clear();
            if (ownsClient) {
                client.close();
            }
        }
    }

    /** The same as {@link #close()}, for a Spring context. */
    @Override
    public void destroy() {
        close();
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the lock registry on " + client.backend().scheme() + ":// is closed");
        }
    }

    @Override
    public String toString() {
        return "DistlockLockRegistry[" + client.backend().scheme() + "://, prefix='" + prefix + "', leaseTime=" + leaseTime
                + ", cached=" + locks.size() + (closed.get() ? ", closed" : "") + "]";
    }
}
