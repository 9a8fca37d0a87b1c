package io.distlock.hazelcast.internal;

import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.MapTryLockCodec;
import com.hazelcast.client.impl.protocol.codec.MapUnlockCodec;
import com.hazelcast.internal.serialization.Data;
import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code hazelcast-map://}: {@code IMap.lock} on the entry named after the lock, with a lease the
 * member ends by itself as a backstop (the engine ends each lease on time: see
 * {@link #SERVER_LEASE_MARGIN_MILLIS}). The lock lives on the key's partition owner and its backup; there is no
 * consensus and no fence, so a split brain (or a member lost with the backup) can give it to two
 * holders: an EFFICIENCY lock.
 *
 * <p><b>Two holds, so that an extension can check its owner.</b> The map lock has no "extend if it is
 * mine": the only way to set a new lease is to lock again, which an owner does re-entrantly — and
 * which a non-owner does too when the lock is free (after a loss the holder was not told of). So an
 * acquire takes the lock twice (two pipelined tries, one round trip), and an extension sends an
 * unlock then a try: the unlock succeeds only for the owner (the member checks it; one of two holds
 * goes), and the try takes the second hold back with the new lease. A lock that was not the grant's
 * any more fails the unlock: lost, never silently taken again. A release unlocks until the member
 * says the owner holds nothing.
 */
public final class MapLockDriver implements LockDriver {

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

    /** A grant's hold on the server: its owner, key and partition, and the latest expiry any extension asked for. */
    static final class Hold {
        final Owners.Owner owner;
        final Data key;
        final int partition;
        /** On {@link System#nanoTime()}: no extension asks for less, so that none moves the expiry earlier. */
        final AtomicLong expiresAt;

        Hold(Owners.Owner owner, Data key, int partition, long expiresAt) {
            this.owner = owner;
            this.key = key;
            this.partition = partition;
            this.expiresAt = new AtomicLong(expiresAt);
        }
    }

    private final HazelcastConnection connection;
    private final String map;
    private final Owners owners = new Owners();
    private final AtomicLong references = new AtomicLong(1);

    private MapLockDriver(HazelcastConnection connection) {
        this.connection = connection;
        this.map = connection.endpoint().map();
    }

    /**
     * @param endpoint the cluster
     * @param options  the client's options
     * @param context  the engine (the map lock reports nothing of its own)
     * @return the driver
     * @throws IllegalArgumentException    if credentials are given (Community has no client authentication)
     * @throws BackendUnavailableException if no member let the client in within the connect timeout
     */
    public static MapLockDriver connect(HazelcastEndpoint endpoint, LockOptions options, DriverContext context) {
        return new MapLockDriver(HazelcastConnection.open(endpoint, options));
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        Owners.Owner owner = owners.of(request.ownerToken());
        Data key = connection.toData(request.name());
        int partition = connection.partitionOf(key);
        long leaseMillis = Math.max(1, request.leaseTime().toMillis());
        long sentAt = System.nanoTime();
        boolean firstTaken;
        boolean secondTaken;
        try {
            if (owner.uncertain) {
                // An earlier attempt of this request got no answer, and its holds may have landed: none
                // is counted on, all are given back first (re-entered, they would outlast the release).
                unlockAll(key, partition, owner);
            }
            long deadline = connection.deadline();
            CompletableFuture<ClientMessage> first = connection.send(tryLock(key, owner, leaseMillis), map, partition);
            CompletableFuture<ClientMessage> second = connection.send(tryLock(key, owner, leaseMillis), map, partition);
            firstTaken = MapTryLockCodec.decodeResponse(connection.await(first, deadline));
            secondTaken = MapTryLockCodec.decodeResponse(connection.await(second, deadline));
        } catch (RuntimeException e) {
            owner.uncertain = true;
            throw e;
        }
        if (firstTaken && secondTaken) {
            return Attempt.granted(new Grant(request, OptionalLong.empty(),
                    new Hold(owner, key, partition, sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis))));
        }
        if (firstTaken || secondTaken) {
            // The holder left between the two tries: one hold only, which the extension's check cannot
            // keep; give it back and try again later.
            unlocked(connection.send(unlock(key, owner), map, partition), connection.deadline());
        }
        owners.forget(request.ownerToken());
        return Attempt.busy();
    }

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        Hold hold = (Hold) grant.handle();
        long now = System.nanoTime();
        long asked = now + leaseTime.toNanos();
        long expiresAt = hold.expiresAt.accumulateAndGet(asked, Math::max);
        long leaseMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(expiresAt - now));
        long deadline = connection.deadline();
        CompletableFuture<ClientMessage> unlock = connection.send(unlock(hold.key, hold.owner), map, hold.partition);
        CompletableFuture<ClientMessage> relock = connection.send(tryLock(hold.key, hold.owner, leaseMillis), map,
                hold.partition);
        boolean mine;
        boolean relocked;
        try {
            mine = unlocked(unlock, deadline);
            relocked = MapTryLockCodec.decodeResponse(connection.await(relock, deadline));
        } catch (RuntimeException e) {
            hold.owner.uncertain = true;
            throw e;
        }
        if (!mine && relocked) {
            // The lock was free and the try took it: not the grant's lease, give it back.
            unlocked(connection.send(unlock(hold.key, hold.owner), map, hold.partition), connection.deadline());
        }
        return ExtendOutcome.of(mine && relocked);
    }

    /**
     * Two pipelined unlocks, one round trip: the grant's two holds — or, after an attempt or an
     * extension that got no answer (it may have left a hold more), unlocks until none is left.
     */
    @Override
    public boolean release(Grant grant) {
        Hold hold = (Hold) grant.handle();
        if (hold.owner.uncertain) {
            // The owner stays known: the engine repeats the removal by owner token (abandon) for late copies.
            return unlockAll(hold.key, hold.partition, hold.owner);
        }
        long deadline = connection.deadline();
        CompletableFuture<ClientMessage> first = connection.send(unlock(hold.key, hold.owner), map, hold.partition);
        CompletableFuture<ClientMessage> second = connection.send(unlock(hold.key, hold.owner), map, hold.partition);
        boolean released = unlocked(first, deadline);
        unlocked(second, deadline);
        owners.forget(grant.ownerToken());
        return released;
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

    private ClientMessage unlock(Data key, Owners.Owner owner) {
        return MapUnlockCodec.encodeRequest(map, key, owner.threadId, references.getAndIncrement());
    }

    @Override
    public void close() {
        connection.close();
    }
}
