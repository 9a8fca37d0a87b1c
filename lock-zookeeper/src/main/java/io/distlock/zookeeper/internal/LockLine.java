package io.distlock.zookeeper.internal;

import io.distlock.spi.LockRequest;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The requests of the lock recipe on one lock's directory — its line of ephemeral-sequential
 * nodes: join it, list it, find a request's node by its owner token. Asynchronous where the
 * recipe pipelines them; the recipe's policy (who holds, who waits) is {@link ZkLockDriver}'s.
 */
final class LockLine {

    /**
     * A request's node: its path, czxid (the fencing token if it is granted), and the session it
     * lives with (its ephemeral owner: the grant is bound to that session).
     */
    record Node(String path, long czxid, long session) {
    }

    private final ZkSession session;

    LockLine(ZkSession session) {
        this.session = session;
    }

    /**
     * Sends the create of {@code request}'s node in {@code dir} (its data: the lease time in ms) on
     * handle {@code zk}; its Stat carries the czxid and the ephemeral owner.
     */
    CompletableFuture<Node> join(ZooKeeper zk, String dir, LockRequest request) {
        CompletableFuture<Node> future = new CompletableFuture<>();
        byte[] data = Long.toString(request.leaseTime().toMillis()).getBytes(StandardCharsets.US_ASCII);
        zk.create(ZkPaths.nodePrefix(dir, request.ownerToken()), data, session.acl(), CreateMode.EPHEMERAL_SEQUENTIAL,
                (rc, path, ctx, name, stat) -> ZkCalls.complete(future, rc, path, stat == null ? null
                        : new Node(name, stat.getCzxid(), stat.getEphemeralOwner())), null);
        return future;
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
    List<String> findByOwner(String dir, String ownerToken) throws KeeperException {
        session.zk().sync(dir, (rc, path, ctx) -> { }, null);
        List<String> children;
        try {
            children = session.calls().await(list(dir), "list " + dir);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
        List<String> owned = new ArrayList<>(1);
        for (String child : children) {
            if (ZkPaths.ownedBy(child, ownerToken)) {
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
    Optional<Node> find(String dir, String ownerToken) throws KeeperException {
        for (String child : findByOwner(dir, ownerToken)) {
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
