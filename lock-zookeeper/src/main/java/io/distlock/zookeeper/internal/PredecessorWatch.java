package io.distlock.zookeeper.internal;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The watch one waiting request keeps on the nodes ahead of it that can let it in, as Curator's lock
 * recipe keeps one on its predecessor: one {@link Watcher} object for the whole wait, registered with
 * {@code getData} on each such node ({@link LineRules} says which: the predecessor of a lock or a
 * writer, the closest writer ahead of a reader, the {@code n} nodes ahead of a permit of {@code n}).
 * ZooKeeper keeps one registration per path and watcher object (the client) and per path and session
 * (the server), so arming it again on the same node adds nothing; {@code getData} on a node that is
 * already gone registers nothing (an {@code exists} watch on a path that never comes back would live
 * for the rest of the session).
 *
 * <p>Only a watched node's deletion wakes the waiters: a change of its data — its holder's grant
 * being marked ({@link LockLine#granted}) — re-arms the watch and wakes nobody. Connection events reach the driver through Curator's connection states, which mark every
 * watch {@linkplain #lookAgain() to be looked at again}.
 */
final class PredecessorWatch implements Watcher {

    private final ZkSession session;
    private final Runnable wake;
    /** The nodes this watch is armed on (empty: none). */
    private volatile Set<String> watched = Set.of();
    /** Something may have changed since the watch was armed (a deletion, a reconnect): the next attempt lists the line. */
    private volatile boolean changed = true;
    private volatile boolean stopped;

    /**
     * @param session the client's session
     * @param wake    wakes the client's waiters on this line: cheap, non-blocking
     */
    PredecessorWatch(ZkSession session, Runnable wake) {
        this.session = session;
        this.wake = wake;
    }

    /**
     * @return true while the watch is armed and has seen nothing since: the request is still
     *         behind the same, living nodes (as of the server's last word)
     */
    boolean unchanged() {
        return !watched.isEmpty() && !changed && !stopped;
    }

    /**
     * Arms the watch on {@code predecessor}: from the server's answer on, its deletion wakes the
     * waiters.
     *
     * @return true if armed; false if the predecessor is already gone (list the line again)
     * @throws KeeperException if the server did not answer
     */
    boolean watch(String predecessor) throws KeeperException {
        return watch(List.of(predecessor));
    }

    /**
     * Arms the watch on every node of {@code nodes} (paths; one {@code getData} each, all sent before
     * the first answer is awaited): from the server's answers on, a deletion of any of them wakes the
     * waiters.
     *
     * @return true if armed on all; false if one is already gone (list the line again)
     * @throws KeeperException if the server did not answer
     */
    boolean watch(List<String> nodes) throws KeeperException {
        // Marked before the requests go out: a deletion notified after a reply must not be
        // overwritten by it (ZooKeeper delivers the reply first, then the notification).
        watched = Set.copyOf(nodes);
        changed = false;
        boolean alive = false;
        try {
            ZooKeeper zk = session.zk();
            List<CompletableFuture<Boolean>> armed = new ArrayList<>(nodes.size());
            for (String node : nodes) {
                CompletableFuture<Boolean> one = new CompletableFuture<>();
                zk.getData(node, this, (rc, path, ctx, data, stat) -> {
                    if (rc == KeeperException.Code.NONODE.intValue()) {
                        one.complete(false);
                    } else {
                        ZkCalls.complete(one, rc, path, true);
                    }
                }, null);
                armed.add(one);
            }
            boolean all = true;
            for (int i = 0; i < armed.size(); i++) {
                all &= session.calls().await(armed.get(i), "watch " + nodes.get(i));
            }
            alive = all;
            return alive;
        } finally {
            if (!alive) {
                changed = true;
            }
        }
    }

    /** A reconnect or a new session: whatever the watch saw, the next attempt lists the line again. */
    void lookAgain() {
        changed = true;
    }

    /**
     * The request left the line (granted or withdrawn): the watch wakes nobody from now on, and the
     * registrations still armed are removed — from the client at once, from the server when it
     * answers (otherwise the server drops each at its node's next change).
     */
    void stop() {
        stopped = true;
        if (changed) {
            return;
        }
        for (String path : watched) {
            try {
                session.zk().removeWatches(path, this, WatcherType.Data, true, (rc, p, ctx) -> { }, null);
            } catch (RuntimeException closed) {
                return; // the session is closed: its watches went with it
            }
        }
    }

    @Override
    public void process(WatchedEvent event) {
        String path = event.getPath();
        if (stopped || path == null || !watched.contains(path)) {
            return; // a connection event (no path), or a node watched before
        }
        if (event.getType() == Event.EventType.NodeDataChanged) {
            rearm(path); // its holder was marked granted: keep waiting
        } else {
            changed = true; // deleted (or anything else): look at the line again
            wake.run();
        }
    }

    /** Re-registers after a data change; if the node went meanwhile (or no answer came), wakes the waiters. */
    private void rearm(String path) {
        try {
            session.zk().getData(path, this, (rc, p, ctx, data, stat) -> {
                if (rc != KeeperException.Code.OK.intValue() && watched.contains(path)) {
                    changed = true;
                    wake.run();
                }
            }, null);
        } catch (RuntimeException closed) {
            changed = true;
            wake.run();
        }
    }
}
