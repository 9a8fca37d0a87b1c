package io.distlock.redis.support;

import io.distlock.spi.Backoff;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import redis.clients.jedis.Jedis;

/**
 * For a node of a fan-out ({@link RedisNode#openForFanOut}): whether it can be reached now, and a
 * daemon thread that reconnects it in the background while it cannot.
 *
 * <p>Why: a fan-out waits for every node up to one per-node deadline. A node whose connects hang (a
 * dead host, a full accept queue) or that accepts but never answers cost every operation that whole
 * deadline when each one tried to connect to it again — Redlock's p50 went from 0.1 ms to the 50 ms
 * node timeout with one such node of three. Instead, the first connect or reply that fails marks the
 * node unreachable: from then on the split form sends nothing to it ({@link RedisFailure#NOT_CONNECTED},
 * at once) while this thread connects and {@code PING}s it, with a back-off ({@link #BACKOFF}: 10 ms
 * doubling to 250 ms) until it answers; the connection
 * that answered is the node's next one. A reachable node keeps its connections between operations
 * and opens one within the caller's deadline only when none is free (concurrent callers): refusing
 * then would report a healthy quorum as unknown.
 */
final class Reconnector {

    static final Backoff BACKOFF = Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(250));

    private final RedisNode node;
    private final Object lock = new Object();
    private volatile boolean reachable = true;
    private Thread thread; // guarded by lock
    private boolean closed; // guarded by lock
    /** Failures reported so far: a PING that started before the latest one does not make the node reachable. */
    private long failures; // guarded by lock

    Reconnector(RedisNode node) {
        this.node = node;
    }

    /** @return true unless the last connect or reply failed and no background {@code PING} has answered since */
    boolean reachable() {
        return reachable;
    }

    /**
     * The node's last connect or reply failed (timed out, refused, reset): no fan-out sends to it
     * until a background {@code PING} answers. Its idle connections go too: they lead to the same
     * server, and one that hangs would cost the next caller its whole deadline.
     */
    void unreachable() {
        synchronized (lock) {
            reachable = false;
            failures++;
        }
        node.clearIdle();
        synchronized (lock) {
            if (closed || thread != null) {
                return;
            }
            thread = new Thread(this::reconnect, "distlock-redis-reconnect-" + node.endpoint());
            thread.setDaemon(true);
            thread.start();
        }
    }

    void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
    }

    private void reconnect() {
        int attempts = 0;
        while (true) {
            long seen;
            synchronized (lock) {
                if (closed) {
                    thread = null;
                    return;
                }
                seen = failures;
            }
            try {
                node.withConnection("reconnect", Jedis::ping); // the connection that answered stays, hot
                synchronized (lock) {
                    if (failures == seen) {
                        reachable = true;
                        thread = null;
                        return;
                    }
                }
                continue; // a failure was reported while this PING was on its way: ask again
            } catch (RuntimeException stillAway) {
                // Tried again after the back-off; the fan-outs meanwhile count the node as down.
            }
            synchronized (lock) {
                try {
                    if (!closed) {
                        TimeUnit.NANOSECONDS.timedWait(lock, BACKOFF.delayNanos(++attempts));
                    }
                } catch (InterruptedException e) {
                    thread = null;
                    return; // only close() could want this thread gone
                }
            }
        }
    }
}
