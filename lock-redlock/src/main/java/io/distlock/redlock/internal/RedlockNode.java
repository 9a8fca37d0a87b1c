package io.distlock.redlock.internal;

import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.RedisNode;

import java.time.Duration;
import java.util.Optional;

/**
 * One of Redlock's independent Redis servers: the shared per-node primitive plus whether the node
 * may vote now.
 *
 * <p><b>Restart delay.</b> A node that restarted without persistence has forgotten the locks it
 * held, so its vote could hand a second client a lock the first still holds on a quorum (section 8
 * of the Redlock write-ups: a restarted node must stay out for at least the longest lease). With a
 * delay set, every connection that is new to this client first reads the server's {@code INFO}:
 * a {@code run_id} not seen before means a server process this client has not checked; it votes
 * once its uptime reaches the delay. Every conversation after a restart is on a new connection
 * (the old ones died with the process), so no restart goes unseen. The uptime has one-second
 * resolution and is rounded down, so a node may stay out up to a second longer than asked.
 */
final class RedlockNode {

    final RedisNode redis;
    private final long restartDelayNanos;
    private String runId;
    private long votesFromNanos;

    RedlockNode(RedisNode redis, Duration restartDelay) {
        this.redis = redis;
        this.restartDelayNanos = restartDelay.toNanos();
    }

    PendingReply send(String operation, PendingReply.Batch batch) {
        return redis.send(operation, restartDelayNanos > 0, batch);
    }

    /** Takes note of what the server said about itself, if anything. */
    synchronized void learn(Optional<PendingReply.ServerInfo> info, long nowNanos) {
        if (info.isEmpty() || info.get().runId().equals(runId)) {
            return; // the same server process as before: its keys are still there
        }
        runId = info.get().runId();
        long upNanos = Duration.ofSeconds(info.get().uptimeSeconds()).toNanos();
        votesFromNanos = nowNanos + Math.max(0, restartDelayNanos - upNanos);
    }

    /** @return true if the node's answers count towards a quorum now */
    synchronized boolean votes(long nowNanos) {
        return restartDelayNanos == 0 || (runId != null && nowNanos - votesFromNanos >= 0);
    }

    /** @return how long until the node votes (zero if it does, the delay if nothing is known yet) */
    synchronized Duration untilVoting(long nowNanos) {
        if (restartDelayNanos == 0) {
            return Duration.ZERO;
        }
        return runId == null ? Duration.ofNanos(restartDelayNanos) : Duration.ofNanos(Math.max(0, votesFromNanos - nowNanos));
    }

    @Override
    public String toString() {
        return redis.endpoint().toString();
    }
}
