package io.distlock.etcd.internal;

import io.distlock.spi.Waiters;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One client's feeds of deletions, one per line directory its requests wait in: a single watch of
 * the directory (deletions only), shared by every request of the client waiting there, and kept
 * open for a while after the last one is served. A waiting request subscribes with the key just
 * before its own, as read at some revision, and is told once that key is gone.
 *
 * <p><b>Why one long-lived watch, not one per wait.</b> etcd (3.4) registers a new watch a moment
 * after it reads the revision the watch starts at; a write applied in between puts the watch in
 * its <em>unsynced</em> set, which is caught up only every 100 ms. Under contention writes come
 * every few milliseconds, so about one watch in a hundred started that way — and a deletion in its
 * first 100 ms reached the waiter late: the contended hand-off's p99 of 50–100 ms (BENCHMARKS.md,
 * etcd; jetcd's {@code Lock}, whose server-side wait starts a watch per wait, has the same). A
 * watch that lives across hand-offs pays that race once, not per hand-off. The price: the client
 * hears of every deletion in the directory while it has waiters there (each event is a key name;
 * the line's requests, not the waiters, make them), where a watch per wait hears one.
 *
 * <p><b>What a subscription is told.</b> The feed remembers, per key, the last deletion it saw.
 * A subscription for key {@code k} read at revision {@code r} is told when the feed sees, or has
 * seen, a deletion of {@code k} after {@code r}: the key as read is then gone (a slot's key is
 * written again by its client's later requests, always after the earlier one's deletion). The
 * feed sees every deletion after the revision its watch started at; for a subscription read
 * before that — or before what the feed has forgotten ({@link #sweep}) — the key is read once more
 * (gone, or another create revision: told).
 *
 * <p>A watch that breaks tells every subscription (its waiter looks at the server again) and is
 * started anew by the next one. Thread-safe; the subscriptions' callbacks run on jetcd's threads
 * and the subscribing one, never under a feed's lock (they take their line's monitor, and a line
 * closes its subscription, which takes the feed's lock), and must not block.
 */
final class LineFeeds {

    /** A waiting request's interest: its predecessor as read, and what to run once it is gone (or may be). */
    private record Subscription(ByteSequence key, long createRevision, long readAt, Runnable gone) {
    }

    private final EtcdSession session;
    /** Line directory → its feed. */
    private final Map<ByteSequence, Feed> feeds = new HashMap<>();
    private boolean closed;

    LineFeeds(EtcdSession session) {
        this.session = session;
    }

    /**
     * Has {@code line}'s request wait for {@code predecessor}, as read at {@code readAt}, to go:
     * the subscription is recorded in the line (replacing what it waited on), and once told it is
     * cleared from the line, the line is marked changed and the request's waiters are woken.
     *
     * @param line        the waiting request's line; its directory is the feed's
     * @param predecessor the key before the request's, with its create revision
     * @param readAt      the revision it was read at
     * @param waiters     the waiters of the request's primitive
     */
    void await(EtcdLine line, KeyValue predecessor, long readAt, Waiters waiters) {
        AtomicReference<EtcdLine.Wait> self = new AtomicReference<>();
        AtomicBoolean told = new AtomicBoolean();
        Runnable gone = () -> {
            told.set(true);
            EtcdLine.Wait wait = self.get();
            if (wait != null) {
                line.watchBroke(wait); // one-shot: the next look subscribes again
            }
            line.changed = true;
            waiters.wake(line.name);
        };
        EtcdLine.Wait wait = subscribe(line.dir(), predecessor, readAt, gone);
        self.set(wait);
        line.watching(wait, predecessor.getKey());
        if (told.get()) {
            line.watchBroke(wait); // told before it was recorded
        }
    }

    private EtcdLine.Wait subscribe(ByteSequence dir, KeyValue predecessor, long readAt, Runnable gone) {
        Feed feed;
        synchronized (this) {
            if (closed) {
                gone.run();
                return () -> { };
            }
            feed = feeds.computeIfAbsent(dir, Feed::new);
        }
        // A record's equality is its fields': the gone callback, a new object per call, keeps each one apart.
        return feed.add(new Subscription(predecessor.getKey(), predecessor.getCreateRevision(), readAt, gone));
    }

    /**
     * Once per keep-alive period: closes the feeds that had no subscription since the previous
     * sweep, and forgets the deletions the others saw before it (a subscription read before what
     * a feed forgot reads its key again).
     */
    void sweep() {
        List<Feed> idle = new ArrayList<>();
        synchronized (this) {
            for (Feed feed : feeds.values()) {
                if (feed.sweep()) {
                    idle.add(feed);
                }
            }
            idle.forEach(feed -> feeds.remove(feed.dir));
        }
        idle.forEach(Feed::close);
    }

    /** Closes every feed; later subscriptions are told at once. */
    void close() {
        List<Feed> open;
        synchronized (this) {
            closed = true;
            open = new ArrayList<>(feeds.values());
            feeds.clear();
        }
        open.forEach(Feed::close);
    }

    private void broke(Feed feed) {
        synchronized (this) {
            feeds.remove(feed.dir, feed);
        }
        feed.close();
    }

    /** One directory's watch and what it saw. */
    private final class Feed {

        final ByteSequence dir;
        private final Watch.Watcher watcher;
        private final Set<Subscription> subscriptions = new HashSet<>();
        /** Key → the revision of the last deletion of it the watch delivered. */
        private final Map<ByteSequence, Long> deleted = new HashMap<>();
        /** The revision the watch starts after (its created notification's); 0 until then. */
        private long startedAfter;
        /** Deletions up to this revision were forgotten by a sweep. */
        private long forgotThrough;
        /** The highest revision of a response the watch delivered. */
        private long seen;
        /** The subscriptions were empty at the last sweep and since. */
        private boolean idle;
        private boolean broken;

        Feed(ByteSequence dir) {
            this.dir = dir;
            WatchOption deletions = WatchOption.builder().isPrefix(true).withNoPut(true).withCreateNotify(true).build();
            this.watcher = session.watches().watch(dir, deletions, Watch.listener(response -> {
                if (response.isCreatedNotify()) {
                    created(response.getHeader().getRevision());
                    return;
                }
                for (WatchEvent event : response.getEvents()) {
                    if (event.getEventType() == WatchEvent.EventType.DELETE) {
                        deletedAt(event.getKeyValue().getKey(), event.getKeyValue().getModRevision());
                    }
                }
                synchronized (this) {
                    seen = Math.max(seen, response.getHeader().getRevision());
                }
            }, error -> broke()));
        }

        EtcdLine.Wait add(Subscription subscription) {
            boolean told;
            List<Subscription> reads = new ArrayList<>(1);
            synchronized (this) {
                if (broken) {
                    told = true;
                } else {
                    idle = false;
                    subscriptions.add(subscription);
                    if (startedAfter == 0) {
                        return () -> remove(subscription); // decided once the watch is created
                    }
                    told = decided(subscription, reads);
                }
            }
            reads.forEach(this::readAgain);
            if (told) {
                subscription.gone().run();
            }
            return () -> remove(subscription);
        }

        private synchronized void remove(Subscription subscription) {
            subscriptions.remove(subscription);
        }

        /**
         * Decides a new subscription from what the feed saw, under the lock: true if its key is known
         * gone (it is removed); false if it waits — for the watch, or for a read of its key, added to
         * {@code reads} when the feed cannot tell. The caller starts those reads after it lets the
         * lock go: a read that fails at once (the client closing) tells the subscription's line on
         * the calling thread, and a line's callback must never run under a feed's lock.
         */
        private boolean decided(Subscription subscription, List<Subscription> reads) {
            Long last = deleted.get(subscription.key());
            if (last != null && last > subscription.readAt()) {
                subscriptions.remove(subscription);
                return true;
            }
            if (subscription.readAt() < Math.max(startedAfter, forgotThrough)) {
                reads.add(subscription); // a deletion between its read and what the feed covers would be unseen
            }
            return false;
        }

        private void created(long revision) {
            List<Subscription> gone = new ArrayList<>();
            List<Subscription> reads = new ArrayList<>();
            synchronized (this) {
                startedAfter = Math.max(revision, 1);
                seen = Math.max(seen, revision);
                for (Subscription subscription : new ArrayList<>(subscriptions)) {
                    if (decided(subscription, reads)) {
                        gone.add(subscription);
                    }
                }
            }
            reads.forEach(this::readAgain);
            gone.forEach(subscription -> subscription.gone().run());
        }

        private void deletedAt(ByteSequence key, long revision) {
            List<Subscription> gone = new ArrayList<>();
            synchronized (this) {
                deleted.merge(key, revision, Math::max);
                for (Subscription subscription : subscriptions) {
                    if (subscription.key().equals(key) && revision > subscription.readAt()) {
                        gone.add(subscription);
                    }
                }
                subscriptions.removeAll(gone);
            }
            gone.forEach(subscription -> subscription.gone().run());
        }

        /**
         * Reads the subscription's key: gone, another create revision, or no answer in time tells it.
         * Called without the feed's lock (its answer may come on this thread).
         */
        private void readAgain(Subscription subscription) {
            assert !Thread.holdsLock(this);
            session.kv().get(subscription.key(), GetOption.builder().withKeysOnly(true).build())
                    .orTimeout(session.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete((read, error) -> {
                        if (error != null || read.getKvs().isEmpty()
                                || read.getKvs().get(0).getCreateRevision() != subscription.createRevision()) {
                            boolean mine;
                            synchronized (this) {
                                mine = subscriptions.remove(subscription);
                            }
                            if (mine) {
                                subscription.gone().run();
                            }
                        }
                    });
        }

        /** @return true if it had no subscription since the last sweep (close it); else forgets what is old */
        synchronized boolean sweep() {
            if (subscriptions.isEmpty() && idle) {
                return true;
            }
            idle = subscriptions.isEmpty();
            if (deleted.size() > 1024 && seen > 0) {
                deleted.clear();
                forgotThrough = seen;
            }
            return false;
        }

        private void broke() {
            List<Subscription> told;
            synchronized (this) {
                broken = true;
                told = new ArrayList<>(subscriptions);
                subscriptions.clear();
            }
            LineFeeds.this.broke(this);
            told.forEach(subscription -> subscription.gone().run());
        }

        void close() {
            Watch.Watcher started = watcher;
            if (started != null) { // null: it broke while it was being started
                started.close();
            }
        }
    }
}
