package io.distlock.zookeeper.internal;

import io.distlock.spi.DriverContext;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Tells the engine how recently the ensemble heard from this client's session
 * ({@link DriverContext#sessionConfirmed}), so that no lease is valid past what the session can
 * vouch for: a process frozen longer than its session timeout (a long GC, {@code SIGSTOP}) wakes up
 * with no valid lease at its first look, before its connection has noticed anything — the
 * ensemble may have expired the session and given the lock to someone else meanwhile.
 *
 * <p>Only an answer that proves the session alive where sessions are expired counts, with the time
 * the request was <em>sent</em> (the server heard from the session no earlier than that): a write
 * (the lock's creates and extensions) or a {@code sync}, which a follower answers only after a
 * round trip to the leader — the one that expires sessions. A plain read does not: a follower cut
 * off from the leader keeps serving reads for up to {@code syncLimit × tickTime} while the leader
 * may already have expired the session. While the client holds grants, a {@code sync} goes out
 * every quarter of the negotiated session timeout besides, so that the bound keeps three quarters
 * of the session ahead of it.
 *
 * <p>Each confirmation names the session it is about — the id of the handle that got the answer —
 * and vouches only for the grants of that session ({@link io.distlock.spi.Grant#session()}): the
 * next session, after an expiry, never vouches for the grants of the last.
 */
final class SessionWitness {

    private final ZkSession session;
    private final DriverContext context;
    private final BooleanSupplier holding;
    private final String path;
    private final ScheduledExecutorService timer;

    /**
     * @param session the client's session
     * @param context where to report
     * @param holding true while the client holds grants (the only time a confirmation matters)
     * @param path    a path to sync on (the chroot)
     * @param timer   the driver's timer, which runs the {@code sync}s; shut down by the driver, which
     *                ends them
     */
    SessionWitness(ZkSession session, DriverContext context, BooleanSupplier holding, String path,
                   ScheduledExecutorService timer) {
        this.session = session;
        this.context = context;
        this.holding = holding;
        this.path = path;
        this.timer = timer;
        schedule();
    }

    /**
     * The leader's side answered a write or a {@code sync} that handle {@code zk} sent at
     * {@code sentAtNanos} (any answer, an error code included: the session was alive to give it).
     * Called once the answer arrived, when the handle's session id is the one that got it.
     */
    void answered(ZooKeeper zk, long sentAtNanos) {
        long id = zk.getSessionId();
        if (id != 0) {
            context.sessionConfirmed(id, sentAtNanos, Duration.ofMillis(zk.getSessionTimeout()));
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
                ZooKeeper zk = session.zk();
                zk.sync(path, (rc, p, ctx) -> {
                    if (rc == KeeperException.Code.OK.intValue()) {
                        answered(zk, sent);
                    }
                }, null);
            }
        } catch (RuntimeException closed) {
            // the session is closed or being replaced: the next beat tries again
        } finally {
            schedule();
        }
    }
}
