package io.distlock.shedlock;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A ShedLock {@link ExtensibleLockProvider} on any distlock backend: a ShedLock lock of name
 * {@code n} is the distlock lock {@code namePrefix + n}, held for a lease of {@code lockAtMostFor}.
 * Extensible, so ShedLock's {@code KeepAliveLockProvider} works on it.
 *
 * <p><b>lockAtLeastFor.</b> {@link SimpleLock#unlock()} before {@code lockAtLeastUntil} does not
 * free the lock at once: the lease is first made to last at least until then (extended if it
 * would end sooner; distlock never shortens a lease), and released at {@code lockAtLeastUntil} by
 * one daemon thread the provider owns. If the process dies in between, the lock stays held until
 * its lease ({@code lockAtMostFor}, or the longer time an extension set) ends on the server.
 * While the provider is open these releases wait their turn; {@link #close()} carries out every
 * pending one at once.
 *
 * <p><b>Lease times.</b> {@code lockAtMostFor} must be a lease time distlock accepts: at least
 * {@link DistributedLock#MIN_LEASE_TIME} (10 ms), at most {@link DistributedLock#MAX_LEASE_TIME},
 * and longer than the client's clock-drift allowance ({@link LockOptions#clockDrift(Duration)}).
 * A shorter one is refused with the core's {@link IllegalArgumentException}, not stretched: a lock
 * held longer than the "at most" it was asked for would be a silent change of the contract.
 *
 * <p><b>Failures.</b> Contention is {@link Optional#empty()}; a backend that could not be reached
 * or did not answer is a {@link BackendUnavailableException} thrown from {@link #lock}, never an
 * empty result (ShedLock then logs it and skips the run, rather than reporting the lock busy).
 * There are no fencing tokens on ShedLock's side: with every backend the promise is "at most one
 * run at a time while leases are honoured" (see the module README).
 *
 * <p>Thread-safe.
 */
public final class DistlockLockProvider implements ExtensibleLockProvider, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DistlockLockProvider.class.getName());

    private final LockClient client;
    private final boolean ownsClient;
    private final String namePrefix;
    private final ScheduledThreadPoolExecutor releases;
    /** Leases whose release waits for their lockAtLeastUntil; whoever removes one releases it. */
    private final Set<Lease> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * Connects to the backend of {@code uri} with {@link LockOptions#defaults()}; the provider owns
     * the client and closes it in {@link #close()}.
     *
     * @param uri a distlock URI, for example {@code redis://127.0.0.1:6379}
     * @throws NullPointerException                if {@code uri} is null
     * @throws IllegalArgumentException            if the URI is malformed
     * @throws io.distlock.NoSuchBackendException  if no installed backend handles the scheme
     * @throws BackendUnavailableException         if the backend cannot be reached within the connect timeout
     * @see Locks#connect(String)
     */
    public DistlockLockProvider(String uri) {
        this(uri, LockOptions.defaults(), "");
    }

    /**
     * Connects to the backend of {@code uri}; the provider owns the client and closes it in
     * {@link #close()}.
     *
     * @param uri        a distlock URI, for example {@code redis://127.0.0.1:6379}
     * @param options    timeouts, drift allowance, back-off
     * @param namePrefix put before every ShedLock lock name (for example {@code "job-lock:prod:"}); may be empty
     * @throws NullPointerException                if an argument is null
     * @throws IllegalArgumentException            if the URI is malformed
     * @throws io.distlock.NoSuchBackendException  if no installed backend handles the scheme
     * @throws BackendUnavailableException         if the backend cannot be reached within the connect timeout
     * @see Locks#connect(String, LockOptions)
     */
    public DistlockLockProvider(String uri, LockOptions options, String namePrefix) {
        this(connect(uri, options, namePrefix), true, namePrefix);
    }

    /**
     * Uses a client the caller owns: {@link #close()} does not close it.
     *
     * @param client a connected client
     * @throws NullPointerException if {@code client} is null
     */
    public DistlockLockProvider(LockClient client) {
        this(client, "");
    }

    /**
     * Uses a client the caller owns: {@link #close()} does not close it.
     *
     * @param client     a connected client
     * @param namePrefix put before every ShedLock lock name (for example {@code "job-lock:prod:"}); may be empty
     * @throws NullPointerException if an argument is null
     */
    public DistlockLockProvider(LockClient client, String namePrefix) {
        this(Objects.requireNonNull(client, "client"), false, namePrefix);
    }

    /** Checks every argument before connecting, so that a bad one leaves no client open. */
    private static LockClient connect(String uri, LockOptions options, String namePrefix) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(namePrefix, "namePrefix");
        return Locks.connect(uri, options);
    }

    private DistlockLockProvider(LockClient client, boolean ownsClient, String namePrefix) {
        this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix");
        this.client = client;
        this.ownsClient = ownsClient;
        this.releases = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "distlock-shedlock-release");
            thread.setDaemon(true);
            return thread;
        });
        this.releases.setRemoveOnCancelPolicy(true);
        this.releases.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Tries once to take the lock {@code namePrefix + lockConfiguration.getName()} for a lease of
     * {@code lockAtMostFor}.
     *
     * @param lockConfiguration the lock's name, {@code lockAtMostFor} and {@code lockAtLeastFor}
     * @return the lock, or empty if another holder has it
     * @throws NullPointerException        if {@code lockConfiguration} is null
     * @throws IllegalArgumentException    if the name is not a valid distlock lock name (the core's
     *                                     message), if {@code lockAtMostFor} is not a lease time the
     *                                     client accepts, or if {@code lockAtLeastFor} is longer than
     *                                     {@code lockAtMostFor}; nothing is held then
     * @throws IllegalStateException       if the provider or its client is closed
     * @throws BackendUnavailableException if the backend gave no definite answer (nothing is left held)
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        Objects.requireNonNull(lockConfiguration, "lockConfiguration");
        String name = namePrefix + lockConfiguration.getName();
        checkDurations(name, lockConfiguration.getLockAtMostFor(), lockConfiguration.getLockAtLeastFor());
        ensureOpen();
        DistributedLock lock = client.lock(name);
        Optional<Lease> lease = lock.tryAcquire(lockConfiguration.getLockAtMostFor());
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        // ShedLock counts lockAtLeastFor from the configuration's creation, on its wall clock; turn
        // that once into a deadline on the monotonic clock, which no clock jump moves.
        Duration untilAtLeast = Duration.between(ClockProvider.now(), lockConfiguration.getLockAtLeastUntil());
        return Optional.of(new HeldLock(lease.get(), System.nanoTime() + untilAtLeast.toNanos()));
    }

    /**
     * Stops the release thread, releasing at once every lock whose {@code lockAtLeastFor} release
     * was still pending, and closes the client if the provider opened it (which releases every
     * lease it still holds). Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        releases.shutdownNow();
        for (Lease lease : pending) {
            releaseIfPending(lease);
        }
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "DistlockLockProvider[" + client.backend().scheme() + ", prefix='" + namePrefix + "']";
    }

    private void releaseIfPending(Lease lease) {
        if (pending.remove(lease)) {
            lease.release();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the DistlockLockProvider is closed");
        }
    }

    private static void checkDurations(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        Objects.requireNonNull(lockAtMostFor, "lockAtMostFor");
        Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor");
        if (lockAtLeastFor.isNegative()) {
            throw new IllegalArgumentException("lockAtLeastFor of lock '" + name + "' is negative: " + lockAtLeastFor);
        }
        if (lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor " + lockAtLeastFor + " of lock '" + name
                    + "' is longer than its lockAtMostFor " + lockAtMostFor);
        }
    }

    /**
     * A lease time that keeps a lease valid for at least {@code r} from now: {@code r} plus a
     * tenth and 50 ms for the request and the drift allowance, within distlock's range.
     */
    private static Duration leaseTimeCovering(Duration r) {
        Duration leaseTime = r.plus(r.dividedBy(10)).plusMillis(50);
        return leaseTime.compareTo(DistributedLock.MAX_LEASE_TIME) > 0 ? DistributedLock.MAX_LEASE_TIME : leaseTime;
    }

    /** One ShedLock lock on one lease; invalid once unlocked or extended. */
    private final class HeldLock implements SimpleLock {
        private final Lease lease;
        private final long atLeastUntilNanos;
        private boolean valid = true;

        HeldLock(Lease lease, long atLeastUntilNanos) {
            this.lease = lease;
            this.atLeastUntilNanos = atLeastUntilNanos;
        }

        /**
         * Frees the lock, at once or at {@code lockAtLeastUntil} (see the class comment). Never
         * throws for an unreachable backend: distlock retries the removal in the background.
         *
         * @throws IllegalStateException if this lock was already unlocked or extended
         */
        @Override
        public synchronized void unlock() {
            invalidate("unlock");
            long r = atLeastUntilNanos - System.nanoTime();
            if (r <= 0 || closed) {
                lease.release();
                return;
            }
            Duration rest = Duration.ofNanos(r);
            if (lease.remaining().compareTo(rest) < 0 && !lastsAtLeast(rest)) {
                return;
            }
            pending.add(lease);
            try {
                releases.schedule(() -> releaseIfPending(lease), r, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) { // the provider was closed meanwhile
                releaseIfPending(lease);
            }
            if (closed) { // close() may have looked at the pending set before the add
                releaseIfPending(lease);
            }
        }

        /**
         * Extends the lease to cover {@code rest}; false if the lock is already gone (lost, or its
         * client closed). An extension that got no answer, or a backend without extensions, leaves
         * the lease as it was: the planned release still happens, the lease may end sooner.
         */
        private boolean lastsAtLeast(Duration rest) {
            try {
                if (!lease.extend(leaseTimeCovering(rest))) {
                    lease.release();
                    return false;
                }
            } catch (BackendUnavailableException | UnsupportedOperationException e) {
                // The lease keeps the validity it had: the lock may be freed before lockAtLeastUntil.
                LOG.log(System.Logger.Level.WARNING, "could not extend lock ''{0}'' to its lockAtLeastFor ({1} more);"
                        + " it is released as planned, but may end earlier: {2}", lease.lockName(), rest, e.getMessage());
            } catch (IllegalStateException e) {
                return false; // the client was closed, which released every lease it held
            }
            return true;
        }

        /**
         * Extends the lease to at least {@code lockAtMostFor} from now (never shortening it) and
         * returns the lock that now stands for it, with {@code lockAtLeastFor} counted from now.
         * This lock becomes invalid, whether the extension succeeded or found the lock gone.
         *
         * @return the new lock, or empty if the lease had expired or the lock is no longer held by it
         * @throws IllegalStateException         if this lock was already unlocked or extended
         * @throws IllegalArgumentException      if {@code lockAtLeastFor} is longer than {@code lockAtMostFor}
         *                                       or {@code lockAtMostFor} is not an accepted lease time
         *                                       (this lock stays valid)
         * @throws BackendUnavailableException   if the backend gave no definite answer (this lock stays
         *                                       valid, with the validity it had)
         * @throws UnsupportedOperationException if the backend lacks lease extension
         */
        @Override
        public synchronized Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            checkDurations(lease.lockName(), lockAtMostFor, lockAtLeastFor);
            if (!valid) {
                throw invalid("extend");
            }
            long start = System.nanoTime();
            boolean extended = lease.extend(lockAtMostFor);
            valid = false;
            return extended ? Optional.of(new HeldLock(lease, start + lockAtLeastFor.toNanos())) : Optional.empty();
        }

        private void invalidate(String operation) {
            if (!valid) {
                throw invalid(operation);
            }
            valid = false;
        }

        private IllegalStateException invalid(String operation) {
            return new IllegalStateException("cannot " + operation + " lock '" + lease.lockName()
                    + "': this SimpleLock was already unlocked or extended (use the one extend returned)");
        }

        @Override
        public String toString() {
            return "DistlockLockProvider.HeldLock[" + lease.lockName() + (valid ? "" : ", invalid") + "]";
        }
    }
}
