package io.distlock.zookeeper.internal;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

import java.util.concurrent.CompletableFuture;

/**
 * The watch one waiting request keeps on its predecessor in line, as Curator's lock recipe keeps
 * it: one {@link Watcher} object for the whole wait, registered with {@code getData}. ZooKeeper
 * keeps one registration per path and watcher object (the client) and per path and session (the
 * server), so arming it again on the same predecessor adds nothing; {@code getData} on a
 * predecessor that is already gone registers nothing (an {@code exists} watch on a path that never
 * comes back would live for the rest of the session).
 *
 * <p>Only the predecessor's deletion wakes the waiters: a change of its data — the holder renewing
 * its lease — re-arms the watch and wakes nobody. Connection events reach the driver through
 * Curator's connection states, which mark every watch {@linkplain #lookAgain() to be looked at
 * again}.
 */
final class PredecessorWatch implements Watcher {

    private final ZkSession session;
    private final Runnable wake;
    /** The predecessor this watch is armed on, or null. */
    private volatile String watched;
    /** Something may have changed since the watch was armed (a deletion, a reconnect): the next attempt lists the line. */
    private volatile boolean changed = true;
    private volatile boolean stopped;

    /**
     * @param session the client's session
     * @param wake    wakes the client's waiters on this lock: cheap, non-blocking
     */
    PredecessorWatch(ZkSession session, Runnable wake) {
        this.session = session;
        this.wake = wake;
    }

    /**
     * @return true while the watch is armed and has seen nothing since: the request is still
     *         behind the same, living predecessor (as of the server's last word)
     */
    boolean unchanged() {
        return watched != null && !changed && !stopped;
    }

    /**
     * Arms the watch on {@code predecessor}: from the server's answer on, its deletion wakes the
     * waiters.
     *
     * @return true if armed; false if the predecessor is already gone (list the line again)
     * @throws KeeperException if the server did not answer
     */
    boolean watch(String predecessor) throws KeeperException {
        // Marked before the request goes out: a deletion notified after the reply must not be
        // overwritten by it (ZooKeeper delivers the reply first, then the notification).
        watched = predecessor;
        changed = false;
        boolean alive = false;
        try {
            CompletableFuture<Boolean> armed = new CompletableFuture<>();
            session.zk().getData(predecessor, this, (rc, path, ctx, data, stat) -> {
                if (rc == KeeperException.Code.NONODE.intValue()) {
                    armed.complete(false);
                } else {
                    ZkCalls.complete(armed, rc, path, true);
                }
            }, null);
            alive = session.calls().await(armed, "watch " + predecessor);
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
     * The request left the line (granted or withdrawn): the watch wakes nobody from now on, and a
     * registration still armed is removed — from the client at once, from the server when it
     * answers (otherwise the server drops it at the predecessor's next change).
     */
    void stop() {
        stopped = true;
        String path = watched;
        if (path != null && !changed) {
            try {
                session.zk().removeWatches(path, this, WatcherType.Data, true, (rc, p, ctx) -> { }, null);
            } catch (RuntimeException closed) {
                // the session is closed: its watches went with it
            }
        }
    }

    @Override
    public void process(WatchedEvent event) {
        String path = watched;
        if (stopped || path == null || !path.equals(event.getPath())) {
            return; // a connection event (no path), or an older predecessor's
        }
        if (event.getType() == Event.EventType.NodeDataChanged) {
            rearm(path); // the holder renewed its lease: keep waiting
        } else {
            changed = true; // deleted (or anything else): look at the line again
            wake.run();
        }
    }

    /** Re-registers after a data change; if the predecessor went meanwhile (or no answer came), wakes the waiters. */
    private void rearm(String path) {
        try {
            session.zk().getData(path, this, (rc, p, ctx, data, stat) -> {
                if (rc != KeeperException.Code.OK.intValue() && path.equals(watched)) {
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
