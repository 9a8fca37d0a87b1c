package io.distlock.zookeeper.internal;

import io.distlock.spi.DriverContext;
import org.apache.zookeeper.KeeperException;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Tells the engine how recently the ensemble heard from this client's session
 * ({@link DriverContext#sessionConfirmed}), so that no lease is valid past what the session can
 * vouch for: a process frozen longer than its session timeout (a long GC, {@code SIGSTOP}) wakes up
 * with no valid lease at its first look, before its connection has noticed anything — the
 * ensemble may have expired the session and given the lock to someone else meanwhile.
 *
 * <p>Every answer a server sent to this session's requests counts, with the time the request was
 * <em>sent</em> (the server heard from the session no earlier than that): the lock's own creates,
 * listings and extensions report it. While the client holds grants, a {@code sync} goes out every
 * quarter of the negotiated session timeout besides, so that the bound keeps three quarters of
 * the session ahead of it. A {@code sync} rather than a read: a follower answers it only after a
 * round trip to the leader, the one that expires sessions.
 */
final class SessionWitness implements AutoCloseable {

    private static final AtomicInteger IDS = new AtomicInteger();

    private final ZkSession session;
    private final DriverContext context;
    private final BooleanSupplier holding;
    private final String path;
    private final ScheduledThreadPoolExecutor timer;

    /**
     * @param session the client's session
     * @param context where to report
     * @param holding true while the client holds grants (the only time a confirmation matters)
     * @param path    a path to sync on (the chroot)
     */
    SessionWitness(ZkSession session, DriverContext context, BooleanSupplier holding, String path) {
        this.session = session;
        this.context = context;
        this.holding = holding;
        this.path = path;
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "distlock-zookeeper-session-" + IDS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.timer.setRemoveOnCancelPolicy(true);
        schedule();
    }

    /**
     * A server answered a request of this session that was sent at {@code sentAtNanos} (any
     * answer, an error code included: the session was alive to give it).
     */
    void answered(long sentAtNanos) {
        try {
            context.sessionConfirmed(sentAtNanos, Duration.ofMillis(session.zk().getSessionTimeout()));
        } catch (RuntimeException closed) {
            // the session is closed: nothing to vouch for
        }
    }

    private void schedule() {
        try {
            // The negotiated timeout, read again each time: a new session may have another one.
            timer.schedule(this::beat, Math.max(1, session.zk().getSessionTimeout() / 4), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException | IllegalStateException closed) {
            // closing: no more confirmations
        }
    }

    private void beat() {
        try {
            if (holding.getAsBoolean() && session.connected()) {
                long sent = System.nanoTime();
                session.zk().sync(path, (rc, p, ctx) -> {
                    if (rc == KeeperException.Code.OK.intValue()) {
                        answered(sent);
                    }
                }, null);
            }
        } catch (RuntimeException closed) {
            // the session is closed or being replaced: the next beat tries again
        } finally {
            schedule();
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
