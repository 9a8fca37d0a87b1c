package io.distlock.zookeeper.internal;

import io.distlock.AccessDeniedException;
import io.distlock.BackendUnavailableException;
import io.distlock.LockInfo;
import io.distlock.spi.Hold;
import io.distlock.spi.Revoked;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * An operator's calls on the locks of a chroot: who holds a lock ({@link #inspect}, {@link #holders})
 * and taking one back ({@link #revoke}); the same for the holds of a read-write lock or a semaphore
 * ({@link #holds}, {@link #revokeHold}: each reader, writer or permit is a node of the line that
 * holds by {@link LineRules}, named by its sequence); and the revocation records a revoked holder's
 * client reads ({@link #reason}).
 *
 * <p>The holder of a lock is the first node of its line; what it shows comes from the node itself:
 * its data (the owner description, {@link NodeData}), its {@code czxid} (the fencing token), its
 * {@code ctime}, or for a holder that waited in line its {@code mtime} (written once at the grant,
 * {@link LockLine#granted}): the ZooKeeper leader's clock. Reading it takes two round trips, a
 * listing of the line and a read of its first node: ZooKeeper cannot read a node whose name it has
 * not been told, and a line's first node has a name only its listing gives.
 *
 * <p>A revoke is one {@code multi}: delete the holder's node (by its exact path: a node that is gone
 * is never recreated, so it deletes that holder or nothing) and create the revocation record
 * {@code <chroot>/.revoked/<owner token>} with the reason. Either both happen or neither. A hold's
 * revoke is the same {@code multi} on the hold's node, so its holder's client learns it the same way
 * (the watch on its granted node, or its next extension), whatever it holds.
 */
final class LockInspector {

    /** How often a read or a revoke looks at a line again when its first node went meanwhile. */
    private static final int ROUNDS = 5;
    /** How many lock directories {@link #holders} reads at once. */
    private static final int BATCH = 256;

    private final ZkSession session;
    private final ZkCalls calls;
    private final String chroot;
    private final String owner;
    private final Duration recordRetention;

    /**
     * @param session         the client's session
     * @param chroot          where the locks live
     * @param owner           this client's owner description, written into the records of its revokes
     * @param recordRetention how long a revocation record is kept at least (a later revoke sweeps it)
     */
    LockInspector(ZkSession session, String chroot, String owner, Duration recordRetention) {
        this.session = session;
        this.calls = session.calls();
        this.chroot = chroot;
        this.owner = owner;
        this.recordRetention = recordRetention;
    }

    /** The first node of a line, as read. */
    private record Holder(String name, String dir, List<String> queue, byte[] data, Stat stat) {
        String child() {
            return queue.get(0);
        }

        String path() {
            return dir + "/" + child();
        }

        LockInfo info() {
            return LockInfo.builder(name)
                    .owner(NodeData.value(data, "owner"))
                    .fencingToken(stat.getCzxid())
                    .acquiredAt(grantedAt(data, stat), LockInfo.Clock.SERVER)
                    .waiters(queue.size() - 1)
                    .detail("node " + ZkPaths.shown(dir, child()) + ", session 0x" + Long.toHexString(stat.getEphemeralOwner()))
                    .build();
        }
    }

    /**
     * When a node's request was granted, by the leader's clock: a node written by this layout once
     * more (version 1) was granted after waiting, and its mtime is the grant. Otherwise the grant was
     * at once (ctime), or the layout is the previous one, whose renewals rewrote the node (ctime:
     * when it joined the line).
     */
    private static Instant grantedAt(byte[] data, Stat stat) {
        return Instant.ofEpochMilli(NodeData.isLayout(data) && stat.getVersion() > 0 ? stat.getMtime() : stat.getCtime());
    }

    Optional<LockInfo> inspect(String name) throws KeeperException {
        return read(name).map(Holder::info);
    }

    /** The line's first node, read after its listing; the listing again if that node went meanwhile. */
    private Optional<Holder> read(String name) throws KeeperException {
        String dir = ZkPaths.lockDir(chroot, name);
        for (int round = 0; round < ROUNDS; round++) {
            ZooKeeper zk = session.zk();
            List<String> queue = ZkPaths.queue(calls.await(listSynced(zk, dir), "list " + dir));
            if (queue.isEmpty()) {
                return Optional.empty();
            }
            Holder holder = calls.await(readFirst(zk, name, dir, queue), "read the holder's node in " + dir);
            if (holder != null) {
                return Optional.of(holder);
            }
        }
        throw changing(name);
    }

    private BackendUnavailableException changing(String name) {
        return new BackendUnavailableException(calls.endpoint(), "the holder of '" + name + "' changed " + ROUNDS
                + " times while ZooKeeper at " + calls.endpoint() + " was asked who it is; ask again", null);
    }

    /**
     * A listing that shows at least what the leader had when it was sent: a {@code sync} first, in
     * order with it on the session (a follower may lag). A directory that does not exist lists empty.
     */
    private static CompletableFuture<List<String>> listSynced(ZooKeeper zk, String dir) {
        zk.sync(dir, (rc, p, ctx) -> { }, null);
        return list(zk, dir);
    }

    private static CompletableFuture<List<String>> list(ZooKeeper zk, String dir) {
        CompletableFuture<List<String>> listed = new CompletableFuture<>();
        zk.getChildren(dir, false, (rc, p, ctx, children) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                listed.complete(List.of());
            } else {
                ZkCalls.complete(listed, rc, p, children);
            }
        }, null);
        return listed;
    }

    /** @return the first node of {@code queue} as read, or null (completed) if it is gone */
    private static CompletableFuture<Holder> readFirst(ZooKeeper zk, String name, String dir, List<String> queue) {
        CompletableFuture<Holder> read = new CompletableFuture<>();
        zk.getData(dir + "/" + queue.get(0), false, (rc, p, ctx, data, stat) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                read.complete(null);
            } else {
                ZkCalls.complete(read, rc, p, stat == null ? null : new Holder(name, dir, queue, data, stat));
            }
        }, null);
        return read;
    }

    /**
     * Lists the chroot (one read, after a sync), keeps the lock directories whose names start with
     * {@code prefix}, in name order, and reads them in batches: every directory's line at once, then
     * every line's first node at once, until {@code limit} holders are found.
     */
    List<LockInfo> holders(String prefix, int limit) throws KeeperException {
        ZooKeeper zk = session.zk();
        Map<String, String> dirs = new TreeMap<>(); // name → directory, in name order
        for (String child : calls.await(listSynced(zk, chroot), "list " + chroot)) {
            String name = ZkPaths.decode(child);
            if (name != null && name.startsWith(prefix)) {
                dirs.put(name, chroot + "/" + child);
            }
        }
        List<LockInfo> found = new ArrayList<>();
        List<Map.Entry<String, String>> todo = new ArrayList<>(dirs.entrySet());
        for (int from = 0; from < todo.size() && found.size() < limit; from += BATCH) {
            List<Map.Entry<String, String>> batch = todo.subList(from, Math.min(todo.size(), from + BATCH));
            List<CompletableFuture<List<String>>> lines = new ArrayList<>(batch.size());
            for (Map.Entry<String, String> dir : batch) {
                lines.add(list(zk, dir.getValue()));
            }
            List<CompletableFuture<Holder>> firsts = new ArrayList<>(batch.size());
            for (int i = 0; i < batch.size(); i++) {
                List<String> queue = ZkPaths.queue(calls.await(lines.get(i), "list " + batch.get(i).getValue()));
                firsts.add(queue.isEmpty() ? CompletableFuture.completedFuture(null)
                        : readFirst(zk, batch.get(i).getKey(), batch.get(i).getValue(), queue));
            }
            for (int i = 0; i < batch.size() && found.size() < limit; i++) {
                Holder holder = calls.await(firsts.get(i), "read the holder's node in " + batch.get(i).getValue());
                if (holder != null) { // else released meanwhile: a moment's picture either way
                    found.add(holder.info());
                }
            }
        }
        return found;
    }

    /**
     * Revokes the lease of the holder of {@code name}: one {@code multi} deletes its node and writes
     * the record. If the holder's node went before the {@code multi} (released, or revoked by someone
     * else), the line is read again: the revoke takes whoever holds the lock now, or finds it free.
     */
    Optional<Revoked> revoke(String name, String reason) throws KeeperException {
        String what = "revoke '" + name + "'";
        for (int round = 0; round < ROUNDS; round++) {
            Optional<Holder> read = read(name);
            if (read.isEmpty()) {
                return Optional.empty();
            }
            Holder holder = read.get();
            String token = ZkPaths.ownerToken(holder.child());
            ZooKeeper zk = session.zk();
            Ending ending = Ending.AS_NEW;
            for (int sent = 0; !ending.settled(); sent++) {
                checkSends(sent, what);
                ending = deleteWithRecord(zk, what, holder.path(), token, ending,
                        multi(zk, deleteWithRecordOps(holder.path(), token, reason, ending)));
            }
            if (ending == Ending.DONE) {
                sweep(zk, token);
                return Optional.of(new Revoked(holder.info(), token));
            }
            // The holder's node went before the multi: look again.
        }
        throw changing(name);
    }

    /**
     * The holds of a read-write lock's or a semaphore's line, first in line first: a {@code sync} and
     * a listing (one round trip), then a read of every node that holds by the line's rules, all sent
     * at once (one round trip). A hold released between the two is left out: a moment's picture.
     *
     * @param name      the primitive's name
     * @param primitive any hold of the primitive ({@link Hold#READ} for a read-write lock, a permit
     *                  for a semaphore): which line
     */
    List<LockInfo> holds(String name, Hold primitive) throws KeeperException {
        String dir = ZkPaths.dir(chroot, name, primitive);
        ZooKeeper zk = session.zk();
        Line line = calls.await(listLine(zk, dir, primitive), "list " + dir);
        List<String> held = LineRules.holding(line.queue());
        int waiters = line.queue().size() - held.size();
        List<CompletableFuture<HoldNode>> reads = new ArrayList<>(held.size());
        for (String child : held) {
            reads.add(readHold(zk, name, dir, child, ZkPaths.holdId(child, line.dirCzxid()), waiters));
        }
        List<LockInfo> found = new ArrayList<>(held.size());
        for (int i = 0; i < reads.size(); i++) {
            HoldNode node = calls.await(reads.get(i), "read a hold's node in " + dir);
            if (node != null) {
                found.add(node.info());
            }
        }
        return found;
    }

    /**
     * Takes one hold of a read-write lock or a semaphore back: the node that {@code holdId} names
     * (its sequence, in the life of the directory its {@code czxid} names) is found in one listing of
     * its line (after a {@code sync}: one round trip), and
     * only if it holds by the line's rules (a waiter is nobody's hold) one {@code multi} deletes it
     * by its exact path and creates its record, as {@link #revoke} does for a lock, with a read of the
     * node sent just before it on the session (in order: the node as the {@code multi} found it; one
     * round trip for both). A node that holds keeps holding until it goes ({@link LineRules#holds}),
     * so the node the {@code multi} deletes is a hold; if it went first (released, expired, revoked
     * by someone else) the {@code multi} changes nothing and the hold id names no hold any more: empty.
     * The other holds stay; every node behind it was created after it (a higher {@code czxid}), and
     * the waiters watching it are woken by its deletion.
     *
     * @param name      the primitive's name
     * @param primitive which line, as {@link #holds}
     * @param holdId    the hold id {@link #holds} showed: the node's sequence and its directory's {@code czxid}
     * @param reason    the operator's reason, kept in the record
     * @return what was revoked, or empty if no node of that sequence holds (nothing changed)
     */
    Optional<Revoked> revokeHold(String name, Hold primitive, String holdId, String reason) throws KeeperException {
        ZkPaths.HoldKey key = ZkPaths.parseHoldId(holdId);
        if (key == null) {
            return Optional.empty(); // not one of this backend's hold ids: names no hold
        }
        String dir = ZkPaths.dir(chroot, name, primitive);
        ZooKeeper zk = session.zk();
        Line line = calls.await(listLine(zk, dir, primitive), "list " + dir);
        if (line.dirCzxid() != key.dirCzxid()) {
            return Optional.empty(); // a hold of an earlier life of the directory (or none): ended with it
        }
        List<String> queue = line.queue();
        int place = -1;
        for (int i = 0; i < queue.size() && place < 0; i++) {
            if (ZkPaths.sequenceOf(queue.get(i)).equals(key.sequence())) {
                place = i;
            }
        }
        if (place < 0 || !LineRules.holds(queue, place)) {
            return Optional.empty();
        }
        String child = queue.get(place);
        String path = dir + "/" + child;
        String token = ZkPaths.ownerToken(child);
        int waiters = queue.size() - LineRules.holding(queue).size();
        String id = ZkPaths.holdId(child, line.dirCzxid());
        String what = "revoke the hold " + id + " of " + (primitive.kind() == Hold.Kind.PERMIT ? "semaphore '" : "read-write lock '")
                + name + "'";
        Ending ending = Ending.AS_NEW;
        HoldNode held = null;
        for (int sent = 0; !ending.settled(); sent++) {
            checkSends(sent, what);
            CompletableFuture<HoldNode> read = readHold(zk, name, dir, child, id, waiters); // before the multi, in order on the session
            CompletableFuture<List<OpResult>> revoked = multi(zk, deleteWithRecordOps(path, token, reason, ending));
            held = calls.await(read, "read the hold's node " + ZkPaths.shownHold(dir, child));
            ending = deleteWithRecord(zk, what, path, token, ending, revoked);
        }
        if (ending == Ending.NODE_GONE || held == null) {
            return Optional.empty();
        }
        sweep(zk, token);
        return Optional.of(new Revoked(held.info(), token));
    }

    /** A read-write lock's or a semaphore's line as listed: its nodes, first in line first, and its directory's {@code czxid}. */
    private record Line(List<String> queue, long dirCzxid) {
    }

    /**
     * A {@code sync} and a listing of a line's directory, in order on the session (one round trip),
     * with the directory's {@code Stat}, whose {@code czxid} tells one life of the directory from
     * another ({@link ZkPaths#holdId}). A directory that does not exist lists empty.
     */
    private static CompletableFuture<Line> listLine(ZooKeeper zk, String dir, Hold primitive) {
        zk.sync(dir, (rc, p, ctx) -> { }, null);
        CompletableFuture<Line> listed = new CompletableFuture<>();
        zk.getChildren(dir, false, (rc, p, ctx, children, stat) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                listed.complete(new Line(List.of(), 0));
            } else {
                ZkCalls.complete(listed, rc, p, children == null ? null : new Line(ZkPaths.queue(children, primitive), stat.getCzxid()));
            }
        }, null);
        return listed;
    }

    /** A node of a read-write lock's or a semaphore's line that holds, as read. */
    private record HoldNode(String name, String dir, String child, String id, int waiters, byte[] data, Stat stat) {
        LockInfo info() {
            Hold hold = ZkPaths.holdOf(child);
            LockInfo.Builder info = LockInfo.builder(name)
                    .owner(NodeData.value(data, "owner"))
                    .fencingToken(stat.getCzxid())
                    .acquiredAt(grantedAt(data, stat), LockInfo.Clock.SERVER)
                    .waiters(waiters)
                    .detail("node " + ZkPaths.shownHold(dir, child) + ", session 0x" + Long.toHexString(stat.getEphemeralOwner()));
            switch (hold.kind()) {
                case READ:
                    info.hold(LockInfo.Kind.READ, id);
                    break;
                case WRITE:
                    info.hold(LockInfo.Kind.WRITE, id);
                    break;
                default:
                    info.hold(LockInfo.Kind.PERMIT, id).permits(hold.permits());
                    break;
            }
            return info.build();
        }
    }

    /** @return the hold's node as read, or null (completed) if it is gone */
    private static CompletableFuture<HoldNode> readHold(ZooKeeper zk, String name, String dir, String child, String id, int waiters) {
        CompletableFuture<HoldNode> read = new CompletableFuture<>();
        zk.getData(dir + "/" + child, false, (rc, p, ctx, data, stat) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                read.complete(null);
            } else {
                ZkCalls.complete(read, rc, p, stat == null ? null : new HoldNode(name, dir, child, id, waiters, data, stat));
            }
        }, null);
        return read;
    }

    /**
     * How a revoke's {@code multi} went, and how to send it again: {@link #AS_NEW} creates the record,
     * {@link #RECORD_KEPT} overwrites one already there (a request revoked before, as the first in a
     * line whose client did not know it yet, that joined the line again with the same owner token).
     */
    private enum Ending {
        AS_NEW, RECORD_KEPT, DONE, NODE_GONE;

        boolean settled() {
            return this == DONE || this == NODE_GONE;
        }
    }

    /**
     * A revoke's {@code multi} is sent again only when the records' node or a record changed under
     * it (created, swept): a few times at most, unless someone keeps deleting them.
     */
    private void checkSends(int sent, String what) {
        if (sent >= ROUNDS) {
            throw new BackendUnavailableException(calls.endpoint(), "could not " + what + ": the revocation records in "
                    + ZkPaths.revokedDir(chroot) + " at " + calls.endpoint() + " changed " + ROUNDS + " times meanwhile; ask again", null);
        }
    }

    /** The {@code multi} of a revoke: delete the node by its exact path, and create (or overwrite) its record. */
    private List<Op> deleteWithRecordOps(String path, String token, String reason, Ending ending) {
        String record = ZkPaths.record(chroot, token);
        byte[] data = NodeData.record(reason, owner);
        return List.of(Op.delete(path, -1), ending == Ending.RECORD_KEPT ? Op.setData(record, data, -1)
                : Op.create(record, data, session.acl(), CreateMode.PERSISTENT));
    }

    /**
     * Awaits a revoke's {@code multi} and says what it did: {@link Ending#DONE} (both), {@link
     * Ending#NODE_GONE} (the node went first: nothing changed), or how to send it again (the records'
     * node was missing and is now created, for a client without credentials; or a record was there).
     *
     * @throws io.distlock.AccessDeniedException if the principal may not delete the node or keep the record
     */
    private Ending deleteWithRecord(ZooKeeper zk, String what, String path, String token, Ending sent,
                                    CompletableFuture<List<OpResult>> multi) throws KeeperException {
        List<OpResult> results = calls.await(multi, what);
        int failed = failedOp(results);
        if (failed < 0) {
            return Ending.DONE;
        }
        int code = ((OpResult.ErrorResult) results.get(failed)).getErr();
        String record = ZkPaths.record(chroot, token);
        if (code == KeeperException.Code.NOAUTH.intValue()) {
            throw refused(what, failed == 0 ? path.substring(0, path.lastIndexOf('/')) : ZkPaths.revokedDir(chroot), null);
        }
        if (failed == 0 && code == KeeperException.Code.NONODE.intValue()) {
            return Ending.NODE_GONE;
        }
        if (failed == 1 && code == KeeperException.Code.NODEEXISTS.intValue() && sent == Ending.AS_NEW) {
            return Ending.RECORD_KEPT;
        }
        if (failed == 1 && code == KeeperException.Code.NONODE.intValue() && sent == Ending.AS_NEW) {
            if (session.authenticated()) {
                // Only an operator may keep records; which principal that is, this client cannot
                // know: the operator creates the node with its rights (README).
                throw refused(what, ZkPaths.revokedDir(chroot), "it does not exist: revocation is set up by creating it"
                        + " with the operator's rights (see lock-zookeeper's README, 'Inspection and revocation')");
            }
            session.createParents(chroot);
            createRecordsNode(zk);
            return Ending.AS_NEW;
        }
        if (failed == 1 && code == KeeperException.Code.NONODE.intValue()) {
            return Ending.AS_NEW; // the record to overwrite was swept meanwhile: create it
        }
        throw KeeperException.create(KeeperException.Code.get(code), failed == 0 ? path : record);
    }

    /**
     * Sends a {@code multi}; completes with its results, whether it succeeded or one operation failed
     * (then every result is an {@link OpResult.ErrorResult}); exceptionally if no results came.
     */
    private static CompletableFuture<List<OpResult>> multi(ZooKeeper zk, List<Op> ops) {
        CompletableFuture<List<OpResult>> done = new CompletableFuture<>();
        zk.multi(ops, (rc, path, ctx, results) -> {
            if (results != null && results.size() == ops.size()) {
                done.complete(results);
            } else {
                ZkCalls.complete(done, rc == 0 ? KeeperException.Code.SYSTEMERROR.intValue() : rc, path, null);
            }
        }, null);
        return done;
    }

    /** @return the index of the operation that made a {@code multi} fail, or -1 if it succeeded */
    private static int failedOp(List<OpResult> results) {
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult error && error.getErr() != KeeperException.Code.OK.intValue()
                    && error.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                return i;
            }
        }
        return -1;
    }

    /** @param what what was refused: {@code revoke 'name'}, {@code revoke the hold … of semaphore 'name'} */
    private AccessDeniedException refused(String what, String path, String why) {
        return new AccessDeniedException(calls.endpoint(), "ZooKeeper at " + calls.endpoint() + " refused to " + what
                + ": " + session.principal() + (why != null ? " cannot keep a revocation record in " + path + ": " + why
                : " has no permission on " + path + " (NOAUTH); an operator needs DELETE on the lock directories (granted on"
                + " the chroot, which lock directories inherit) and CREATE on " + ZkPaths.revokedDir(chroot)), null);
    }

    /** Creates the records' node, for a client without credentials (every node is open then). */
    private void createRecordsNode(ZooKeeper zk) throws KeeperException {
        CompletableFuture<Boolean> created = new CompletableFuture<>();
        zk.create(ZkPaths.revokedDir(chroot), new byte[0], session.acl(), CreateMode.PERSISTENT, (rc, p, ctx, n) ->
                ZkCalls.complete(created, rc == KeeperException.Code.NODEEXISTS.intValue() ? 0 : rc, p, true), null);
        calls.await(created, "create " + ZkPaths.revokedDir(chroot));
    }

    /**
     * Deletes the records older than the retention, by the server's clock: their {@code ctime}
     * against the new record's. Every revoke does it, so a failure here (a connection lost, no
     * DELETE) is left to the next revoke: the revoke itself has happened.
     */
    private void sweep(ZooKeeper zk, String ownToken) {
        String dir = ZkPaths.revokedDir(chroot);
        try {
            List<String> records = calls.await(list(zk, dir), "list " + dir);
            Map<String, CompletableFuture<Stat>> stats = new TreeMap<>();
            for (String record : records) {
                CompletableFuture<Stat> stat = new CompletableFuture<>();
                zk.exists(dir + "/" + record, false, (rc, p, ctx, s) -> stat.complete(s), null);
                stats.put(record, stat);
            }
            Stat own = calls.await(stats.getOrDefault(ownToken, CompletableFuture.completedFuture(null)), "read " + dir);
            if (own == null) {
                return;
            }
            List<CompletableFuture<Boolean>> deletes = new ArrayList<>();
            for (Map.Entry<String, CompletableFuture<Stat>> record : stats.entrySet()) {
                Stat stat = calls.await(record.getValue(), "read " + dir);
                if (stat != null && own.getCtime() - stat.getCtime() > recordRetention.toMillis()) {
                    CompletableFuture<Boolean> deleted = new CompletableFuture<>();
                    zk.delete(dir + "/" + record.getKey(), -1, (rc, p, ctx) -> deleted.complete(rc == 0), null);
                    deletes.add(deleted);
                }
            }
            for (CompletableFuture<Boolean> deleted : deletes) {
                calls.await(deleted, "sweep " + dir);
            }
        } catch (KeeperException | RuntimeException e) {
            // left to the next revoke's sweep (see above)
        }
    }

    /**
     * Reads the revocation record of {@code ownerToken}: a lease whose node went with a record was
     * revoked. A record's node only an operator may write (with credentials), so a record is the
     * server's word that a revocation happened.
     *
     * @return the reason kept, or empty (completed) if there is no record
     */
    CompletableFuture<Optional<String>> reason(ZooKeeper zk, String ownerToken) {
        CompletableFuture<Optional<String>> reason = new CompletableFuture<>();
        zk.getData(ZkPaths.record(chroot, ownerToken), false, (rc, p, ctx, data, stat) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                reason.complete(Optional.empty());
            } else if (rc == KeeperException.Code.OK.intValue()) {
                String kept = NodeData.value(data, "reason");
                reason.complete(Optional.of(kept != null ? kept : "(no reason kept)"));
            } else {
                ZkCalls.complete(reason, rc, p, null);
            }
        }, null);
        return reason;
    }
}
