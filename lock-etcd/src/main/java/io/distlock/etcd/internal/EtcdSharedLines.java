package io.distlock.etcd.internal;

import io.distlock.PermitCountMismatchException;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Waiters;
import io.distlock.spi.Watch;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines of read-write locks and semaphores: one key per request, bound to the session lease and
 * ranked by create revision, as a lock's — etcd's {@code concurrency} recipes (its read-write lock
 * in {@code contrib/recipes}) — with another rule for who is let in:
 * <ul>
 *   <li>a READ key is granted iff no WRITE key of the same read-write lock has a lower create
 *       revision (it waits for the closest earlier WRITE key);</li>
 *   <li>a WRITE key iff it has the lowest create revision of the read-write lock, readers and
 *       writers together (it waits for the key just before it);</li>
 *   <li>a PERMIT key iff fewer than {@code permits} keys of the semaphore have a lower create
 *       revision (it waits for deletions among the keys ahead of it).</li>
 * </ul>
 * A waiting writer's key is ahead of every reader that comes after it: write preference, and FIFO
 * for both sides. Holds are decided by the key alone, so a granted key stays granted until it is
 * deleted: the keys ahead of a key only go, never come.
 *
 * <p>The permit count is in each permit key's path: a key is refused (deleted, then
 * {@link PermitCountMismatchException}) if a live key of another count was created before it. Two
 * keys of different counts are then never both admitted while both live (the later one's check
 * sees the earlier one), so at most {@code permits} of one count are ever granted together.
 *
 * <p>An attempt is one transaction: the first puts the key and reads what decides it (every other
 * key is earlier than one written in the same transaction, so the latest keys are the ones before
 * it); a later one only reads. Its create revision is the fencing token, the same sequence for
 * readers and writers: a writer is granted only once every earlier key is gone, and a later key
 * cannot be granted before it, so its token is above every token granted before it.
 */
final class EtcdSharedLines {

    /** What one attempt found. */
    enum Outcome {
        /** The key is granted: its create revision is the token. */
        GRANTED,
        /** The key waits, watching what can let it in. */
        BUSY,
        /** The line changed under the attempt (the key went, or was found after a lost reply): look again at once. */
        AGAIN
    }

    private static final GetOption COUNT = GetOption.builder().isPrefix(true).withCountOnly(true).build();

    private final EtcdSession session;
    private final String prefix;
    /** The client's feeds of deletions, which a reader's or writer's wait for one key subscribes to. */
    private final LineFeeds feeds;
    /** Read-write lock name → the engine's waiters in this client for either side. */
    private final Waiters readWriteWaiters = new Waiters();
    /** Semaphore name → the engine's waiters in this client for one of its permits. */
    private final Waiters semaphoreWaiters = new Waiters();

    EtcdSharedLines(EtcdSession session, String prefix, LineFeeds feeds) {
        this.session = session;
        this.feeds = feeds;
        this.prefix = prefix;
    }

    /**
     * One attempt of a READ, WRITE or PERMIT request.
     *
     * @throws PermitCountMismatchException if a live key of the semaphore with another count was
     *                                      created before this request's (whose key is then deleted)
     */
    Outcome tryOnce(LockRequest request, EtcdLine line, long lease) {
        if (line.createRevision != 0 && line.leaseId == lease) {
            return look(request, line);
        }
        return put(request, line, lease);
    }

    /**
     * If neither the key nor its marker exists, puts the key and reads what decides it; otherwise
     * reads the key (a copy of this transaction whose reply was lost may have written it).
     */
    private Outcome put(LockRequest request, EtcdLine line, long lease) {
        Hold hold = request.hold();
        List<Op> then = new ArrayList<>(4);
        then.add(Op.put(line.key, line.value, PutOption.builder().withLeaseId(lease).build()));
        String name = request.name();
        switch (hold.kind()) {
            case WRITE:
                // The two latest keys of the line: ours, and the one just before it.
                then.add(Op.get(line.dir(), latest(2)));
                break;
            case READ:
                // The latest WRITE key: every key but ours is earlier, so the closest earlier writer.
                then.add(Op.get(bytes(EtcdKeys.writeDir(prefix, name)), latest(1)));
                break;
            default:
                then.add(Op.get(line.dir(), COUNT));
                then.addAll(otherCounts(name, hold.permits(), 0));
                break;
        }
        line.putsSent++;
        line.countChecked = false; // a new key of ours (or one found after a lost reply) is checked anew
        ByteSequence marker = line.marker();
        TxnResponse answer = session.call(() -> session.kv().txn()
                .If(new Cmp(line.key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
                        new Cmp(marker, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(then.toArray(new Op[0]))
                .Else(Op.get(line.key, GetOption.DEFAULT), Op.get(marker, GetOption.builder().withCountOnly(true).build()))
                .commit(), () -> line.resent = true, "acquire the " + hold.describe() + " '" + name + "'");
        if (!answer.isSucceeded()) {
            return found(request, line, answer.getGetResponses().get(0).getKvs());
        }
        long mine = answer.getHeader().getRevision(); // the put's revision: the new key's create revision
        line.createRevision = mine;
        line.leaseId = lease;
        List<GetResponse> reads = answer.getGetResponses();
        switch (hold.kind()) {
            case WRITE: {
                List<KeyValue> latest = reads.get(0).getKvs();
                return latest.size() < 2 ? Outcome.GRANTED : waitFor(line, latest.get(1), mine);
            }
            case READ: {
                List<KeyValue> writer = reads.get(0).getKvs();
                return writer.isEmpty() ? Outcome.GRANTED : waitFor(line, writer.get(0), mine);
            }
            default:
                checkCount(request, line, reads.subList(1, 3));
                // Every key of the semaphore, ours included and the latest: granted if it is among the first permits.
                return reads.get(0).getCount() <= hold.permits() ? Outcome.GRANTED : waitForPermits(line, mine);
        }
    }

    /** The put's {@code If} failed: the key exists (a lost reply's copy landed), or the request was withdrawn. */
    private Outcome found(LockRequest request, EtcdLine line, List<KeyValue> own) {
        if (own.isEmpty()) {
            throw new IllegalStateException("the request for the " + request.hold().describe() + " '" + request.name()
                    + "' was withdrawn on " + session.endpoint() + "; it cannot be tried again");
        }
        if (!own.get(0).getValue().equals(line.value)) {
            // A late copy of an earlier request of this slot brought its key back: it holds nothing
            // of ours. Remove it, then join the line.
            ByteSequence stale = own.get(0).getValue();
            session.call(() -> session.kv().txn().If(new Cmp(line.key, Cmp.Op.EQUAL, CmpTarget.value(stale)))
                    .Then(Op.delete(line.key, DeleteOption.DEFAULT)).commit(), "remove a stale request for '" + request.name() + "'");
            return Outcome.AGAIN;
        }
        line.createRevision = own.get(0).getCreateRevision();
        line.leaseId = own.get(0).getLease();
        return Outcome.AGAIN; // its place is known now: look with reads only
    }

    /** Our key is in line: one read-only transaction (no Raft write, no fsync) reads it and what decides it. */
    private Outcome look(LockRequest request, EtcdLine line) {
        long mine = line.createRevision;
        Hold hold = request.hold();
        String name = request.name();
        boolean checkCount = hold.kind() == Hold.Kind.PERMIT && !line.countChecked;
        List<Op> reads = new ArrayList<>(4);
        reads.add(Op.get(line.key, GetOption.DEFAULT));
        switch (hold.kind()) {
            case WRITE:
                reads.add(Op.get(line.dir(), before(mine, 1)));
                break;
            case READ:
                reads.add(Op.get(bytes(EtcdKeys.writeDir(prefix, name)), before(mine, 1)));
                break;
            default:
                reads.add(Op.get(line.dir(), before(mine, hold.permits())));
                if (checkCount) {
                    reads.addAll(otherCounts(name, hold.permits(), mine));
                }
                break;
        }
        TxnResponse look = session.call(() -> session.kv().txn().Then(reads.toArray(new Op[0])).commit(),
                "look at the line of the " + hold.describe() + " '" + name + "'");
        List<GetResponse> got = look.getGetResponses();
        List<KeyValue> own = got.get(0).getKvs();
        if (own.isEmpty() || own.get(0).getCreateRevision() != mine || !own.get(0).getValue().equals(line.value)) {
            line.createRevision = 0; // gone (deleted by an operator, or with its session): join the line again
            return Outcome.AGAIN;
        }
        long readAt = look.getHeader().getRevision();
        List<KeyValue> ahead = got.get(1).getKvs();
        if (hold.kind() != Hold.Kind.PERMIT) {
            return ahead.isEmpty() ? Outcome.GRANTED : waitFor(line, ahead.get(0), readAt);
        }
        if (checkCount) {
            checkCount(request, line, got.subList(2, 4));
        }
        return ahead.size() < hold.permits() ? Outcome.GRANTED : waitForPermits(line, readAt);
    }

    /**
     * The reads of the semaphore's keys of any count but {@code permits} (the two ranges beside
     * {@code <semaphore>/<permits>/}), the earliest of each, created before {@code mine} (0: any).
     */
    private List<Op> otherCounts(String name, int permits, long mine) {
        String all = EtcdKeys.semaphoreDir(prefix, name);
        byte[] own = EtcdKeys.permitDir(prefix, name, permits).getBytes(StandardCharsets.UTF_8);
        GetOption.Builder below = GetOption.builder().withKeysOnly(true).withRange(ByteSequence.from(own))
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1);
        GetOption.Builder above = GetOption.builder().withKeysOnly(true)
                .withRange(ByteSequence.from(EtcdKeys.prefixEnd(all.getBytes(StandardCharsets.UTF_8))))
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1);
        if (mine != 0) {
            below.withMaxCreateRevision(mine - 1);
            above.withMaxCreateRevision(mine - 1);
        }
        return List.of(Op.get(bytes(all), below.build()), Op.get(ByteSequence.from(EtcdKeys.prefixEnd(own)), above.build()));
    }

    /**
     * Refuses the request if either read found a key of another count created before ours: deletes
     * our key (if it still holds our value), then throws. Until the delete is confirmed the request
     * looks again at its next attempt, which refuses it again.
     */
    private void checkCount(LockRequest request, EtcdLine line, List<GetResponse> others) {
        KeyValue other = null;
        for (GetResponse read : others) {
            for (KeyValue kv : read.getKvs()) {
                if (other == null || kv.getCreateRevision() < other.getCreateRevision()) {
                    other = kv;
                }
            }
        }
        if (other == null) {
            line.countChecked = true;
            return;
        }
        int stored = EtcdKeys.permitsOf(EtcdKeys.semaphoreDir(prefix, request.name()), other.getKey().toString(StandardCharsets.UTF_8));
        line.changed = true; // should the delete fail, the next attempt looks (and refuses) again
        boolean unsure = line.putsSent > 1 || line.resent;
        session.call(() -> session.kv().txn().If(line.ours()).Then(Op.delete(line.key, DeleteOption.DEFAULT)).commit(),
                "withdraw a permit of '" + request.name() + "' asked with another count");
        line.createRevision = 0;
        line.settled = !unsure;
        throw new PermitCountMismatchException(request.name(), stored, request.hold().permits());
    }

    /**
     * Waits for one key (the writer before a reader, the key before a writer), as read at {@code
     * readAt}, to go, told by the client's feed of the line's deletions; a wait for the same key for
     * the same key of ours goes on.
     */
    private Outcome waitFor(EtcdLine line, KeyValue predecessor, long readAt) {
        if (line.watches(predecessor.getKey())) {
            return Outcome.BUSY;
        }
        feeds.await(line, predecessor, readAt, waitersOf(line.hold));
        return Outcome.BUSY;
    }

    /**
     * Watches the semaphore's keys for deletions, as read at {@code readAt}, with each deleted
     * key's previous state: only a deletion of a key created before ours can let it in. The keys
     * ahead of ours only go, so one watch serves every later look of the same key of ours.
     */
    private Outcome waitForPermits(EtcdLine line, long readAt) {
        if (line.watches(line.dir())) {
            return Outcome.BUSY;
        }
        long mine = line.createRevision;
        // Without a previous state (compacted), the deletion may have been ahead of ours.
        LineWatch.start(session, line, WatchOption.builder().isPrefix(true).withNoPut(true).withPrevKV(true), readAt,
                event -> event.getEventType() == WatchEvent.EventType.DELETE
                        && (event.getPrevKV() == null || event.getPrevKV().getCreateRevision() < mine), semaphoreWaiters);
        return Outcome.BUSY;
    }

    /** Registers the engine's waiter of {@code request} with the waiters of its primitive. */
    Watch watch(LockRequest request, Runnable onChange) {
        return waitersOf(request.hold()).add(request.name(), onChange);
    }

    /** Wakes every waiter (a reconnect, a keep-alive period: a change may have gone unheard). */
    void wakeAll() {
        readWriteWaiters.wakeAll();
        semaphoreWaiters.wakeAll();
    }

    private Waiters waitersOf(Hold hold) {
        return hold.kind() == Hold.Kind.PERMIT ? semaphoreWaiters : readWriteWaiters;
    }

    /** @return the read of the {@code count} latest keys (by create revision) */
    private static GetOption latest(int count) {
        return GetOption.builder().isPrefix(true).withKeysOnly(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND).withLimit(count).build();
    }

    /** @return the read of at most {@code count} keys created before {@code mine}, the latest first */
    private static GetOption before(long mine, int count) {
        return GetOption.builder().isPrefix(true).withKeysOnly(true).withMaxCreateRevision(mine - 1)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND).withLimit(count).build();
    }

    private static ByteSequence bytes(String text) {
        return EtcdSession.bytes(text);
    }
}
