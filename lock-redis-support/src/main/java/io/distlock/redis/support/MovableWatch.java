package io.distlock.redis.support;

import io.distlock.spi.Watch;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A watch whose subscription moves from server to server while the waiter holds one handle: a
 * release channel followed to a new primary after a failover (Redis + {@code WAIT} through
 * Sentinel), a shard channel followed to the node that serves its slot now (Redis Cluster). Each
 * {@link #moveTo} subscribes on the new server and then closes the subscription on the old one;
 * the handle's {@link #active()} completes with the first subscription's confirmation, which is
 * what the engine waits for before its retry. Thread-safe.
 */
public final class MovableWatch implements Watch {

    private final Runnable onChange;
    private final Runnable onClose;
    private final CompletableFuture<Void> active = new CompletableFuture<>();
    private Watch registration; // guarded by this
    private Object where; // guarded by this
    private boolean closed; // guarded by this

    /**
     * @param onChange the waiter's listener, which every subscription calls
     * @param onClose  called once when the handle is closed (its owner forgets it)
     */
    public MovableWatch(Runnable onChange, Runnable onClose) {
        this.onChange = onChange;
        this.onClose = onClose;
    }

    /** @return the waiter's listener */
    public Runnable listener() {
        return onChange;
    }

    /**
     * Subscribes with {@code subscribe} (given the listener) and then closes the subscription before
     * it; nothing once closed. A server closed meanwhile ({@link IllegalStateException}) leaves the
     * watch without a subscription until the next move: the engine's fallback poll covers the waiter.
     *
     * @param server    where the new subscription is, for {@link #where()}
     * @param subscribe makes it
     */
    public synchronized void moveTo(Object server, Function<Runnable, Watch> subscribe) {
        if (closed) {
            return;
        }
        Watch previous = registration;
        try {
            registration = subscribe.apply(onChange);
            where = server;
            registration.active().whenComplete((ok, failure) -> {
                if (failure != null) {
                    active.completeExceptionally(failure);
                } else {
                    active.complete(null);
                }
            });
        } catch (IllegalStateException closedServer) {
            registration = null;
            where = null;
            active.completeExceptionally(closedServer);
        }
        if (previous != null && previous != registration) {
            previous.close();
        }
    }

    /** @return the server of the current subscription, or null if it has none */
    public synchronized Object where() {
        return where;
    }

    /** @return true if it has a subscription (not closed, and its last move succeeded) */
    public synchronized boolean subscribed() {
        return registration != null;
    }

    /**
     * Completes {@link #active()} exceptionally if nothing confirmed it yet: the caller knows there
     * is nowhere to subscribe now, and the engine does not wait for a confirmation.
     *
     * @param why the reason
     */
    public void unavailable(RuntimeException why) {
        active.completeExceptionally(why);
    }

    @Override
    public CompletionStage<Void> active() {
        return active.minimalCompletionStage();
    }

    @Override
    public void close() {
        Watch last;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            last = registration;
            registration = null;
        }
        onClose.run();
        if (last != null) {
            last.close();
        }
    }
}
