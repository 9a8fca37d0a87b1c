package io.distlock.hazelcast.internal;

import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.MapIsLockedCodec;
import com.hazelcast.client.impl.protocol.codec.MapTryLockCodec;
import com.hazelcast.client.impl.protocol.codec.MapUnlockCodec;
import com.hazelcast.internal.serialization.Data;
import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code hazelcast-map://}: {@code IMap.lock} on the entry named after the lock, with a lease the
 * member ends by itself as a backstop (the engine ends each lease on time: see
 * {@link #SERVER_LEASE_MARGIN_MILLIS}). The lock lives on the key's partition owner and its backup; there is no
 * consensus and no fence, so a split brain (or a member lost with the backup) can give it to two
 * holders: an EFFICIENCY lock.
 *
 * <p><b>Three holds, so that an extension can check its owner.</b> The map lock has no "extend if it
 * is mine": the only way to set a new lease is to lock again, which an owner does re-entrantly — and
 * which a non-owner does too when the lock is free (after a loss the holder was not told of). So an
 * acquire takes the lock {@link #HOLDS} times (pipelined tries, one round trip), and an extension
 * sends an unlock, a look at whether the lock is still held, and a try: the unlock succeeds only for
 * the owner (the member checks it; one hold goes, the others keep the lock held), and the try takes
 * the hold back with the new lease. A lock that was not the grant's any more fails the unlock: lost,
 * never silently taken again. Two holds would be enough for the check; the third absorbs the unlock
 * of an extension whose answers were lost and whose try never reached the member (see
 * {@link #HOLDS}). A release unlocks every hold, or, after an unknown outcome, until the member says
 * the owner holds nothing.
 *
 * <p><b>Bound to the connection, as a session is.</b> A member gives up the locks of a client that
 * has no connection to any member at its next client cleanup: every
 * {@code hazelcast.client.cleanup.period.millis} (10 s), once the client has been gone for
 * {@code hazelcast.client.cleanup.timeout.millis} — meant as 2 minutes, but the member reads the
 * value's seconds as milliseconds (120 ms; seen in 5.4 to 5.7): a client cannot know when that
 * happened. So when the client loses its last connection, every lease of it stops counting as valid
 * ({@link DriverContext#connectionSuspended()}); a second after a connection is back (a cleanup
 * decided just before it can still land), each held lock is checked on its member (the extension's
 * owner check, with the lease unchanged): one the member gave up is reported lost, and only then do
 * the others count again ({@link DriverContext#connectionRestored()}).
 */
public final class MapLockDriver implements LockDriver {

    private static final System.Logger LOG = System.getLogger(MapLockDriver.class.getName());

    /**
     * What the member is asked to hold on top of each lease. A member ends map-lock leases by a
     * scheduler that groups expiries into whole seconds and runs a group at its first entry's delay
     * rounded up to a second: an expiry runs up to a second before its lease is over (seen: a 300 ms
     * lease renewed every 100 ms ended after 1.9 s) or up to a second after. So the member's lease is
     * only a backstop, a second longer than the lease time, and the engine ends each lease itself at
     * the end of its validity ({@link #serverExpiresLeases()} is false): the member holds the lock at
     * least as long as the engine counts it valid, and a lease whose holder does nothing ends on time.
     */
    static final long SERVER_LEASE_MARGIN_MILLIS = 1_000;
    /** The latest the member ends a hold after its lease time: the margin, and a second of its scheduler's lateness. */
    private static final Duration BACKSTOP = Duration.ofMillis(SERVER_LEASE_MARGIN_MILLIS + 1_000);

    /**
     * How many times a grant takes the lock. An extension's owner check unlocks one hold and looks
     * whether the lock is still held, so a grant needs two. An extension held back in a network
     * silence can reach the member in part, later: its unlock without its try (the connection reset
     * after its first bytes were through), leaving one hold fewer. With two, the next extension's
     * unlock then freed the lock and reported a lease lost that had lived through the silence (TCK rule
     * 4.21 caught it under load, once in a clean-clone CI run); the third hold absorbs such an unlock,
     * and the extension after one that got no answer takes one more hold back ({@link Hold#restore}).
     */
    static final int HOLDS = 3;
    /** Holds an abandon undoes at most (acquires and extensions whose answers were lost can leave extra ones). */
    private static final int MAX_UNLOCKS = 64;
    /** Leases of one renewal tick whose extensions are sent before their answers are awaited (three or four messages each). */
    private static final int RENEWALS_IN_FLIGHT = 300;
    /** How often the holds are checked again while the leases are suspended and the client is connected. */
    private static final long RECHECK_MILLIS = 250;
    /**
     * How long after a reconnect the holds are first checked: a member's client cleanup asks the
     * cluster whether the client is connected, then gives its locks up, so a cleanup that asked just
     * before the reconnect can give them up just after it (a check made then would find them still held).
     */
    private static final long RECONNECT_GRACE_MILLIS = 1_000;

    /** A grant's hold on the server: its owner, key and partition, and the latest expiry any extension asked for. */
    static final class Hold {
        final Owners.Owner owner;
        final Data key;
        final int partition;
        /** On {@link System#nanoTime()}: no extension asks for less, so that none moves the expiry earlier. */
        final AtomicLong expiresAt;

        /**
         * An extension of this hold got no answer: its unlock may reach the member without its try, so
         * the next extension takes one hold more than it gives back. Only read and written by the call
         * that has entered the hold.
         */
        boolean restore;

        /** One call of this driver is working on the hold: the calls of one hold never interleave. */
        private boolean busy;

        Hold(Owners.Owner owner, Data key, int partition, long expiresAt) {
            this.owner = owner;
            this.key = key;
            this.partition = partition;
            this.expiresAt = new AtomicLong(expiresAt);
        }

        /**
         * Takes the hold for one call (an extension, a release, a check), waiting for the call on it
         * before to end. Extensions interleaved would unlock holds before any takes one back, and could
         * free the lock in between. Not interruptible: the call before ends within the
         * operation timeout.
         */
        synchronized void enter() {
            boolean interrupted = false;
            while (busy) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            busy = true;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        /** @return true if the hold was free and is now taken, as by {@link #enter}; false at once if not */
        synchronized boolean tryEnter() {
            if (busy) {
                return false;
            }
            busy = true;
            return true;
        }

        synchronized void exit() {
            busy = false;
            notifyAll();
        }
    }

    /**
     * An extension's messages to the hold's partition, sent ({@link #send}); their answers to come. The
     * tries are one, or two when the hold is restored ({@link Hold#restore}).
     */
    private record Rehold(Hold hold, CompletableFuture<ClientMessage> unlock, CompletableFuture<ClientMessage> stillLocked,
                          List<CompletableFuture<ClientMessage>> relocks, long deadline) {
    }

    private final HazelcastConnection connection;
    private final DriverContext context;
    private final String map;
    private final Owners owners = new Owners();
    private final AtomicLong references = new AtomicLong(1);
    /** The grants this client holds, by owner token: what a reconnect checks. */
    private final Map<String, Grant> held = new ConcurrentHashMap<>();
    /** Guards {@link #disconnections}, {@link #suspended} and the suspend/restore calls, so that a restore never follows a newer cut. */
    private final Object suspension = new Object();
    /** How many times the client has lost its last connection. */
    private long disconnections;
    /** The leases are suspended: the client lost its last connection, and its holds have not been checked since. */
    private boolean suspended;
    /** Set by {@link #close()}: the disconnection that follows is the client's own. */
    private volatile boolean closing;
    /** When the client was last connected again, on {@link System#nanoTime()}. */
    private long reconnectedAt = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(RECONNECT_GRACE_MILLIS);
    /** Checks the holds once the client is connected again (Hazelcast's event thread must not wait for the members). */
    private final ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "distlock-hazelcast-map-reconnect");
        thread.setDaemon(true);
        return thread;
    });

    private MapLockDriver(HazelcastConnection connection, DriverContext context) {
        this.connection = connection;
        this.context = context;
        this.map = connection.endpoint().map();
    }

    /**
     * @param endpoint the cluster
     * @param options  the client's options
     * @param context  the engine: told when the client's connection is lost and back, and of a lock the
     *                 members gave up meanwhile
     * @return the driver
     * @throws IllegalArgumentException    if credentials are given (Community has no client authentication)
     * @throws BackendUnavailableException if no member let the client in within the connect timeout
     */
    public static MapLockDriver connect(HazelcastEndpoint endpoint, LockOptions options, DriverContext context) {
        MapLockDriver driver = new MapLockDriver(HazelcastConnection.open(endpoint, options), context);
        driver.connection.onConnectionChange(driver::disconnected, driver::reconnected);
        // Besides the reconnect event: a check that got no answer, or a reconnect event missed, is made
        // again while the leases stay suspended and the client is connected.
        driver.checker.scheduleWithFixedDelay(driver::recheck, RECHECK_MILLIS, RECHECK_MILLIS, TimeUnit.MILLISECONDS);
        return driver;
    }

    private void disconnected() {
        if (closing) {
            return; // the client's own shutdown, not a lost connection
        }
        synchronized (suspension) {
            disconnections++;
            suspended = true;
            context.connectionSuspended();
        }
        LOG.log(System.Logger.Level.WARNING, () -> "no connection to any member of " + connection.endpoint()
                + ": this client's map-lock leases do not count until its holds are checked on its return");
    }

    private void reconnected() {
        synchronized (suspension) {
            reconnectedAt = System.nanoTime();
        }
        try {
            checker.schedule(this::recheck, RECONNECT_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed: nothing to restore
        }
    }

    private void recheck() {
        long cut;
        synchronized (suspension) {
            if (!suspended || !connection.connected()
                    || System.nanoTime() - reconnectedAt < TimeUnit.MILLISECONDS.toNanos(RECONNECT_GRACE_MILLIS)) {
                return;
            }
            cut = disconnections;
        }
        checkHolds(cut);
    }

    /**
     * After the reconnect that followed cut number {@code cut}: every held lock checked on its member,
     * those given up reported lost, then the leases count again — unless the client was cut off again
     * meanwhile, or a check got no answer: the leases stay suspended, and {@link #recheck} tries again.
     */
    private void checkHolds(long cut) {
        int given = 0;
        List<Grant> grants = new ArrayList<>(held.values());
        for (int from = 0; from < grants.size(); from += RENEWALS_IN_FLIGHT) {
            if (cutSince(cut)) {
                return;
            }
            // The extension's owner check with the lease unchanged (a zero lease time: each hold keeps
            // the later expiry it has), sent together as a renewal tick's are.
            List<Renewal> checks = new ArrayList<>();
            for (Grant grant : grants.subList(from, Math.min(grants.size(), from + RENEWALS_IN_FLIGHT))) {
                if (held.get(grant.ownerToken()) == grant) { // not released meanwhile
                    checks.add(new Renewal(grant, Duration.ZERO));
                }
            }
            List<ExtendOutcome> outcomes;
            try {
                outcomes = extendAll(checks);
            } catch (RuntimeException e) {
                return; // the client is shutting down: suspended still
            }
            for (int i = 0; i < checks.size(); i++) {
                if (outcomes.get(i).isUnknown()) {
                    return; // could not tell (no answer): suspended still, and recheck tries again
                }
                if (!outcomes.get(i).isExtended()) {
                    given++;
                    context.leaseLost(checks.get(i).grant(), Lease.LossReason.BACKEND_LOST);
                }
            }
        }
        synchronized (suspension) {
            if (disconnections != cut || !suspended) {
                return;
            }
            suspended = false;
            context.connectionRestored();
        }
        int lost = given;
        LOG.log(System.Logger.Level.INFO, () -> "connected to " + connection.endpoint() + " again: "
                + (lost == 0 ? "every hold" : "all but " + lost + " hold(s), given up by the members meanwhile,")
                + " still this client's; its leases count again");
    }

    private boolean cutSince(long cut) {
        synchronized (suspension) {
            return disconnections != cut;
        }
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        Owners.Owner owner = owners.of(request.ownerToken());
        Data key = connection.toData(request.name());
        int partition = connection.partitionOf(key);
        long leaseMillis = Math.max(1, request.leaseTime().toMillis());
        long sentAt = System.nanoTime();
        int taken;
        try {
            if (owner.uncertain) {
                // An earlier attempt of this request got no answer, and its holds may have landed: none
                // is counted on, all are given back first (re-entered, they would outlast the release).
                unlockAll(key, partition, owner);
            }
            long deadline = connection.deadline();
            List<CompletableFuture<ClientMessage>> tries = new ArrayList<>(HOLDS);
            for (int i = 0; i < HOLDS; i++) {
                tries.add(connection.send(tryLock(key, owner, leaseMillis), map, partition));
            }
            taken = taken(tries, deadline);
        } catch (RuntimeException e) {
            owner.uncertain = true;
            throw e;
        }
        if (taken == HOLDS) {
            Grant grant = new Grant(request, OptionalLong.empty(),
                    new Hold(owner, key, partition, sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis)));
            held.put(request.ownerToken(), grant);
            return Attempt.granted(grant);
        }
        if (taken > 0) {
            // The holder left between the tries: too few holds for the extension's check to keep the
            // lock; give them back and try again later.
            try {
                unlockTimes(key, partition, owner, taken);
            } catch (RuntimeException e) {
                owner.uncertain = true;
                throw e;
            }
        }
        owners.forget(request.ownerToken());
        return Attempt.busy();
    }

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        Hold hold = (Hold) grant.handle();
        hold.enter();
        try {
            boolean mine = rehold(hold, System.nanoTime() + leaseTime.toNanos());
            if (!mine) {
                held.remove(grant.ownerToken(), grant);
            }
            return ExtendOutcome.of(mine);
        } finally {
            hold.exit();
        }
    }

    /**
     * A renewal tick's extensions sent together, {@link #RENEWALS_IN_FLIGHT} leases unanswered at a
     * time ({@link HazelcastConnection#pipelined}): a tick of many leases costs the members' work on
     * them, not a round trip per lease (one after another, 10,000 leases took about 5 s here, close to
     * a 6 s lease). A lease another call is working on (a release, an extension of the application's)
     * is extended on its own after the others, once that call is done.
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        ExtendOutcome[] outcomes = new ExtendOutcome[renewals.size()];
        List<Integer> busy = new ArrayList<>();
        RuntimeException failure = null;
        try {
            HazelcastConnection.pipelined(renewals.size(), RENEWALS_IN_FLIGHT, i -> {
                Hold hold = (Hold) renewals.get(i).grant().handle();
                if (!hold.tryEnter()) {
                    busy.add(i);
                    return null;
                }
                try {
                    return send(hold, System.nanoTime() + renewals.get(i).leaseTime().toNanos());
                } catch (RuntimeException e) {
                    hold.exit();
                    throw e;
                }
            }, (rehold, i) -> {
                Grant grant = renewals.get(i).grant();
                try {
                    boolean mine = answered(rehold);
                    if (!mine) {
                        held.remove(grant.ownerToken(), grant);
                    }
                    outcomes[i] = ExtendOutcome.of(mine);
                } catch (BackendUnavailableException e) {
                    outcomes[i] = ExtendOutcome.unknown(e);
                } finally {
                    rehold.hold().exit();
                }
            });
        } catch (RuntimeException e) {
            failure = e;
        }
        if (failure instanceof BackendUnavailableException unavailable) {
            for (int i = 0; i < outcomes.length; i++) {
                if (outcomes[i] == null && !busy.contains(i)) {
                    outcomes[i] = ExtendOutcome.unknown(unavailable);
                }
            }
        } else if (failure != null) {
            throw failure; // the client is shut down
        }
        for (int i : busy) {
            try {
                outcomes[i] = extend(renewals.get(i).grant(), renewals.get(i).leaseTime());
            } catch (BackendUnavailableException e) {
                outcomes[i] = ExtendOutcome.unknown(e);
            }
        }
        return Arrays.asList(outcomes);
    }

    /**
     * The owner check and new lease of an extension, with the hold entered ({@link Hold#enter}: several
     * of them interleaved would unlock holds before any takes one back, and could free the lock in
     * between). Three messages in one round trip, run in order on the key's partition: an unlock, which
     * only the owner passes; whether the lock is still held after it, which only an owner of another
     * hold sees (a try of an earlier call whose answer was lost can have taken a lock that had been
     * given up meanwhile: one hold, which the unlock undoes); and a try that takes the hold back with
     * the new lease — two tries after an extension that got no answer ({@link Hold#restore}).
     *
     * @param asked the expiry asked for, on {@link System#nanoTime()}: the hold keeps a later one it has
     * @return whether the lock was the grant's, and still is with the new lease
     */
    private boolean rehold(Hold hold, long asked) {
        return answered(send(hold, asked));
    }

    /** Sends an extension's messages ({@link #rehold}); the caller has entered the hold. */
    private Rehold send(Hold hold, long asked) {
        long deadline = connection.deadline();
        long now = System.nanoTime();
        long expiresAt = hold.expiresAt.accumulateAndGet(asked, Math::max);
        long leaseMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(expiresAt - now));
        try {
            CompletableFuture<ClientMessage> unlock = connection.send(unlock(hold.key, hold.owner), map, hold.partition);
            CompletableFuture<ClientMessage> stillLocked = connection.send(MapIsLockedCodec.encodeRequest(map, hold.key), map,
                    hold.partition);
            List<CompletableFuture<ClientMessage>> relocks = new ArrayList<>(2);
            for (int i = hold.restore ? 2 : 1; i > 0; i--) {
                relocks.add(connection.send(tryLock(hold.key, hold.owner, leaseMillis), map, hold.partition));
            }
            return new Rehold(hold, unlock, stillLocked, relocks, deadline);
        } catch (RuntimeException e) {
            hold.owner.uncertain = true; // the unlock may have gone alone
            hold.restore = true;
            throw e;
        }
    }

    /**
     * @return what an extension {@link #send} sent found ({@link #rehold}), its answers awaited within
     *         the operation timeout from its sending
     */
    private boolean answered(Rehold sent) {
        long deadline = sent.deadline();
        Hold hold = sent.hold();
        boolean mine;
        int relocked;
        try {
            mine = unlocked(sent.unlock(), deadline) && MapIsLockedCodec.decodeResponse(connection.await(sent.stillLocked(), deadline));
            relocked = taken(sent.relocks(), deadline);
        } catch (RuntimeException e) {
            hold.owner.uncertain = true;
            hold.restore = true; // the unlock may reach the member without the try
            throw e;
        }
        if (!mine && relocked > 0) {
            // The lock was free and the tries took it: not the grant's lease, give it back.
            unlockTimes(hold.key, hold.partition, hold.owner, relocked);
        }
        boolean kept = mine && relocked == sent.relocks().size();
        if (kept) {
            hold.restore = false;
        }
        return kept;
    }

    /** @return how many of {@code tries} took the lock, each awaited until {@code deadline} */
    private int taken(List<CompletableFuture<ClientMessage>> tries, long deadline) {
        int taken = 0;
        for (CompletableFuture<ClientMessage> attempt : tries) {
            if (MapTryLockCodec.decodeResponse(connection.await(attempt, deadline))) {
                taken++;
            }
        }
        return taken;
    }

    /**
     * Gives {@code times} holds back, pipelined (one round trip): a grant's holds, or what a call's own
     * tries just took.
     *
     * @return how many of the unlocks the member let through (the owner held that many)
     */
    private int unlockTimes(Data key, int partition, Owners.Owner owner, int times) {
        long deadline = connection.deadline();
        List<CompletableFuture<ClientMessage>> unlocks = new ArrayList<>(times);
        for (int i = 0; i < times; i++) {
            unlocks.add(connection.send(unlock(key, owner), map, partition));
        }
        int unlocked = 0;
        for (CompletableFuture<ClientMessage> unlock : unlocks) {
            if (unlocked(unlock, deadline)) {
                unlocked++;
            }
        }
        return unlocked;
    }

    /**
     * {@link #HOLDS} pipelined unlocks, one round trip: the grant's holds — or, after an attempt or an
     * extension that got no answer (it may have left a hold more, or one fewer), unlocks until none is
     * left.
     */
    @Override
    public boolean release(Grant grant) {
        Hold hold = (Hold) grant.handle();
        hold.enter();
        try {
            held.remove(grant.ownerToken(), grant);
            if (hold.owner.uncertain) {
                // The owner stays known: the engine repeats the removal by owner token (abandon) for late copies.
                return unlockAll(hold.key, hold.partition, hold.owner);
            }
            boolean released;
            try {
                released = unlockTimes(hold.key, hold.partition, hold.owner, HOLDS) > 0;
            } catch (RuntimeException e) {
                hold.owner.uncertain = true; // an unlock may still land: this owner's id is not reused
                throw e;
            }
            owners.forget(grant.ownerToken());
            return released;
        } finally {
            hold.exit();
        }
    }

    /**
     * Unlocks one at a time until the member says the owner holds nothing (each unlock the member
     * refuses is logged there: this is for what is left after an unknown outcome only).
     *
     * @return true if the owner held the lock
     */
    private boolean unlockAll(Data key, int partition, Owners.Owner owner) {
        boolean held = false;
        for (int i = 0; i < MAX_UNLOCKS && unlocked(connection.send(unlock(key, owner), map, partition), connection.deadline()); i++) {
            held = true;
        }
        return held;
    }

    private boolean unlocked(CompletableFuture<ClientMessage> unlock, long deadline) {
        try {
            connection.await(unlock, deadline);
            return true;
        } catch (IllegalMonitorStateException e) {
            return false;
        }
    }

    /**
     * What an extension leaves when its connection is reset after its first message went through: its
     * unlock reaches the member, its try does not, and no answer comes back. Sends the unlock alone,
     * awaits it, and marks the hold as such an extension would. For this driver's tests, which cannot
     * cut a pipeline in the middle.
     *
     * @return whether the member took a hold of the grant's owner back
     */
    boolean extensionCutAfterItsUnlock(Grant grant) {
        Hold hold = (Hold) grant.handle();
        hold.enter();
        try {
            boolean unlocked = unlocked(connection.send(unlock(hold.key, hold.owner), map, hold.partition), connection.deadline());
            hold.owner.uncertain = true;
            hold.restore = true;
            return unlocked;
        } finally {
            hold.exit();
        }
    }

    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        Owners.Owner owner = owners.find(request.ownerToken());
        if (owner == null) {
            return;
        }
        if (outcomeUnknown) {
            // Kept while the engine repeats this (late copies): a repeat must still know the owner.
            owner.uncertain = true;
            Data key = connection.toData(request.name());
            unlockAll(key, connection.partitionOf(key), owner);
        } else {
            owners.forget(request.ownerToken());
        }
    }

    /**
     * A try sent with no answer can still reach the key's owner after {@link #abandon} has looked (the
     * client re-sends it while the partition moves): the engine repeats the abandon for the request's
     * lease time, the longest such a hold can last.
     */
    @Override
    public boolean lateWritesPossible() {
        return true;
    }

    /** The member's expiry is a backstop only (see {@link #SERVER_LEASE_MARGIN_MILLIS}): the engine ends leases. */
    @Override
    public boolean serverExpiresLeases() {
        return false;
    }

    @Override
    public Optional<Duration> serverExpiryBackstop() {
        return Optional.of(BACKSTOP);
    }

    @Override
    public void leaseExpired(Grant grant) {
        release(grant);
    }

    /**
     * A try, never re-sent by the Hazelcast client: it would send it again past a member that did not
     * answer (the message is marked retryable), and the first copy, delivered late, would take the lock
     * after its lease was released. An unanswered try is an unknown outcome instead, which the engine
     * retries and then sweeps up by owner (see {@link Owners.Owner#uncertain}).
     */
    private ClientMessage tryLock(Data key, Owners.Owner owner, long leaseMillis) {
        ClientMessage request = MapTryLockCodec.encodeRequest(map, key, owner.threadId,
                leaseMillis + SERVER_LEASE_MARGIN_MILLIS, 0, references.getAndIncrement());
        request.setRetryable(false);
        return request;
    }

    /** An unlock, never re-sent by the Hazelcast client either: a late copy must not find the owner's id reused (see {@link Owners}). */
    private ClientMessage unlock(Data key, Owners.Owner owner) {
        ClientMessage request = MapUnlockCodec.encodeRequest(map, key, owner.threadId, references.getAndIncrement());
        request.setRetryable(false);
        return request;
    }

    @Override
    public void close() {
        closing = true;
        checker.shutdownNow();
        connection.close();
    }
}
