package io.distlock.hazelcast.internal;

import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.CPSessionCloseSessionCodec;
import com.hazelcast.client.impl.protocol.codec.CPSessionCreateSessionCodec;
import com.hazelcast.client.impl.protocol.codec.CPSessionHeartbeatSessionCodec;
import com.hazelcast.cp.internal.RaftGroupId;
import com.hazelcast.cp.internal.session.SessionExpiredException;
import io.distlock.spi.DriverContext;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * This client's CP session in the CP group its locks live in: what a {@code FencedLock} hold is bound
 * to. The group closes a session it has not heard from for the session TTL (a member setting,
 * {@code session-time-to-live-seconds}), and with it every lock the session holds.
 *
 * <p>The session is distlock's own, not the Hazelcast client's (whose session manager keeps its TTL
 * and its heartbeats' answers to itself): created with the group's TTL in the answer, kept alive by
 * heartbeats sent here, each answered heartbeat reported to the engine
 * ({@link DriverContext#sessionConfirmed}: no lease bound to the session is valid past the last
 * answered heartbeat's send time plus the TTL), and a session the group says is gone reported at
 * once ({@link DriverContext#sessionEnded}: every lease bound to it is lost). The next acquire
 * creates a new one.
 */
final class CpSession implements AutoCloseable {

    /** A session the group granted. */
    record Live(long id, Duration ttl, Duration heartbeat) {
    }

    /** How long {@link #close()} waits for the group to close the session: the rest is left to its TTL. */
    private static final long CLOSE_WAIT_MILLIS = 300;

    private final HazelcastConnection connection;
    private final RaftGroupId group;
    private final DriverContext context;
    private final ScheduledExecutorService heartbeats;
    private volatile Live current;
    private boolean scheduled;

    CpSession(HazelcastConnection connection, RaftGroupId group, DriverContext context) {
        this.connection = connection;
        this.group = group;
        this.context = context;
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-hazelcast-cp-session");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * @return the live session, created if there is none (and reported to the engine before it is returned)
     * @throws io.distlock.BackendUnavailableException if the group did not answer
     */
    synchronized Live acquire() {
        Live live = current;
        if (live != null) {
            return live;
        }
        long sentAt = System.nanoTime();
        ClientMessage answer = connection.call(CPSessionCreateSessionCodec.encodeRequest(group, connection.clientName()),
                "cp-session", -1);
        CPSessionCreateSessionCodec.ResponseParameters granted = CPSessionCreateSessionCodec.decodeResponse(answer);
        live = new Live(granted.sessionId, Duration.ofMillis(granted.ttlMillis), Duration.ofMillis(granted.heartbeatMillis));
        context.sessionConfirmed(live.id(), sentAt, live.ttl());
        current = live;
        if (!scheduled) {
            // Often enough for the engine (at most a third of the TTL apart), never less often than the group asks.
            long period = Math.max(50, Math.min(granted.heartbeatMillis, granted.ttlMillis / 3));
            heartbeats.scheduleWithFixedDelay(this::heartbeat, period, period, TimeUnit.MILLISECONDS);
            scheduled = true;
        }
        return live;
    }

    /**
     * Reports that the group answered that {@code session} is gone.
     *
     * @param session a session this class returned
     */
    void ended(Live session) {
        synchronized (this) {
            if (current == session) {
                current = null;
            }
        }
        context.sessionEnded(session.id());
    }

    private void heartbeat() {
        Live live = current;
        if (live == null) {
            return;
        }
        long sentAt = System.nanoTime();
        try {
            connection.call(CPSessionHeartbeatSessionCodec.encodeRequest(group, live.id()), "cp-session", -1);
            context.sessionConfirmed(live.id(), sentAt, live.ttl());
        } catch (SessionExpiredException e) {
            ended(live);
        } catch (RuntimeException e) {
            // No answer: nothing is confirmed, and the engine's validity of this session's leases runs out on its own.
        }
    }

    /** Stops the heartbeats and asks the group to close the session, waiting a fraction of a second at most. */
    @Override
    public void close() {
        heartbeats.shutdownNow();
        Live live = current;
        current = null;
        if (live == null) {
            return;
        }
        try {
            CompletableFuture<ClientMessage> closing = connection.send(CPSessionCloseSessionCodec.encodeRequest(group,
                    live.id()), "cp-session", -1);
            connection.await(closing, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS));
        } catch (RuntimeException e) {
            // left to the group's TTL
        }
    }
}
