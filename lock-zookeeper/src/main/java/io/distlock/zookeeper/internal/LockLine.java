package io.distlock.zookeeper.internal;

import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The requests of the recipe on one line's directory — a lock's, a read-write lock's or a
 * semaphore's line of ephemeral-sequential nodes: join it, list it, find a request's node by its
 * owner token. Asynchronous where the recipe pipelines them; the recipe's policy (who holds, who
 * waits) is {@link LineRules}' and {@link ZkLockDriver}'s.
 */
final class LockLine {

    /**
     * A request's node: its path, czxid (the fencing token if it is granted), and the session it
     * lives with (its ephemeral owner: the grant is bound to that session).
     */
    record Node(String path, long czxid, long session) {
    }

    private final ZkSession session;
    /** What every node of this client holds: its owner description ({@link NodeData#lockNode}). */
    private final byte[] data;

    LockLine(ZkSession session, String owner) {
        this.session = session;
        this.data = NodeData.lockNode(owner);
    }

    /**
     * Sends the create of {@code request}'s node in {@code dir} (named for its hold, {@link
     * ZkPaths#nodePrefix(String, Hold, String)}; its data: the client's owner description) on handle
     * {@code zk}; its Stat carries the czxid and the ephemeral owner.
     */
    CompletableFuture<Node> join(ZooKeeper zk, String dir, LockRequest request) {
        CompletableFuture<Node> future = new CompletableFuture<>();
        zk.create(ZkPaths.nodePrefix(dir, request.hold(), request.ownerToken()), data, session.acl(), CreateMode.EPHEMERAL_SEQUENTIAL,
                (rc, path, ctx, name, stat) -> ZkCalls.complete(future, rc, path, stat == null ? null
                        : new Node(name, stat.getCzxid(), stat.getEphemeralOwner())), null);
        return future;
    }

    /**
     * Sends a check that the node at {@code path} still exists, as a {@code multi} of one check:
     * a write, so its answer comes from the leader's side (it proves the session alive) and it
     * changes nothing on the node — its {@code mtime} stays the time it was granted, and a waiter
     * watching it is not woken.
     *
     * @return true if it exists, false if the server answered that it does not
     */
    CompletableFuture<Boolean> stillThere(ZooKeeper zk, String path) {
        CompletableFuture<Boolean> reply = new CompletableFuture<>();
        zk.multi(List.of(Op.check(path, -1)), (rc, p, ctx, results) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                reply.complete(false);
            } else {
                ZkCalls.complete(reply, rc, path, true);
            }
        }, null);
        return reply;
    }

    /**
     * Marks the moment a request that waited in line is granted: the node's data is written again
     * (unchanged), so its {@code mtime}, the server's clock, says when it was granted (its
     * {@code ctime} says when it joined the line). Not awaited: a lost answer costs only the time
     * an inspection shows.
     */
    void granted(ZooKeeper zk, String path) {
        zk.setData(path, data, 0, (rc, p, ctx, stat) -> { }, null);
    }

    /** Sends a listing of {@code dir}. */
    CompletableFuture<List<String>> list(String dir) {
        return list(session.zk(), dir);
    }

    /** Sends a listing of {@code dir} on handle {@code zk}. */
    CompletableFuture<List<String>> list(ZooKeeper zk, String dir) {
        CompletableFuture<List<String>> future = new CompletableFuture<>();
        zk.getChildren(dir, false, (rc, path, ctx, children) -> ZkCalls.complete(future, rc, path, children), null);
        return future;
    }

    /**
     * Sends a {@code sync} of {@code dir} on handle {@code zk}: a follower answers it only once it has
     * caught up with the leader, so a listing sent after it on the same session sees at least what
     * the leader had, and its answer shows that the leader still had the session.
     */
    CompletableFuture<Boolean> sync(ZooKeeper zk, String dir) {
        CompletableFuture<Boolean> future = new CompletableFuture<>();
        zk.sync(dir, (rc, path, ctx) -> ZkCalls.complete(future, rc, path, Boolean.TRUE), null);
        return future;
    }

    /**
     * The nodes in {@code dir} that carry {@code ownerToken} in their name (protected mode, as
     * Curator's): where a create whose reply was lost may have left one. The server this client
     * reconnected to may lag behind the one that took the create: sync first, in order with the
     * listing, so the listing sees at least what the leader had.
     */
    List<String> findByOwner(String dir, Hold hold, String ownerToken) throws KeeperException {
        session.zk().sync(dir, (rc, path, ctx) -> { }, null);
        List<String> children;
        try {
            children = session.calls().await(list(dir), "list " + dir);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
        List<String> owned = new ArrayList<>(1);
        for (String child : children) {
            if (ZkPaths.ownedBy(child, hold, ownerToken)) {
                owned.add(child);
            }
        }
        return owned;
    }

    /**
     * After a lost reply to a create: the request's node, if the create landed.
     *
     * @return the node found by the owner token in its name, or empty
     */
    Optional<Node> find(String dir, Hold hold, String ownerToken) throws KeeperException {
        for (String child : findByOwner(dir, hold, ownerToken)) {
            CompletableFuture<Node> node = new CompletableFuture<>();
            session.zk().exists(dir + "/" + child, false, (rc, path, ctx, stat) ->
                    ZkCalls.complete(node, rc, path, stat == null ? null : new Node(path, stat.getCzxid(), stat.getEphemeralOwner())),
                    null);
            try {
                return Optional.of(session.calls().await(node, "read " + child));
            } catch (KeeperException.NoNodeException gone) {
                return Optional.empty(); // deleted meanwhile: nothing to adopt
            }
        }
        return Optional.empty();
    }
}
