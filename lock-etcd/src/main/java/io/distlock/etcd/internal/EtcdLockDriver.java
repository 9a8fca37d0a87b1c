package io.distlock.etcd.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Revoked;
import io.distlock.spi.UserInfo;
import io.distlock.spi.Waiters;
import io.distlock.spi.Watch;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One client's locks on an etcd cluster: a key per request, bound to the client's session lease
 * ({@link EtcdSession}); the key with the lowest create revision under the lock's directory holds
 * the lock, and its create revision is the fencing token (cluster-wide, strictly increasing, and in
 * grant order, since the line is ordered by it).
 *
 * <p>An acquire is one transaction: if neither this request's key nor its withdrawal marker exists,
 * put the key (bound to the session lease) and read the lock's first key; otherwise read this
 * request's key and the first key. One round trip decides an uncontended acquire, and a retry after
 * a lost reply finds the request's own key by its owner token (the key's name) instead of writing a
 * second one. A request that is not first reads the key just before its own (one more round trip)
 * and waits for that key to go, told by the client's feed of the line's deletions ({@link
 * LineFeeds}: one watch per line, kept across waits, so no watch is started per hand-off): no herd
 * of requests, and no deletion is missed between the read and the wait. Between deletions an attempt asks the server
 * nothing, but for one look per keep-alive period (a watch whose member hangs gets no events, and
 * jetcd cannot tell): the notifications are reliable, so the engine does not poll.
 *
 * <p>Read-write locks and semaphores ({@link Hold.Kind#READ}, {@link Hold.Kind#WRITE},
 * {@link Hold.Kind#PERMIT}) are lines of the same kind in directories of their own, with another
 * rule for who is let in and what a waiter watches ({@link EtcdSharedLines}); everything after the
 * grant (extend, release, lease end, withdrawal, session loss) is the same for every kind, on the
 * request's own key.
 *
 * <p>Lease time: the keys live as long as the session, so the engine ends each lease at the end of
 * its validity ({@link #leaseExpired}: the key is deleted), bounded by what the session can vouch
 * for ({@link DriverContext#sessionConfirmed}). An extension asks the server, in one
 * {@code LeaseTimeToLive} call for all the client's renewals, which keys are still bound to the
 * session: a key that is gone (deleted by an operator, or with a lost session) is a lost lease.
 *
 * <p>Removals (release, lease end, a withdrawn request) are single attempts that throw when the
 * server did not confirm them; the engine's cleanup calls them again. After an unknown outcome, a
 * withdrawal leaves a marker (bound to the session lease) that makes a late write of the request
 * take nothing.
 */
public final class EtcdLockDriver implements LockDriver {

    private static final ByteSequence EMPTY = ByteSequence.EMPTY;
    /** Operations per transaction of {@link #releaseAll}: below etcd's default limit of 128. */
    private static final int OPS_PER_TXN = 100;

    /**
     * Names this client's keys: {@code <client id>-<slot>}. A slot is a request's for as long as it
     * is in line, and is taken again by a later request of the same lock only once the server has
     * confirmed the earlier one's key gone. So a lock's directory holds a bounded set of key names
     * — etcd keeps every deleted key in its index until a compaction, and the line's read visits
     * them all: a new name per request would make each acquire slower than the last until then —
     * and the owner token lives in the key's value, which every removal compares.
     */
    private final String clientId = Long.toHexString(new java.security.SecureRandom().nextLong() | Long.MIN_VALUE);
    /**
     * The slots of this client's requests in line, by directory ({@link EtcdKeys#requestDir}): a
     * lock's by its name (its directory is the name's alone, and the request keeps the name anyway:
     * no key string per held lease), a read-write lock side's or a semaphore count's by the
     * directory. The value is {@link #SLOT_ZERO} while slot 0 is the only one (a lock this client
     * takes once at a time, the usual case: no set per held lease), else a {@link java.util.BitSet}.
     * Both are guarded by {@link #lockSlots}.
     */
    private final Map<String, Object> lockSlots = new java.util.HashMap<>();
    private final Map<String, Object> sharedSlots = new java.util.HashMap<>();
    private static final Object SLOT_ZERO = new Object();
    /** The latest session lease a grant was bound to, boxed ({@link #boxed}). */
    private volatile Long boxedSession;
    /** Owner token → the request's place in line (and, once granted, its grant: {@link EtcdLine#grant}). */
    private final Map<String, EtcdLine> requests = new ConcurrentHashMap<>();
    /** Lock name → the engine's waiters in this client, woken when a predecessor key goes. */
    private final Waiters waiters = new Waiters();
    private final DriverContext context;
    private final String prefix;
    private final EtcdSession session;
    private final EtcdInspector inspector;
    /** The read-write locks' and semaphores' lines: when their keys are granted, and what their waiters watch. */
    private final EtcdSharedLines shared;
    /** The feeds of deletions the waiting requests of this client subscribe to, one per line directory. */
    private final LineFeeds feeds;
    /**
     * The client's one watch on the revocation records ({@code <prefix>/revoked/}), started at its
     * first grant; null before, and after it broke (the next grant starts it again).
     */
    private io.etcd.jetcd.Watch.Watcher revocations;
    private volatile boolean closed;

    private EtcdLockDriver(EtcdEndpoint endpoint, LockOptions options, DriverContext context) {
        this.context = context;
        this.prefix = endpoint.prefix();
        this.session = EtcdSession.open(endpoint, () -> credentials(endpoint, options), options, context, new EtcdSession.Listener() {
            @Override
            public void suspended() {
                context.connectionSuspended();
            }

            @Override
            public void restored() {
                context.connectionRestored(); // the engine retries every pending removal at once
                lookAgain(); // a predecessor may have gone while no keep-alive got through
            }

            @Override
            public void heard() {
                // A watch lives on one member's stream; one that hangs (partitioned, frozen) breaks
                // nothing jetcd can see, and its deletions never come. So every waiter also looks at
                // its line once per keep-alive period: a missed wake-up costs a third of the session
                // TTL at most, and the notifications stay reliable.
                lookAgain();
                LineFeeds lines = feeds;
                if (lines != null) { // null: heard during the connect, before the constructor set it
                    lines.sweep();
                }
            }

            @Override
            public void lost(long leaseId) {
                sessionLost(leaseId);
            }
        });
        this.inspector = new EtcdInspector(session, prefix, context.owner());
        this.feeds = new LineFeeds(session);
        this.shared = new EtcdSharedLines(session, prefix, feeds);
    }

    /**
     * Connects within the connect timeout: grants the session lease and checks access to the prefix.
     *
     * @param endpoint the parsed URI
     * @param options  the client's timeouts
     * @param context  how the driver reports to the engine
     * @return the connected driver
     * @throws BackendUnavailableException         if no member answers within the connect timeout
     * @throws IllegalArgumentException             if the session TTL is below the server's minimum, credentials
     *                                              are given both in the URI and in the options, or they name
     *                                              no user
     * @throws io.distlock.AuthenticationException if the server refuses the credentials or the TLS handshake fails
     * @throws io.distlock.AccessDeniedException   if the user may not read and write under the prefix
     */
    public static EtcdLockDriver connect(EtcdEndpoint endpoint, LockOptions options, DriverContext context) {
        return new EtcdLockDriver(endpoint, options, context);
    }

    /**
     * The credentials: the URI's, or the options' (a supplier is asked each time: at the connect, and
     * when the server refuses the ones in use on a live session, so a rotated secret is picked up).
     * etcd authenticates a user: a password alone is refused here.
     */
    private static Optional<Credentials> credentials(EtcdEndpoint endpoint, LockOptions options) {
        Optional<Credentials> credentials = UserInfo.either(endpoint.credentials(), options, endpoint.toString());
        if (credentials.isPresent() && credentials.get().username().isEmpty()) {
            throw new IllegalArgumentException("etcd authenticates a user: the credentials for " + endpoint
                    + " have a password but no user name");
        }
        return credentials;
    }

    // ---- acquire -------------------------------------------------------------------------------

    @Override
    public Attempt tryAcquire(LockRequest request) {
        EtcdLine line = requests.computeIfAbsent(request.ownerToken(), token -> newLine(request));
        if (line.createRevision != 0 && !line.changed && session.connected()) {
            // Still behind the same predecessor: its deletion (or a reconnect) would have marked
            // the line. Nothing to ask the server.
            return Attempt.busy();
        }
        line.changed = false; // before the look: a deletion from now on marks it again
        for (int round = 0; ; round++) {
            long lease = session.leaseId();
            try {
                Attempt attempt = request.hold().kind() == Hold.Kind.EXCLUSIVE ? tryOnce(request, line, lease)
                        : tryShared(request, line, lease);
                if (attempt != null) {
                    return attempt;
                }
            } catch (EtcdSession.SessionGone e) {
                // The put named a lease the server no longer has: nothing was written. Lose what
                // the old session held, and try again with a new one.
                session.sessionLost(lease);
            }
            if (round >= 3) {
                throw new BackendUnavailableException(session.endpointNames(), "the line of the " + request.hold().describe()
                        + " '" + request.name() + "' on " + session.endpoint() + " keeps changing under this request (session expiring?)", null);
            }
        }
    }

    /** @return the attempt's outcome, or null to look again at once */
    private Attempt tryOnce(LockRequest request, EtcdLine line, long lease) {
        GetOption first = GetOption.builder().isPrefix(true).withKeysOnly(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();
        if (line.createRevision != 0 && line.leaseId == lease) {
            // Our key is in line: look again with reads only. A transaction that could write (the
            // put below, even when its If fails) goes through Raft and an fsync; a read does not.
            long known = line.createRevision;
            ByteSequence dir = line.dir();
            TxnResponse look = session.call(() -> session.kv().txn().Then(Op.get(line.key, GetOption.DEFAULT),
                    Op.get(dir, first), Op.get(dir, before(known))).commit(), "look at the line of '" + request.name() + "'");
            List<KeyValue> own = look.getGetResponses().get(0).getKvs();
            if (own.isEmpty() || own.get(0).getCreateRevision() != known || !own.get(0).getValue().equals(line.value)) {
                line.createRevision = 0; // gone (deleted by an operator, or with its session): join the line again
                return null;
            }
            return decide(request, line, known, look.getGetResponses().get(1).getKvs(), look.getGetResponses().get(2),
                    look.getHeader().getRevision());
        }
        ByteSequence dir = line.dir();
        ByteSequence marker = line.marker();
        TxnResponse answer = session.call(() -> session.kv().txn()
                .If(new Cmp(line.key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
                        new Cmp(marker, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(line.key, line.value, PutOption.builder().withLeaseId(lease).build()), Op.get(dir, first))
                .Else(Op.get(line.key, GetOption.DEFAULT), Op.get(marker, GetOption.builder().withCountOnly(true).build()),
                        Op.get(dir, first))
                .commit(), () -> line.resent = true, "acquire '" + request.name() + "'");
        long mine;
        List<KeyValue> head;
        if (answer.isSucceeded()) {
            mine = answer.getHeader().getRevision(); // the put's revision: the new key's create revision
            line.leaseId = lease;
            head = answer.getGetResponses().get(0).getKvs();
        } else {
            List<GetResponse> reads = answer.getGetResponses();
            List<KeyValue> own = reads.get(0).getKvs();
            if (own.isEmpty()) {
                throw new IllegalStateException("the request for '" + request.name() + "' was withdrawn on "
                        + session.endpoint() + "; it cannot be tried again");
            }
            if (!own.get(0).getValue().equals(line.value)) {
                // A late copy of an earlier request of this slot (one whose acquire was not known to
                // have been resent) brought its key back: it holds nothing of ours. Remove it, then
                // join the line.
                ByteSequence stale = own.get(0).getValue();
                session.call(() -> session.kv().txn().If(new Cmp(line.key, Cmp.Op.EQUAL, CmpTarget.value(stale)))
                        .Then(Op.delete(line.key, DeleteOption.DEFAULT)).commit(), "remove a stale request for '" + request.name() + "'");
                return null;
            }
            mine = own.get(0).getCreateRevision();
            line.leaseId = own.get(0).getLease();
            head = reads.get(2).getKvs();
        }
        line.createRevision = mine;
        return decide(request, line, mine, head, null, 0);
    }

    /**
     * One attempt of a read-write lock's side or a semaphore's permit ({@link EtcdSharedLines}); a
     * granted key is bound to the session lease it was written with, as a lock's.
     *
     * @return the attempt's outcome, or null to look again at once
     */
    private Attempt tryShared(LockRequest request, EtcdLine line, long lease) {
        switch (shared.tryOnce(request, line, lease)) {
            case GRANTED:
                line.stopWatching();
                Grant grant = new Grant(request, OptionalLong.of(line.createRevision), line, boxed(line.leaseId));
                line.grant = grant;
                if (line.revokedBefore != null) {
                    // An operator revoked this hold (holds() shows a key as soon as the line's rule
                    // lets it in) while this attempt was deciding: it is no lease. Join the line
                    // again, as a lock's request does (see decide()).
                    line.grant = null;
                    line.revokedBefore = null;
                    line.createRevision = 0;
                    return null;
                }
                // A reader's, writer's or permit's hold is revoked as a lock is: its record is put
                // under revoked/, and this client's watch on the records tells it at once.
                watchRevocations(line.createRevision);
                return Attempt.granted(grant);
            case BUSY:
                return Attempt.busy();
            default:
                return null;
        }
    }

    /** @return the read of the key just before {@code mine} in line: the latest created before it */
    private static GetOption before(long mine) {
        return GetOption.builder().isPrefix(true).withKeysOnly(true).withMaxCreateRevision(mine - 1)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND).withLimit(1).build();
    }

    /**
     * Granted if our key is the first in line; otherwise watches the key just before ours.
     *
     * @param mine our key's create revision
     * @param head the line's first key, as read with ours
     * @param known the key before ours, if it was read with them (null: read it now)
     * @param knownAt the revision {@code known} was read at (a transaction's: its reads carry none)
     * @return the outcome, or null to look again at once
     */
    private Attempt decide(LockRequest request, EtcdLine line, long mine, List<KeyValue> head, GetResponse known, long knownAt) {
        if (head.isEmpty()) {
            return null; // our key went between the write and the read (its session was lost): look again
        }
        if (head.get(0).getCreateRevision() == mine) {
            line.stopWatching();
            // Bound to the session lease the key is bound to: the engine ends the lease with it, and
            // gives the grant back if that lease was lost before the grant is recorded.
            Grant grant = new Grant(request, OptionalLong.of(mine), line, boxed(line.leaseId));
            line.grant = grant;
            if (line.revokedBefore != null) {
                // An operator revoked this key as the line's first while this attempt was deciding:
                // it is no lease. Join the line again (a record put by hand finds the key still
                // there, and the next attempt takes it up again).
                line.grant = null;
                line.revokedBefore = null;
                line.createRevision = 0;
                return null;
            }
            watchRevocations(mine);
            return Attempt.granted(grant);
        }
        // Not first: wait for the key just before ours to go, told by the client's feed of the line's deletions.
        GetResponse before = known != null ? known : session.call(() -> session.kv().get(line.dir(), before(mine)),
                "find the request before ours for '" + request.name() + "'");
        long readAt = known != null ? knownAt : before.getHeader().getRevision();
        if (before.getKvs().isEmpty()) {
            return null; // everyone before us left meanwhile: look again
        }
        KeyValue predecessor = before.getKvs().get(0);
        feeds.await(line, predecessor, readAt, waiters);
        return Attempt.busy();
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        return waiters.add(name, onChange);
    }

    /** A lock's waiter is woken by its lock's deletions; a reader, writer or permit waiter by its primitive's. */
    @Override
    public Watch watch(LockRequest request, Runnable onChange) {
        return request.hold().kind() == Hold.Kind.EXCLUSIVE ? waiters.add(request.name(), onChange) : shared.watch(request, onChange);
    }

    /** Every deletion of a waiter's predecessor is notified, and every restored session wakes all waiters. */
    @Override
    public boolean reliableNotifications() {
        return true;
    }

    // ---- extend, release, end ------------------------------------------------------------------

    /**
     * One {@code LeaseTimeToLive} call with the session's attached keys, whatever the number of
     * renewals: a grant whose key is still bound to the live session is extended (the engine keeps
     * the lease time), one whose key is gone is lost.
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        long lease;
        LeaseTimeToLiveResponse answer;
        try {
            lease = session.leaseId();
            long id = lease;
            answer = session.call(() -> session.leases().timeToLive(id, LeaseOption.builder().withAttachedKeys().build()),
                    "check the session's keys");
        } catch (BackendUnavailableException e) {
            List<ExtendOutcome> unknown = new ArrayList<>(renewals.size());
            renewals.forEach(renewal -> unknown.add(ExtendOutcome.unknown(e)));
            return unknown;
        }
        Set<ByteSequence> alive = new HashSet<>();
        if (answer.getTTL() > 0) {
            alive.addAll(answer.getKeys());
        } else {
            session.sessionLost(lease);
        }
        List<ExtendOutcome> results = new ArrayList<>(renewals.size());
        List<Integer> gone = new ArrayList<>();
        for (Renewal renewal : renewals) {
            EtcdLine line = (EtcdLine) renewal.grant().handle();
            boolean held = line.leaseId == lease && alive.contains(line.key);
            if (!held) {
                forget(renewal.grant().ownerToken());
                if (line.leaseId == lease) {
                    gone.add(results.size()); // the key left a live session: an operator's revoke, or a delete by hand
                }
            }
            results.add(ExtendOutcome.of(held));
        }
        if (!gone.isEmpty()) {
            revoked(renewals, gone, results);
        }
        return results;
    }

    /**
     * Reads the revocation records of the grants whose keys left a live session (one read for all of
     * them): a grant with a record was revoked, and says why. A read that fails leaves them lost: the
     * server answered that their keys are gone, only the reason is unknown.
     */
    private void revoked(List<Renewal> renewals, List<Integer> gone, List<ExtendOutcome> results) {
        List<String> tokens = new ArrayList<>(gone.size());
        gone.forEach(i -> tokens.add(renewals.get(i).grant().ownerToken()));
        try {
            List<String> reasons = session.call(() -> inspector.reasons(tokens), "read the revocation records of "
                    + tokens.size() + " lost lease(s)");
            for (int i = 0; i < gone.size(); i++) {
                if (reasons.get(i) != null) {
                    results.set(gone.get(i), ExtendOutcome.revoked(reasons.get(i)));
                }
            }
        } catch (RuntimeException e) {
            // lost either way (see above)
        }
    }

    /**
     * Starts the client's watch on the revocation records, if it is not running: from the revision
     * after {@code since} (a grant's create revision: any revoke of it comes later), so no record of
     * a revoke of a lease this client holds is missed while the watch runs. One watch per client,
     * whatever the number of leases; every revoke under the prefix reaches every watching client,
     * which looks only for its own owner tokens.
     */
    private synchronized void watchRevocations(long since) {
        if (revocations != null || closed) {
            return;
        }
        ByteSequence dir = EtcdSession.bytes(EtcdKeys.revokedDir(prefix));
        WatchOption puts = WatchOption.builder().isPrefix(true).withRevision(since + 1).withNoDelete(true).build();
        try {
            revocations = session.watches().watch(dir, puts, io.etcd.jetcd.Watch.listener(response -> {
                for (WatchEvent event : response.getEvents()) {
                    if (event.getEventType() == WatchEvent.EventType.PUT) {
                        recordSeen(event.getKeyValue());
                    }
                }
            }, error -> {
                // Compacted past its revision, refused (no read right on the records), or the client was
                // replaced or closed: the next grant starts it again; meanwhile renewals find revoked keys.
                synchronized (this) {
                    revocations = null;
                }
            }));
        } catch (RuntimeException e) {
            revocations = null; // closing; or the next grant tries again
        }
    }

    /**
     * A record was put. If it names a lease this client holds, its key is read first: a record is an
     * operator's word only where the operator alone may write records (the README's roles), so the
     * lease ends as revoked only if its key is really gone.
     */
    private void recordSeen(KeyValue record) {
        String key = record.getKey().toString(java.nio.charset.StandardCharsets.UTF_8);
        String token = key.substring(EtcdKeys.revokedDir(prefix).length());
        String reason = EtcdInspector.reason(record.getValue().getBytes());
        EtcdLine request = requests.get(token);
        if (request == null) {
            return;
        }
        Grant grant = request.grant;
        if (grant == null) {
            // Perhaps a request of this client whose grant is being decided now: marked, so that
            // decide() does not record it; checked again after the mark, as decide() records first
            // and looks at the mark after.
            request.revokedBefore = reason;
            grant = request.grant;
            if (grant == null) {
                return;
            }
        }
        EtcdLine line = (EtcdLine) grant.handle();
        try {
            session.kv().get(line.key).thenAccept(answer -> {
                List<KeyValue> kvs = answer.getKvs();
                if (kvs.isEmpty() || kvs.get(0).getCreateRevision() != line.createRevision) {
                    context.leaseRevoked(token, reason);
                }
            });
        } catch (RuntimeException e) {
            // closing, or the client is being replaced: the next renewal finds the key gone and reads the record
        }
    }

    /** One renewal is a batch of one: the same single {@code LeaseTimeToLive} call. */
    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        return extendAll(List.of(new Renewal(grant, leaseTime))).get(0);
    }

    /**
     * Deletes the grant's key. Returns once the server confirmed it gone; throws when it could not
     * tell: the engine calls this again (after a back-off, and at once when the session is restored).
     */
    @Override
    public boolean release(Grant grant) {
        boolean deleted = remove((EtcdLine) grant.handle(), false, "release '" + grant.name() + "'");
        forget(grant.ownerToken());
        return deleted;
    }

    /**
     * Releases in transactions of up to {@value #OPS_PER_TXN} grants (etcd refuses more than 128
     * operations in a transaction by default), all sent at once: closing a client that holds 10,000 leases costs about 100
     * writes, not 10,000, within one operation timeout.
     */
    @Override
    public List<Grant> releaseAll(List<Grant> grantsToRelease) {
        long lease = session.leaseIdIfAny();
        List<List<Grant>> batches = new ArrayList<>();
        List<Grant> batch = new ArrayList<>();
        int ops = 0;
        for (Grant grant : grantsToRelease) {
            int needs = 1; // one nested transaction per grant
            if (ops + needs > OPS_PER_TXN) {
                batches.add(batch);
                batch = new ArrayList<>();
                ops = 0;
            }
            batch.add(grant);
            ops += needs;
        }
        if (!batch.isEmpty()) {
            batches.add(batch);
        }
        List<CompletableFuture<TxnResponse>> replies = new ArrayList<>(batches.size());
        for (List<Grant> grants : batches) {
            replies.add(removals(grants, lease));
        }
        List<Grant> unconfirmed = new ArrayList<>();
        long deadline = System.nanoTime() + session.operationTimeout().toNanos();
        for (int i = 0; i < batches.size(); i++) {
            List<Grant> grants = batches.get(i);
            try {
                session.call(() -> removals(grants, lease), replies.get(i), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())),
                        "release " + grants.size() + " leases");
                grants.forEach(grant -> forget(grant.ownerToken()));
            } catch (RuntimeException e) {
                unconfirmed.addAll(grants);
            }
        }
        return unconfirmed;
    }

    /**
     * One transaction with a nested one per grant: delete its key if it still holds the grant's
     * owner token, and write the marker of each whose acquire was resent.
     */
    private CompletableFuture<TxnResponse> removals(List<Grant> grants, long lease) {
        List<Op> ops = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            EtcdLine line = (EtcdLine) grant.handle();
            ops.add(Op.txn(new Cmp[] {line.ours()}, removeOps(line, line.resent, lease, true), removeOps(line, line.resent, lease, false)));
        }
        return session.kv().txn().Then(ops.toArray(new Op[0])).commit();
    }

    @Override
    public boolean serverExpiresLeases() {
        return false;
    }

    /** The lease time passed without an extend: the key goes, as a key with a TTL would; as {@link #release}. */
    @Override
    public void leaseExpired(Grant grant) {
        remove((EtcdLine) grant.handle(), false, "end the expired lease on '" + grant.name() + "'");
        forget(grant.ownerToken());
    }

    /**
     * Deletes the request's key. After an unknown outcome, the same transaction leaves the request's
     * marker, which makes a write of the request that lands later take nothing (see
     * {@link #remove}). The request is forgotten only once the server confirmed it; until then this
     * throws and the engine calls it again.
     */
    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        EtcdLine line = requests.computeIfAbsent(request.ownerToken(), token -> newLine(request));
        line.stopWatching();
        // A request refused after its only write, whose removal was confirmed, left nothing that may land later.
        remove(line, outcomeUnknown && !line.settled, "withdraw a request for the " + request.hold().describe() + " '"
                + request.name() + "'");
        forget(request.ownerToken());
    }

    /**
     * Deletes a request's key, confirmed. If a write of the request may still land later — its
     * outcome was unknown, or one of its acquire transactions was sent again past a member that did
     * not answer (that member may apply it once it wakes up) — the same transaction writes the
     * request's marker, bound to the session lease: the late transaction's {@code If} then fails, and
     * the key is not brought back to hold the lock for nobody.
     *
     * @return true if this call deleted the key
     */
    private boolean remove(EtcdLine line, boolean outcomeUnknown, String what) {
        boolean mark = outcomeUnknown || line.resent;
        long lease = mark ? session.leaseId() : 0;
        try {
            return session.call(() -> removal(line, mark, lease), what) > 0;
        } catch (EtcdSession.SessionGone e) {
            // The marker named a lease the server no longer has: nothing was written. A late write
            // naming that lease fails the same way; try again with the new session.
            session.sessionLost(lease);
            throw new BackendUnavailableException(session.endpointNames(), "etcd at " + session.endpoint()
                    + " could not " + what + ": the session was lost meanwhile; retrying with a new one", e);
        }
    }

    /** @return the removal's call: the number of keys it deleted (only a key that holds the request's owner token) */
    private CompletableFuture<Long> removal(EtcdLine line, boolean mark, long lease) {
        return session.kv().txn().If(line.ours()).Then(removeOps(line, mark, lease, true)).Else(removeOps(line, mark, lease, false))
                .commit().thenApply(answer -> answer.isSucceeded() ? answer.getDeleteResponses().get(0).getDeleted() : 0L);
    }

    /** The delete of the request's key (when it is still the request's), and its marker if asked. */
    private static Op[] removeOps(EtcdLine line, boolean mark, long lease, boolean ours) {
        List<Op> ops = new ArrayList<>(2);
        if (ours) {
            ops.add(Op.delete(line.key, DeleteOption.DEFAULT));
        }
        if (mark && lease != 0) {
            ops.add(Op.put(line.marker(), EMPTY, PutOption.builder().withLeaseId(lease).build()));
        }
        return ops.toArray(new Op[0]);
    }

    private void forget(String ownerToken) {
        EtcdLine line = requests.remove(ownerToken);
        if (line != null) {
            line.grant = null;
            line.stopWatching();
            boolean lock = line.hold.kind() == Hold.Kind.EXCLUSIVE;
            String key = lock ? line.name : line.slotDir();
            synchronized (lockSlots) {
                Map<String, Object> slots = lock ? lockSlots : sharedSlots;
                Object taken = slots.get(key);
                if (taken == SLOT_ZERO) {
                    if (line.slot == 0) {
                        slots.remove(key);
                    }
                } else if (taken != null) {
                    java.util.BitSet set = (java.util.BitSet) taken;
                    set.clear(line.slot);
                    if (set.isEmpty()) {
                        slots.remove(key);
                    }
                }
            }
        }
    }

    /**
     * A request's place in line, under the lowest slot of its directory (its lock, its read-write
     * lock's side, its semaphore's count) that no request of this client holds.
     */
    private EtcdLine newLine(LockRequest request) {
        String dir = EtcdKeys.requestDir(prefix, request.name(), request.hold());
        boolean lock = request.hold().kind() == Hold.Kind.EXCLUSIVE;
        String key = lock ? request.name() : dir;
        int slot;
        synchronized (lockSlots) {
            Map<String, Object> slots = lock ? lockSlots : sharedSlots;
            Object taken = slots.get(key);
            if (taken == null) {
                slots.put(key, SLOT_ZERO);
                slot = 0;
            } else {
                java.util.BitSet set;
                if (taken == SLOT_ZERO) {
                    set = new java.util.BitSet();
                    set.set(0);
                    slots.put(key, set);
                } else {
                    set = (java.util.BitSet) taken;
                }
                slot = set.nextClearBit(0);
                set.set(slot);
            }
        }
        return new EtcdLine(prefix, clientId, slot, dir, request, context.owner());
    }

    // ---- inspection and revocation -------------------------------------------------------------

    @Override
    public Optional<LockInfo> inspect(String name) {
        return inspector.inspect(name);
    }

    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        return inspector.holders(prefix, limit);
    }

    @Override
    public Optional<Revoked> revoke(String name, String reason) {
        return inspector.revoke(name, reason);
    }

    /**
     * The readers and the writer of a read-write lock, or the permits of a semaphore, in one read of
     * its line: each hold's id is its key's create revision (its fencing token too), never the
     * owner token its value carries.
     */
    @Override
    public List<LockInfo> holds(String name, io.distlock.Feature primitive) {
        return inspector.holds(name, primitive);
    }

    /**
     * One read of the line and one transaction guarded by the hold's create revision: the key goes
     * and the record is put under {@code revoked/}, where a lock's revoke puts it (same rights, same
     * watch and renewal path for the holder's client).
     */
    @Override
    public Optional<Revoked> revokeHold(String name, io.distlock.Feature primitive, String holdId, String reason) {
        return inspector.revokeHold(name, primitive, holdId, reason);
    }

    // ---- the session ---------------------------------------------------------------------------

    /**
     * The session lease is gone, and every key bound to it: the engine loses every lease it granted
     * (those recorded, and one on its way), and its waiters start over in line.
     */
    /**
     * @return the session lease {@code id} as the grants bound to it name it: one object per session
     *         lease, not one per grant
     */
    private Long boxed(long id) {
        Long last = boxedSession;
        if (last == null || last != id) {
            last = id;
            boxedSession = last;
        }
        return last;
    }

    private void sessionLost(long leaseId) {
        context.sessionEnded(leaseId);
        for (EtcdLine line : requests.values()) {
            if (line.leaseId == leaseId) {
                line.createRevision = 0;
            }
        }
        lookAgain();
    }

    /** Every waiting request looks at its line again at its next attempt, and every waiter is woken for it. */
    private void lookAgain() {
        requests.values().forEach(line -> line.changed = true);
        waiters.wakeAll();
        shared.wakeAll();
    }

    /** @return the client's session lease (for tests that revoke it) */
    public long sessionLeaseId() {
        return session.leaseId();
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            if (revocations != null) {
                revocations.close();
                revocations = null;
            }
        }
        requests.values().forEach(EtcdLine::stopWatching);
        feeds.close();
        session.close();
    }
}
