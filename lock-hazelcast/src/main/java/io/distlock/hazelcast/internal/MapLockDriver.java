package io.distlock.hazelcast.internal;

import com.hazelcast.client.impl.protocol.ClientMessage;
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
 * <p><b>One hold, and an owner check that changes nothing.</b> The map lock has no "extend if it
 * is mine": the only way to set a new lease is to lock again, which an owner does re-entrantly — and
 * which a non-owner does too when the lock is free (after a loss the holder was not told of). What
 * tells them apart is the member's answer to a repeated unlock: each lock call carries a reference
 * id, and an unlock whose id is the one of the call that last changed the lock is answered as done
 * again, with nothing taken (how Hazelcast makes a re-sent unlock harmless) — but only to the lock's
 * owner. So a grant takes the lock once (one try, as {@code IMap.lock} does), a release gives it
 * back once, and an extension is a try with the new lease (the owner re-enters: two holds), then,
 * once that is answered, one unlock sent twice: the first gives back the hold the try added, the
 * second is the owner check. If the lock had been lost and was free, the try took it and the first
 * unlock freed it again: the second is refused, the lease is lost, and nothing is left held. The try
 * goes alone, before the unlocks: while the key's partition moves, an unlock can be applied where the
 * try before it was refused, and would then take the grant's only hold (see {@link #extendAll}).
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

    /** Holds an abandon undoes at most (acquires and extensions whose answers were lost can leave extra ones). */
    private static final int MAX_UNLOCKS = 64;
    /** Leases of one renewal tick whose extensions' messages are sent before their answers are awaited. */
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
         * Released: an extension that entered the hold after the release (a renewal sent just before
         * it) sends nothing — its try would take the lock again, if only until its unlock. Only read and
         * written by the call that has entered the hold.
         */
        boolean released;

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
         * before to end. Interleaved, one call's unlock could give back the hold another's try had not
         * added yet, and free the lock. Not interruptible: the call before ends within the
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

    /** An extension's try, sent ({@link #relock}); its answer to come. */
    private record Relock(Hold hold, CompletableFuture<ClientMessage> taken, long deadline) {
    }

    /** An extension's unlock, sent twice ({@link #giveBack}); their answers to come. */
    private record GiveBack(Hold hold, CompletableFuture<ClientMessage> unlock, CompletableFuture<ClientMessage> check,
                            long deadline) {
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
        boolean taken;
        try {
            if (owner.uncertain) {
                // An earlier attempt of this request got no answer, and its hold may have landed: it is
                // given back first (re-entered, it would outlast the release).
                unlockAll(key, partition, owner);
            }
            taken = MapTryLockCodec.decodeResponse(connection.await(
                    connection.send(tryLock(key, owner, leaseMillis), map, partition), connection.deadline()));
        } catch (RuntimeException e) {
            owner.uncertain = true;
            throw e;
        }
        if (!taken) {
            owners.forget(request.ownerToken());
            return Attempt.busy();
        }
        Grant grant = new Grant(request, OptionalLong.empty(),
                new Hold(owner, key, partition, sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis)));
        held.put(request.ownerToken(), grant);
        return Attempt.granted(grant);
    }

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        Hold hold = (Hold) grant.handle();
        hold.enter();
        try {
            boolean mine = !hold.released && relocked(relock(hold, System.nanoTime() + leaseTime.toNanos()))
                    && givenBack(giveBack(hold));
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
     * them and two waves of round trips — every try, then the unlocks of those the tries kept — not two
     * round trips per lease (one lease after another, 10,000 leases took about 5 s here, close to a 6 s
     * lease). The unlocks wait for their lease's try to be answered because messages sent together can
     * be applied apart: while the key's partition moves to another member, the try can be refused on
     * the old one and the unlock applied on the new one, which would take the grant's only hold. A lease
     * another call is working on (a release, an extension of the application's) is extended on its own
     * after the others, once that call is done.
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        ExtendOutcome[] outcomes = new ExtendOutcome[renewals.size()];
        // The holds this call has entered, all left at its end: one whose try was taken stays entered until its unlocks are answered.
        boolean[] entered = new boolean[renewals.size()];
        List<Integer> busy = new ArrayList<>();
        List<Integer> relocked = new ArrayList<>();
        RuntimeException failure = null;
        try {
            try {
                HazelcastConnection.pipelined(renewals.size(), RENEWALS_IN_FLIGHT, i -> {
                    Hold hold = hold(renewals.get(i));
                    if (!hold.tryEnter()) {
                        busy.add(i);
                        return null;
                    }
                    entered[i] = true;
                    if (hold.released) {
                        outcomes[i] = lost(renewals.get(i).grant());
                        return null;
                    }
                    return relock(hold, System.nanoTime() + renewals.get(i).leaseTime().toNanos());
                }, (sent, i) -> {
                    try {
                        if (relocked(sent)) {
                            relocked.add(i);
                        } else {
                            outcomes[i] = lost(renewals.get(i).grant());
                        }
                    } catch (BackendUnavailableException e) {
                        outcomes[i] = ExtendOutcome.unknown(e);
                    }
                });
            } catch (RuntimeException e) {
                failure = e;
            }
            // The unlocks of the tries that were taken, even after a failure: their holds are entered.
            try {
                HazelcastConnection.pipelined(relocked.size(), RENEWALS_IN_FLIGHT, j -> giveBack(hold(renewals.get(relocked.get(j)))),
                        (sent, j) -> {
                            int i = relocked.get(j);
                            try {
                                outcomes[i] = givenBack(sent) ? ExtendOutcome.of(true) : lost(renewals.get(i).grant());
                            } catch (BackendUnavailableException e) {
                                outcomes[i] = ExtendOutcome.unknown(e);
                            }
                        });
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        } finally {
            for (int i : relocked) {
                if (outcomes[i] == null) {
                    // Its try was taken, and its unlocks were never sent (a failure stopped the wave) or got
                    // no answer: the hold the try added may be left, and the release must look for it.
                    hold(renewals.get(i)).owner.uncertain = true;
                }
            }
            for (int i = 0; i < entered.length; i++) {
                if (entered[i]) {
                    hold(renewals.get(i)).exit();
                }
            }
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

    private static Hold hold(Renewal renewal) {
        return (Hold) renewal.grant().handle();
    }

    /** An extension that found the lock not the grant's: the grant is no longer held. */
    private ExtendOutcome lost(Grant grant) {
        held.remove(grant.ownerToken(), grant);
        return ExtendOutcome.of(false);
    }

    /**
     * Sends an extension's try with the new lease; the caller has entered the hold. The owner
     * re-enters the lock (a second hold, given back by {@link #giveBack}); a free lock is taken; a lock
     * of another owner is refused.
     *
     * @param asked the expiry asked for, on {@link System#nanoTime()}: the hold keeps a later one it has
     */
    private Relock relock(Hold hold, long asked) {
        long deadline = connection.deadline();
        long expiresAt = hold.expiresAt.accumulateAndGet(asked, Math::max);
        long leaseMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(expiresAt - System.nanoTime()));
        try {
            return new Relock(hold, connection.send(tryLock(hold.key, hold.owner, leaseMillis), map, hold.partition), deadline);
        } catch (RuntimeException e) {
            hold.owner.uncertain = true; // the try may have gone: a hold more, which the release looks for
            throw e;
        }
    }

    /** @return whether the try {@link #relock} sent was taken; false if another owner holds the lock */
    private boolean relocked(Relock sent) {
        try {
            return MapTryLockCodec.decodeResponse(connection.await(sent.taken(), sent.deadline()));
        } catch (RuntimeException e) {
            sent.hold().owner.uncertain = true; // the try may have landed: a hold more
            throw e;
        }
    }

    /**
     * Sends an extension's unlock twice, with one reference id, once its try was taken; the caller has
     * entered the hold. The first gives back the hold the try added. The second is answered as done
     * again, with nothing taken, only while the lock is still this owner's and the first was the last
     * call that changed it: if the try had taken a lock that was lost and free, the first freed it and
     * the second is refused.
     */
    private GiveBack giveBack(Hold hold) {
        long deadline = connection.deadline();
        long reference = references.getAndIncrement();
        try {
            return new GiveBack(hold, connection.send(unlock(hold.key, hold.owner, reference), map, hold.partition),
                    connection.send(unlock(hold.key, hold.owner, reference), map, hold.partition), deadline);
        } catch (RuntimeException e) {
            hold.owner.uncertain = true; // an unlock may have gone
            throw e;
        }
    }

    /**
     * @return whether both unlocks {@link #giveBack} sent were let through: the lock was the grant's,
     *         and still is with the try's new lease
     */
    private boolean givenBack(GiveBack sent) {
        try {
            boolean first = unlocked(sent.unlock(), sent.deadline());
            boolean second = unlocked(sent.check(), sent.deadline());
            return first && second;
        } catch (RuntimeException e) {
            sent.hold().owner.uncertain = true; // the holds left are unknown: the release looks for them
            throw e;
        }
    }

    /**
     * One unlock of the grant's hold (one round trip) — or, after an attempt or an extension that got
     * no answer (it may have left a hold more), unlocks until none is left.
     */
    @Override
    public boolean release(Grant grant) {
        Hold hold = (Hold) grant.handle();
        hold.enter();
        try {
            held.remove(grant.ownerToken(), grant);
            hold.released = true;
            if (hold.owner.uncertain) {
                // The owner stays known: the engine repeats the removal by owner token (abandon) for late copies.
                return unlockAll(hold.key, hold.partition, hold.owner);
            }
            boolean released;
            try {
                released = unlocked(connection.send(unlock(hold.key, hold.owner), map, hold.partition), connection.deadline());
            } catch (RuntimeException e) {
                hold.owner.uncertain = true; // the unlock may still land: this owner's id is not reused
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
     * What an extension leaves when its connection is reset after its try went through: the try
     * reaches the member (a hold more, with the new lease), its unlocks do not, and no answer comes
     * back. Sends the try alone, awaits it, and marks the owner as such an extension would. For this
     * driver's tests, which cannot cut a connection between two messages.
     *
     * @return whether the member let the grant's owner take the hold
     */
    boolean extensionCutAfterItsTry(Grant grant, Duration leaseTime) {
        Hold hold = (Hold) grant.handle();
        hold.enter();
        try {
            boolean taken = relocked(relock(hold, System.nanoTime() + leaseTime.toNanos()));
            hold.owner.uncertain = true;
            return taken;
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
        return unlock(key, owner, references.getAndIncrement());
    }

    /**
     * An unlock with the given reference id: the member answers an unlock whose id is the one of the
     * owner's call that last changed the lock as done again, and takes nothing ({@link #giveBack}).
     */
    private ClientMessage unlock(Data key, Owners.Owner owner, long reference) {
        ClientMessage request = MapUnlockCodec.encodeRequest(map, key, owner.threadId, reference);
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
