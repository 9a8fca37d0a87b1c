package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.LockClient;
import io.distlock.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What one rule's test owns: its environment, its lock name, and every client, lease and thread
 * it creates, all closed by {@link #close()} so that no test leaks into the next; what it leaves for
 * the verdict; and the verification's hooks, with the checks that more than one {@link RuleGroup}
 * makes on them. A rule reaches its rig with {@link #of(RuleGroup) Rig.of(this)}.
 */
final class Rig implements AutoCloseable {

    final TestEnvironment env;
    final String rule;
    final String name;
    /** The verification under test: its hooks, which are protected, are within reach of the package's rules. */
    final LockVerification hooks;
    /** Expected weaknesses a passing rule found (4.1: an efficiency lock's stale write), for the verdict. */
    final List<String> findings = new CopyOnWriteArrayList<>();
    /** What a passing rule measured (the size of a contention history), for the verdict. */
    final List<String> notes = new CopyOnWriteArrayList<>();

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<Lease> leases = new CopyOnWriteArrayList<>();
    private final List<Waiter<?>> waiters = new CopyOnWriteArrayList<>();
    private final List<ChildClient> children = new CopyOnWriteArrayList<>();
    private volatile BackendDescriptor descriptor;

    Rig(LockVerification hooks, TestEnvironment env, String rule, String name) {
        this.hooks = hooks;
        this.env = env;
        this.rule = rule;
        this.name = name;
    }

    /**
     * The running rule's rig. Every rule group is implemented by {@link LockVerification} alone (they are
     * package-private), which opens a rig before each rule; an accessor on the groups would be public.
     *
     * @param group the verification running the rule ({@code this} in a rule)
     * @return its rig
     */
    static Rig of(RuleGroup group) {
        return Objects.requireNonNull(((LockVerification) group).rig, "no rule is running: LockVerification.openRule opens one");
    }

    /** @return a fresh client (one "process"), closed after the rule */
    LockClient client() {
        LockClient client = Objects.requireNonNull(hooks.newClient(), "newClient() returned null");
        clients.add(client);
        if (descriptor == null) {
            descriptor = Objects.requireNonNull(client.backend(), "LockClient.backend() returned null");
        }
        return client;
    }

    /** Tracks a client the rule opened itself (for example with {@code Locks.connect}). */
    LockClient track(LockClient client) {
        clients.add(client);
        return client;
    }

    /**
     * Starts a client in a child JVM, closed (ended) after the rule; it connects when first used or
     * {@linkplain ChildClient#connect() told to}, so its JVM starts while the rule does other work.
     */
    ChildClient launch(SeparateProcess how, String label) {
        ChildClient child = ChildClient.launch(how, env, this::msg, label);
        children.add(child);
        return child;
    }

    BackendDescriptor backend() {
        if (descriptor == null) {
            client();
        }
        return descriptor;
    }

    Optional<BackendDescriptor> descriptorSeen() {
        return Optional.ofNullable(descriptor);
    }

    Optional<Lease> track(Optional<Lease> lease) {
        lease.ifPresent(leases::add);
        return lease;
    }

    Lease track(Lease lease) {
        leases.add(lease);
        return lease;
    }

    /** @return the rule's message prefix applied to {@code text} */
    String msg(String text) {
        return "[" + rule + "] " + text;
    }

    /** Skips the rule, naming the feature, unless the backend declares {@code feature}. */
    void requireFeature(Feature feature) {
        BackendDescriptor backend = backend();
        assumeTrue(backend.has(feature), () -> VerdictExtension.LACKS_FEATURE + backend.scheme() + "' lacks feature " + feature);
    }

    /**
     * Starts a client in a child JVM from the {@code separateProcess()} hook, which every verification
     * must supply; it is ended after the rule.
     *
     * @param label what the rule calls the client
     * @return the child, starting (it connects when first used)
     * @throws AssertionError if the hook is absent, naming it
     */
    ChildClient launchSeparateProcess(String label) {
        SeparateProcess how = required(hooks.separateProcess(), "separateProcess(): every backend can be used from two"
                + " processes, and a fencing token must increase across them (one that increases only within a JVM passes"
                + " every rule whose clients share one)");
        return launch(how, label);
    }

    /** The revocation hook, which every verification must supply. */
    LeaseRevocation requireRevocation() {
        return required(hooks.leaseRevocation(), "leaseRevocation(): every backend can lose a lock on the server (an"
                + " operator, an eviction, a session expiry) and must show what its holder then does");
    }

    /** The partition hook, which every verification must supply. */
    ClientPartition requirePartition() {
        return required(hooks.clientPartition(), "clientPartition(): every backend can be cut off from its clients, and"
                + " must show that it neither forgets a removal nor reports an unreachable server as busy"
                + " (FaultProxy.partitionedClient builds one)");
    }

    /** A hook every verification must supply: without it the rule fails, naming the hook and why it is needed. */
    private <T> T required(Optional<T> hook, String hookAndWhy) {
        assertTrue(hook.isPresent(), msg("the verification of backend '" + backend().scheme() + "' supplies no " + hookAndWhy));
        return hook.get();
    }

    /** How long after a heal the lock may take to be free: the hand-off bound plus the client's reconnect. */
    Duration afterHeal(ClientPartition partition) {
        return env.handOffTimeout().plus(partition.reconnect());
    }

    /**
     * Waits until {@code client} has sent something since {@code sent} (its cleanup, or a reconnect),
     * so that a removal the partition hid has been attempted before the heal.
     */
    void awaitRetry(PartitionedClient client, long sent, String whose) {
        env.awaitUntil(msg("waiting for " + whose + " to try the server again while cut off"),
                requirePartition().operationTimeout().plus(env.defaultTimeout()), () -> client.requestsSent() > sent);
    }

    /** The lease's fencing token; fails naming it if a backend declaring FENCING_TOKENS gave none. */
    long token(Lease lease) {
        OptionalLong token = lease.fencingToken();
        assertTrue(token.isPresent(), msg("a lease of a backend declaring FENCING_TOKENS has no fencing token"));
        return token.getAsLong();
    }

    /** The fencing token of a grant to a client in a separate process; fails naming it if there is none. */
    long token(ChildClient.Grant grant, ChildClient child) {
        assertTrue(grant.token().isPresent(), msg("a lease of a backend declaring FENCING_TOKENS has no fencing token"
                + " (granted to " + child.label() + ")"));
        return grant.token().getAsLong();
    }

    /** A single attempt on the rule's lock, which the caller expects to be free. */
    Lease acquireNow(LockClient client, Duration leaseTime) {
        return acquireNow(client, name, leaseTime);
    }

    Lease acquireNow(LockClient client, String lockName, Duration leaseTime) {
        Optional<Lease> lease;
        try {
            lease = track(client.lock(lockName).tryAcquire(leaseTime));
        } catch (BackendUnavailableException unusable) {
            // A rule's setup, not what it checks: on a loaded machine a grant of a 300 ms lease can
            // come back with no validity left (given back, unavailable). A wait tries again, and ends
            // empty only on a definite "busy".
            try {
                lease = track(client.lock(lockName).tryAcquire(leaseTime, env.defaultTimeout()));
            } catch (BackendUnavailableException again) {
                again.addSuppressed(unusable);
                throw again;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unusable.addSuppressed(e);
                throw unusable;
            }
            notes.add("a single attempt on the free lock '" + lockName + "' was unavailable (" + unusable.getMessage()
                    + "); a wait then " + (lease.isPresent() ? "got it" : "found it busy"));
        }
        if (lease.isEmpty()) {
            throw new AssertionError(msg("a single attempt on the free lock '" + lockName + "' found it busy"));
        }
        return lease.get();
    }

    /** Waits up to {@code maxWait} for the rule's lock; fails with {@code why} if it does not come. */
    Lease acquireWithin(LockClient client, Duration leaseTime, Duration maxWait, String why) throws InterruptedException {
        Optional<Lease> lease = track(client.lock(name).tryAcquire(leaseTime, maxWait));
        if (lease.isEmpty()) {
            throw new AssertionError(msg(why + " (waited " + TestEnvironment.millis(maxWait) + ")"));
        }
        return lease.get();
    }

    /** Waits until {@code lease} reports itself invalid (its validity passed). */
    void awaitInvalid(Lease lease, String whose) {
        env.awaitUntil(msg("waiting for " + whose + " lease to expire"), env.shortLease().plus(env.defaultTimeout()), () -> !lease.isValid());
    }

    /** Work that may block and throw, run on a waiter thread. */
    @FunctionalInterface
    interface Action<T> {
        T run() throws Exception;
    }

    /** A call on the rule's own thread that may block until interrupted. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws InterruptedException;
    }

    /** A thread running one action, with its outcome and the moment it finished. */
    static final class Waiter<T> {
        final String label;
        final Thread thread;
        final CompletableFuture<T> result = new CompletableFuture<>();
        volatile long finishedAtNanos;

        private Waiter(String label, String rule, Action<T> action) {
            this.label = label;
            this.thread = new Thread(() -> {
                try {
                    T value = action.run();
                    finishedAtNanos = System.nanoTime();
                    result.complete(value);
                } catch (Throwable t) {
                    finishedAtNanos = System.nanoTime();
                    result.completeExceptionally(t);
                }
            }, "distlock-tck-" + rule + "-" + label);
            this.thread.setDaemon(true);
        }
    }

    <T> Waiter<T> start(String label, Action<T> action) {
        Waiter<T> waiter = new Waiter<>(label, rule, action);
        waiters.add(waiter);
        waiter.thread.start();
        return waiter;
    }

    /** Waits until the waiter's thread is parked (waiting for the lock) or has finished. */
    void awaitBlocked(Waiter<?> waiter) {
        env.awaitUntil(msg("waiting for " + waiter.label + " to block waiting for the lock"), () -> {
            Thread.State state = waiter.thread.getState();
            return waiter.result.isDone() || state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
        });
    }

    /**
     * @return the waiter's value
     * @throws AssertionError if it did not finish within {@code atMost}, or failed (the failure is the cause)
     */
    <T> T outcome(Waiter<T> waiter, Duration atMost) throws InterruptedException {
        try {
            return waiter.result.get(atMost.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(msg(waiter.label + " did not finish within " + TestEnvironment.millis(atMost)), e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof AssertionError) {
                throw (AssertionError) cause;
            }
            throw new AssertionError(msg(waiter.label + " failed: " + cause), cause);
        }
    }

    /**
     * @return what the waiter threw, or null if it returned normally (its value is then tracked if a lease)
     * @throws AssertionError if it did not finish within {@code atMost}
     */
    Throwable failure(Waiter<?> waiter, Duration atMost) throws InterruptedException {
        try {
            Object value = waiter.result.get(atMost.toNanos(), TimeUnit.NANOSECONDS);
            trackValue(value);
            return null;
        } catch (TimeoutException e) {
            throw new AssertionError(msg(waiter.label + " did not finish within " + TestEnvironment.millis(atMost)), e);
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private void trackValue(Object value) {
        if (value instanceof Lease) {
            leases.add((Lease) value);
        } else if (value instanceof Optional) {
            ((Optional<?>) value).filter(Lease.class::isInstance).map(Lease.class::cast).ifPresent(leases::add);
        }
    }

    /**
     * How long a client's {@code close()} may take before the TCK calls it hung: three times the
     * default timeout (15 s, scaled). {@code LockClient.close()} promises the client's operation
     * timeout plus a second whatever the server does (rule 4.20 times that bound under a
     * blackhole); a close past this generous bound is not slow but stuck — a deadlock, or a wait
     * for something that will never come — which would otherwise stall the whole run.
     */
    Duration closeHangBound() {
        return env.defaultTimeout().multipliedBy(3);
    }

    /**
     * Closes {@code client} on a thread of its own and waits, at most {@link #closeHangBound()}, for
     * it to return.
     *
     * @param whose what the rule calls the client, for the failure
     * @throws AssertionError if it did not return in time, naming the frames it is stuck in and the
     *                        threads the JVM finds deadlocked; its thread (a daemon) is left behind
     *                        so that the run goes on
     */
    void closeWithin(LockClient client, String whose) {
        Waiter<Boolean> closing = new Waiter<>("close-" + whose.replace(' ', '-'), rule, () -> {
            client.close();
            return true;
        });
        closing.thread.start();
        Duration bound = closeHangBound();
        try {
            closing.result.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(msg("close() of " + whose + " did not return within " + TestEnvironment.millis(bound)
                    + ": it never returned (LockClient.close() promises the operation timeout + 1 s, whatever the server"
                    + " does). It was stuck in: " + RuleBound.frames(closing.thread.getStackTrace()) + RuleBound.deadlocks()));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new AssertionError(msg("close() of " + whose + " failed: " + cause), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(msg("interrupted while waiting for close() of " + whose), e);
        }
    }

    /**
     * Stops waiter threads, releases every tracked lease, ends every child JVM, closes every client.
     *
     * @throws AssertionError only if a client's close never returned ({@link #closeWithin}); the rest
     *                        is best effort and never throws
     */
    @Override
    public void close() {
        for (Waiter<?> waiter : waiters) {
            waiter.thread.interrupt();
        }
        for (Waiter<?> waiter : waiters) {
            try {
                waiter.thread.join(env.defaultTimeout().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (waiter.result.isDone() && !waiter.result.isCompletedExceptionally()) {
                trackValue(waiter.result.join());
            }
        }
        for (Lease lease : leases) {
            try {
                lease.release();
            } catch (RuntimeException ignored) {
                // best effort: the lease expires on its own
            }
        }
        children.forEach(ChildClient::close); // each child's client releases what it holds
        AssertionError hung = null;
        for (LockClient client : clients) {
            try {
                closeWithin(client, "a client of the rule");
            } catch (AssertionError e) {
                if (hung == null) {
                    hung = e;
                } else {
                    hung.addSuppressed(e);
                }
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        if (hung != null) {
            throw hung;
        }
    }
}
