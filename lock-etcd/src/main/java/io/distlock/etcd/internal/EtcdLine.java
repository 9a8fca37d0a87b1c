package io.distlock.etcd.internal;

import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;

/**
 * One request's place in line, from its first attempt until the server confirmed its key gone:
 * its key (under the directory of its primitive and side, {@link EtcdKeys#requestDir}), its value
 * (which carries the owner token, so it is this request's alone), its withdrawal marker, and what
 * the client knows of it on the server.
 */
final class EtcdLine {

    /**
     * The wall clock, for one thing only: the time a request key shows to whoever inspects it
     * ({@code LockInfo.acquiredAt}, the holder's clock; etcd keeps no time). Never for lease timing,
     * which is the engine's, on the monotonic clock.
     */
    private static final java.time.Clock WALL_CLOCK = java.time.Clock.systemUTC();

    final String name;
    final Hold hold;
    /** The key prefix of the client (one string for all its lines). */
    private final String prefix;
    private final String ownerToken;
    /** The key's slot among this client's keys in its directory ({@link EtcdKeys#requestDir}). */
    final int slot;
    final ByteSequence key;
    /** The key's value ({@link EtcdValues#request}): it carries the owner token, so it is this request's alone. */
    final ByteSequence value;
    /** The key's create revision once written (or found); 0 before, and after the session that bound it was lost. */
    volatile long createRevision;
    /** The session lease the key is bound to. */
    volatile long leaseId;
    /** An acquire transaction of this request was sent again past a member that did not answer: it may still land. */
    volatile boolean resent;
    /** Look at the server at the next attempt: the predecessor may have gone, or nothing is watched. */
    volatile boolean changed = true;
    /** The grant of this request while this client holds it, or null (the driver's record of what it holds). */
    volatile Grant grant;
    /** A revocation record for this request came before its grant was recorded, or null. */
    volatile String revokedBefore;
    /** How many acquire transactions (that may write the key) were started for this request. */
    volatile int putsSent;
    /** A permit key that no earlier key of another count precedes: the semaphore's count was checked. */
    volatile boolean countChecked;
    /**
     * The request was refused (a permit count mismatch) after its only write, whose answer came and
     * whose key was removed, confirmed: nothing of it is on the server or on its way there, so its
     * withdrawal needs no marker.
     */
    volatile boolean settled;
    private Wait watcher;
    /** What {@link #watcher} watches (a key, or a line's directory), and for which create revision of ours. */
    private ByteSequence watched;
    private long watchedFor;

    EtcdLine(String prefix, String clientId, int slot, String slotDir, LockRequest request, String owner) {
        this.name = request.name();
        this.hold = request.hold();
        this.prefix = prefix;
        this.ownerToken = request.ownerToken();
        this.slot = slot;
        this.key = EtcdSession.bytes(slotDir + clientId + "-" + slot);
        this.value = ByteSequence.from(EtcdValues.request(request.ownerToken(), owner, WALL_CLOCK.millis(), request.hold()));
    }

    // The directories and the marker are built when a call needs them, not kept: a held lease keeps
    // only what its removal compares (its key and value), about 240 bytes less per lease.

    /** @return the directory the key is written in ({@link EtcdKeys#requestDir}): its slot is taken among this client's keys there */
    String slotDir() {
        return EtcdKeys.requestDir(prefix, name, hold);
    }

    /** @return the line the key is ranked in ({@link EtcdKeys#lineDir}) */
    ByteSequence dir() {
        return EtcdSession.bytes(EtcdKeys.lineDir(prefix, name, hold));
    }

    /** @return the key that says this request was withdrawn ({@link EtcdKeys#abandoned}) */
    ByteSequence marker() {
        return EtcdSession.bytes(EtcdKeys.abandoned(prefix, name, ownerToken));
    }

    /** @return the compare "the key holds this request's value" (its owner token, its owner description) */
    Cmp ours() {
        return new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(value));
    }

    /**
     * What a waiting request keeps open to hear that what stands before it went: a watch of its own
     * ({@link LineWatch}), or a subscription to its client's feed of the line's deletions
     * ({@link LineFeeds}).
     */
    interface Wait {
        /** Ends it; nothing is told after. */
        void close();
    }

    /**
     * Replaces what this request watches with {@code watcher}, which watches {@code target} for this
     * request's key as it is now.
     */
    void watching(Wait watcher, ByteSequence target) {
        Wait replaced;
        synchronized (this) {
            replaced = this.watcher;
            this.watcher = watcher;
            this.watched = target;
            this.watchedFor = createRevision;
        }
        closeOutside(replaced);
    }

    /**
     * @return true if a watch started for this request's key as it is now still watches {@code
     *         target}: a later look need not start another (one started at a past revision waits for
     *         etcd's sync of lagging watchers, up to 100 ms)
     */
    synchronized boolean watches(ByteSequence target) {
        return watcher != null && target.equals(watched) && watchedFor == createRevision;
    }

    /** The watch {@code broken} ended on an error: the next look starts another. */
    synchronized void watchBroke(Wait broken) {
        if (watcher == broken) {
            watcher = null;
            watched = null;
        }
    }

    void stopWatching() {
        Wait stopped;
        synchronized (this) {
            stopped = watcher;
            watcher = null;
            watched = null;
        }
        closeOutside(stopped);
    }

    /**
     * Closes a wait after this line's monitor is let go, never under it: closing a feed's
     * subscription takes the feed's monitor, and a feed tells its subscriptions' lines (whose
     * callbacks take this monitor) while it holds its own — closing under this monitor deadlocked
     * a client's close against a watch event being delivered. A wait told after it was replaced
     * finds another watcher here ({@link #watchBroke}) and changes nothing.
     */
    private void closeOutside(Wait wait) {
        assert !Thread.holdsLock(this);
        if (wait != null) {
            wait.close();
        }
    }
}
