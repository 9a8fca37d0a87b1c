package io.distlock.zookeeper.internal;

import io.distlock.AccessDeniedException;
import io.distlock.BackendUnavailableException;
import io.distlock.LockInfo;
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
 * and taking one back ({@link #revoke}), and the revocation records a revoked holder's client reads
 * ({@link #reason}).
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
 * {@code <chroot>/.revoked/<owner token>} with the reason. Either both happen or neither.
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
            // A node written by this layout once more (version 1) was granted after waiting: its mtime
            // is the grant. Otherwise the grant was at once (ctime), or the layout is the previous one,
            // whose renewals rewrote the node (ctime: when it joined the line).
            long grantedAt = NodeData.isLayout(data) && stat.getVersion() > 0 ? stat.getMtime() : stat.getCtime();
            return LockInfo.builder(name)
                    .owner(NodeData.value(data, "owner"))
                    .fencingToken(stat.getCzxid())
                    .acquiredAt(Instant.ofEpochMilli(grantedAt), LockInfo.Clock.SERVER)
                    .waiters(queue.size() - 1)
                    .detail("node " + ZkPaths.shown(dir, child()) + ", session 0x" + Long.toHexString(stat.getEphemeralOwner()))
                    .build();
        }
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
        for (int round = 0; round < ROUNDS; round++) {
            Optional<Holder> read = read(name);
            if (read.isEmpty()) {
                return Optional.empty();
            }
            Holder holder = read.get();
            String token = ZkPaths.ownerToken(holder.child());
            String record = ZkPaths.record(chroot, token);
            ZooKeeper zk = session.zk();
            List<OpResult> results = calls.await(multi(zk, List.of(Op.delete(holder.path(), -1),
                    Op.create(record, NodeData.record(reason, owner), session.acl(), CreateMode.PERSISTENT))),
                    "revoke '" + name + "'");
            int failed = failedOp(results);
            if (failed < 0) {
                sweep(zk, token);
                return Optional.of(new Revoked(holder.info(), token));
            }
            int code = ((OpResult.ErrorResult) results.get(failed)).getErr();
            if (code == KeeperException.Code.NOAUTH.intValue()) {
                throw refused(name, failed == 0 ? holder.dir() : ZkPaths.revokedDir(chroot), null);
            }
            if (failed == 1 && code == KeeperException.Code.NONODE.intValue()) {
                if (session.authenticated()) {
                    // Only an operator may keep records; which principal that is, this client cannot
                    // know: the operator creates the node with its rights (README).
                    throw refused(name, ZkPaths.revokedDir(chroot), "it does not exist: revocation is set up by creating it"
                            + " with the operator's rights (see lock-zookeeper's README, 'Inspection and revocation')");
                }
                session.createParents(chroot);
                createRecordsNode(zk);
                continue;
            }
            if (failed != 0 || code != KeeperException.Code.NONODE.intValue()) {
                throw KeeperException.create(KeeperException.Code.get(code), failed == 0 ? holder.path() : record);
            }
            // The holder's node went before the multi: look again.
        }
        throw changing(name);
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

    private AccessDeniedException refused(String name, String path, String why) {
        return new AccessDeniedException(calls.endpoint(), "ZooKeeper at " + calls.endpoint() + " refused to revoke '" + name
                + "': " + session.principal() + (why != null ? " cannot keep a revocation record in " + path + ": " + why
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
