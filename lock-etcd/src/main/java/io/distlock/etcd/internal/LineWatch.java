package io.distlock.etcd.internal;

import io.distlock.spi.Waiters;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * The watch a waiting request keeps on what stands before it in its line: the key just before
 * its own, or the keys of a semaphore's directory. An event the watch lets through marks the line
 * changed and wakes the request's waiter; so does a broken watch.
 *
 * <p><b>Started from now, not from the revision the line was read at.</b> etcd (3.4) serves a
 * watch that starts at a past revision from its <em>unsynced</em> set, which it catches up only
 * every 100 ms; a deletion in that time reaches the watcher up to 100 ms late. Under contention
 * the other requests' writes move the revision between a waiter's read and its watch, so that
 * was the contended hand-off's p99 (≈ 96 ms, jetcd's {@code Lock} alike; BENCHMARKS.md, etcd). A
 * watch started from now is synced at once. What was written between the read and the watch's
 * start is checked when the watch is created: its created notification carries the revision it
 * starts after. If that is the revision the line was read at, nothing was written in between;
 * else the predecessor is read once more (it must still be there with the create revision read:
 * a slot's key is used again by its client's later requests), or, for a directory, the waiter
 * looks again.
 */
final class LineWatch {

    private LineWatch() {
    }

    /**
     * Starts {@code line}'s watch of {@code target} and records it in the line.
     *
     * @param session     the session whose client watches (and reads the predecessor again)
     * @param line        the waiting request's line
     * @param target      the key (or the directory, with {@code option}'s prefix) to watch
     * @param option      the watch's filters; its start is set here (from now) and its created notification asked for
     * @param readAt      the revision the line was read at
     * @param predecessor the key watched, as read at {@code readAt}; null for a directory
     * @param lets        which events can let the request in
     * @param waiters     the waiters of the request's primitive
     */
    static void start(EtcdSession session, EtcdLine line, ByteSequence target, WatchOption.Builder option, long readAt,
                      KeyValue predecessor, Predicate<WatchEvent> lets, Waiters waiters) {
        String name = line.name;
        Runnable changed = () -> {
            line.changed = true;
            waiters.wake(name);
        };
        AtomicReference<Watch.Watcher> self = new AtomicReference<>();
        AtomicBoolean broke = new AtomicBoolean();
        Watch.Watcher started = session.watches().watch(target, option.withRevision(0).withCreateNotify(true).build(),
                Watch.listener(response -> {
                    if (response.isCreatedNotify()) {
                        if (response.getHeader().getRevision() > readAt) {
                            writtenMeanwhile(session, predecessor, changed);
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
                    Watch.Watcher watcher = self.get();
                    if (watcher != null) {
                        line.watchBroke(watcher);
                    }
                    changed.run();
                }));
        self.set(started);
        line.watching(started, target);
        if (broke.get()) {
            line.watchBroke(started); // it broke before it was recorded
        }
    }

    /**
     * Something was written between the read and the watch's start: wakes the waiter unless the
     * predecessor is still there as read. An unanswered or failed read wakes it too (its attempt
     * then meets the server itself).
     */
    private static void writtenMeanwhile(EtcdSession session, KeyValue predecessor, Runnable changed) {
        if (predecessor == null) {
            changed.run();
            return;
        }
        session.kv().get(predecessor.getKey(), GetOption.builder().withKeysOnly(true).build())
                .orTimeout(session.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((read, error) -> {
                    if (error != null || read.getKvs().isEmpty()
                            || read.getKvs().get(0).getCreateRevision() != predecessor.getCreateRevision()) {
                        changed.run();
                    }
                });
    }
}
