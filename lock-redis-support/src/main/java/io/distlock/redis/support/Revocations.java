package io.distlock.redis.support;

import io.distlock.spi.DriverContext;
import io.distlock.spi.Watch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * How a holder's client learns that an operator revoked one of its leases, on the Redis family: the
 * revoke publishes {@code <owner token> <name>} on {@value LockScripts#REVOKED_CHANNEL}; each
 * client that holds leases subscribes to it (on every server it locks on, through the node's one
 * subscriber connection), and for a token it holds reads the revocation marker
 * ({@link LockScripts#revokedKey}) before it believes the notice. Every kind of hold goes this way
 * — a lock's, a reader's, the writer's, a permit's ({@link ReadWriteScripts#REVOKE},
 * {@link SemaphoreScripts#REVOKE}) — with the same channel and the same marker key under the
 * primitive's name: owner tokens are never reused, so a token names one lease whatever its kind — anyone with the ordinary lock
 * rights may publish on that channel, but only an operator may write a marker. Then it reports
 * {@link DriverContext#leaseRevoked}. Notices for tokens it does not hold (nor is acquiring) cost
 * nothing (no read), so a flood of forged notices makes no client send anything.
 *
 * <p>A notice missed (the subscriber connection was down) is not looked for again: the lease's
 * next extension finds the marker ({@link LockScripts#EXTEND} answers its reason), so it still
 * ends as revoked, at the latest at the renewal.
 *
 * <p>The marker is read on a thread of its own (one daemon thread, started on the first notice and
 * ended after a while without any), never on the subscriber's, whose other notifications would
 * wait for the reply. Thread-safe; one per driver.
 */
public final class Revocations implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("io.distlock.redis");

    /** A held lease: its lock's name and until when it may be held ({@link System#nanoTime()}). */
    private record Held(String name, long untilNanos) {
    }

    private final DriverContext context;
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    private final Map<RedisKeyspace, Watch> listening = new ConcurrentHashMap<>();
    private final ThreadPoolExecutor checks;
    /** When the map of held leases is next swept of those whose lease time has passed. */
    private volatile int sweepAt = 1024;
    private volatile boolean closed;

    /**
     * @param context the engine, told of each revocation found
     */
    public Revocations(DriverContext context) {
        this.context = context;
        this.checks = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "distlock-redis-revocations");
            t.setDaemon(true);
            return t;
        });
    }

    /** @return the engine this client reports to (revocations here; a driver's other reports too) */
    public DriverContext context() {
        return context;
    }

    /** @return the engine's owner description of this client, which every grant's record carries */
    public String owner() {
        return context.owner();
    }

    /**
     * Listens for revocations published on {@code node}, if it does not yet: called before each
     * acquire (so a client that never locks never subscribes), it sends the {@code SUBSCRIBE} at
     * once, to be confirmed while the acquire is on its way. Returns at once.
     *
     * @param node a server (or cluster) this client is about to lock on
     */
    public void listenOn(RedisKeyspace node) {
        if (closed || listening.containsKey(node)) {
            return;
        }
        listening.computeIfAbsent(node, n -> {
            try {
                return n.subscribeRevocations(message -> notice(n.describe(), message, n::revocationReason));
            } catch (IllegalStateException closedNode) {
                return Watch.NONE;
            }
        });
    }

    /**
     * Waits, at most {@value #CONFIRMATION_WAIT_MILLIS} ms, until the server confirmed the
     * subscription of {@link #listenOn}: called after a grant, so that a revocation right after it
     * is heard. Only the first grant on a server can wait at all (the {@code SUBSCRIBE} went out
     * with its acquire, and is confirmed by then, usually); a subscription that fails (its
     * connection is down, the ACL refuses the channel) is not waited for: the lease then learns
     * of a revocation at its next extension.
     *
     * @param node the server (or cluster) the grant came from
     */
    public void awaitListening(RedisKeyspace node) {
        Watch watch = listening.get(node);
        if (watch == null) {
            return;
        }
        java.util.concurrent.CompletableFuture<Void> active = watch.active().toCompletableFuture();
        if (active.isDone()) {
            return;
        }
        try {
            active.get(CONFIRMATION_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // Not confirmed: the extension's marker check still ends a revoked lease.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the engine decides what an interrupt means
        }
    }

    /**
     * {@link #awaitListening(RedisNode)} for a grant on several servers (Redlock's): waits, at most
     * {@value #CONFIRMATION_WAIT_MILLIS} ms in all, until every one of them confirmed the
     * subscription. Every one, not a quorum: a revoke publishes on each node it reached, and one
     * that reached a single node (the others silent) must still be heard. A subscription that
     * failed is not waited for.
     *
     * @param nodes the servers the grant came from
     */
    public void awaitListening(List<RedisNode> nodes) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONFIRMATION_WAIT_MILLIS);
        for (RedisNode node : nodes) {
            Watch watch = listening.get(node);
            if (watch == null) {
                continue;
            }
            try {
                watch.active().toCompletableFuture().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // not confirmed (in time): the extension's marker check still ends a revoked lease
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** How long a grant waits at most for its server's revocation subscription ({@link #awaitListening}). */
    static final long CONFIRMATION_WAIT_MILLIS = 250;

    /**
     * Listens on {@code to} instead of {@code from}, if it listened on {@code from}: the leases held
     * there moved with the primary (Redis + {@code WAIT} following a failover), and their revocations
     * will be announced on the new one.
     *
     * @param from the server no longer used
     * @param to   the server used from now on
     */
    public void moveTo(RedisNode from, RedisNode to) {
        Watch watch = listening.remove(from);
        if (watch != null) {
            watch.close();
            listenOn(to);
        }
    }

    /**
     * Records an acquire about to be sent: a notice of its token is checked from now on, since it can
     * overtake the grant's reply (the revoke runs after the grant on the server, but its notice comes
     * on another connection). The engine remembers a revocation of a token it holds no lease of yet
     * and gives the grant back when it arrives. A busy attempt ends it ({@link #ended}).
     *
     * @param name        the lock name
     * @param ownerToken  the request's owner token
     * @param leaseMillis its lease time
     */
    public void acquiring(String name, String ownerToken, long leaseMillis) {
        granted(name, ownerToken, leaseMillis);
    }

    /**
     * Records a grant: notices of its token are checked from now on.
     *
     * @param name        the lock name
     * @param ownerToken  the grant's owner token
     * @param leaseMillis its lease time
     */
    public void granted(String name, String ownerToken, long leaseMillis) {
        held.put(ownerToken, new Held(name, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis)));
        if (held.size() >= sweepAt) {
            sweep();
        }
    }

    /**
     * Records a confirmed extension: the lease may be held that much longer.
     *
     * @param ownerToken  the grant's owner token
     * @param leaseMillis the extension's lease time
     */
    public void extended(String ownerToken, long leaseMillis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        held.computeIfPresent(ownerToken, (t, h) -> until - h.untilNanos() > 0 ? new Held(h.name(), until) : h);
    }

    /**
     * Records that a lease ended (released, withdrawn, found lost): its notices are ignored.
     *
     * @param ownerToken the grant's owner token
     */
    public void ended(String ownerToken) {
        held.remove(ownerToken);
    }

    /** Drops leases whose lease time has passed without a release (their server expired them). */
    private void sweep() {
        long now = System.nanoTime();
        held.values().removeIf(h -> now - h.untilNanos() > 0);
        sweepAt = Math.max(1024, held.size() * 2);
    }

    /**
     * A notice on the revocation channel of one server: for a token this client holds, its marker
     * is read (by {@code check}) on the checking thread and, if there, the engine is told.
     *
     * @param server  the server it came from, for the log
     * @param message {@code <owner token> <name>}, or null after a reconnect (ignored: see the class comment)
     * @param check   reads the marker's reason on that server
     */
    void notice(Object server, String message, BiFunction<String, String, Optional<String>> check) {
        if (message == null || closed) {
            return;
        }
        int space = message.indexOf(' ');
        if (space <= 0) {
            return;
        }
        String token = message.substring(0, space);
        String name = message.substring(space + 1);
        Held lease = held.get(token);
        if (lease == null || !lease.name().equals(name)) {
            return; // not ours: nothing to read
        }
        try {
            checks.execute(() -> {
                try {
                    Optional<String> reason = check.apply(name, token);
                    if (reason.isPresent() && held.remove(token) != null) {
                        context.leaseRevoked(token, reason.get());
                    } else if (reason.isEmpty()) {
                        LOG.log(System.Logger.Level.WARNING, "a revocation of ''{0}'' was announced on {1} without its marker:"
                                + " ignored (forged by a client that may publish, or the marker's grace has passed)", name, server);
                    }
                } catch (RuntimeException e) {
                    // No answer: the lease's next extension finds the marker (or the lease) for sure.
                    LOG.log(System.Logger.Level.DEBUG, "could not check a revocation of ''{0}'' on {1}: {2}", name, server,
                            e.getMessage());
                }
            });
        } catch (RejectedExecutionException closing) {
            // closed meanwhile
        }
    }

    /** Stops listening and the checking thread. Idempotent. */
    @Override
    public void close() {
        closed = true;
        List<Watch> watches = new ArrayList<>(listening.values());
        listening.clear();
        watches.forEach(Watch::close);
        checks.shutdownNow();
    }
}
