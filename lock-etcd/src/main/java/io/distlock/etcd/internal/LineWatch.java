package io.distlock.etcd.internal;

import io.distlock.spi.Waiters;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A waiting permit's own watch of its semaphore's directory: deletions, with each deleted key's
 * previous state, of which the ones that can let it in mark its line changed and wake its waiter;
 * so does a broken watch. One watch serves the whole wait of a permit key (the keys ahead of it
 * only go), so it is started once per wait; a lock's or a read-write lock's waiter, which waits
 * for one key and is served by the next hand-off, uses its client's {@link LineFeeds} instead.
 *
 * <p>Started from now, not from the revision the line was read at: etcd (3.4) serves a watch that
 * starts at a past revision from its <em>unsynced</em> set, which it catches up only every 100 ms.
 * A watch from now is synced (but for the race {@link LineFeeds} describes). What was written
 * between the read and the watch's start shows in its created notification, which carries the
 * revision it starts after: if that is past the revision read at, the waiter looks again.
 */
final class LineWatch {

    private LineWatch() {
    }

    /**
     * Starts {@code line}'s watch of its directory and records it in the line.
     *
     * @param session the session whose client watches
     * @param line    the waiting permit's line
     * @param option  the watch's filters (a prefix); its start is set here (from now) and its created notification asked for
     * @param readAt  the revision the line was read at
     * @param lets    which events can let the request in
     * @param waiters the waiters of the request's primitive
     */
    static void start(EtcdSession session, EtcdLine line, WatchOption.Builder option, long readAt,
                      Predicate<WatchEvent> lets, Waiters waiters) {
        String name = line.name;
        ByteSequence dir = line.dir();
        Runnable changed = () -> {
            line.changed = true;
            waiters.wake(name);
        };
        AtomicReference<EtcdLine.Wait> self = new AtomicReference<>();
        AtomicBoolean broke = new AtomicBoolean();
        Watch.Watcher started = session.watches().watch(dir, option.withRevision(0).withCreateNotify(true).build(),
                Watch.listener(response -> {
                    if (response.isCreatedNotify()) {
                        if (response.getHeader().getRevision() > readAt) {
                            changed.run(); // written between the read and the watch: a deletion there would be unseen
                        }
                        return;
                    }
                    for (WatchEvent event : response.getEvents()) {
                        if (lets.test(event)) {
                            changed.run();
                            return;
                        }
                    }
                }, error -> {
                    // The watch broke (compaction, a closed client): look at the server next time, and watch anew.
                    broke.set(true);
                    EtcdLine.Wait watcher = self.get();
                    if (watcher != null) {
                        line.watchBroke(watcher);
                    }
                    changed.run();
                }));
        EtcdLine.Wait wait = started::close;
        self.set(wait);
        line.watching(wait, dir);
        if (broke.get()) {
            line.watchBroke(wait); // it broke before it was recorded
        }
    }
}
