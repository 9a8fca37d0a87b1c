package io.distlock.rediswait.internal;

import io.distlock.redis.support.RedisNode;
import io.distlock.spi.Watch;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Release notifications that follow the primary. A release is published on the primary that ran
 * it, so a waiter subscribed on the old primary hears nothing once the client has moved to a new
 * one: every open watch is registered again on the new primary ({@link #moveTo}), the old
 * registration closed, and every listener called once ({@link #wakeAll}), since a release during
 * the move may have been missed. The caller serialises {@link #open} and {@link #moveTo}.
 */
final class MovingWatches {

    private final Set<Moving> open = ConcurrentHashMap.newKeySet();

    /**
     * @param node     the primary now
     * @param channel  the channel its releases are published on
     * @param onChange cheap, non-blocking listener
     * @return a watch registered on {@code node}, moved with every {@link #moveTo}
     */
    Watch open(RedisNode node, String channel, Runnable onChange) {
        Moving watch = new Moving(channel, onChange);
        open.add(watch);
        watch.attach(node);
        return watch;
    }

    /**
     * Registers every open watch on {@code node} and closes its registration on the old primary.
     *
     * @param node the new primary
     */
    void moveTo(RedisNode node) {
        for (Moving watch : open) {
            watch.attach(node);
        }
    }

    /** Calls every open watch's listener once: a release during a move may have gone unheard. */
    void wakeAll() {
        for (Moving watch : new ArrayList<>(open)) {
            watch.onChange.run();
        }
    }

    /** @return how many watches are open (for tests) */
    int size() {
        return open.size();
    }

    private final class Moving implements Watch {
        private final String channel;
        private final Runnable onChange;
        /** The first registration's confirmation: what the engine waits for before its retry. */
        private final CompletableFuture<Void> active = new CompletableFuture<>();
        private Watch registration; // guarded by this
        private boolean closed; // guarded by this

        Moving(String channel, Runnable onChange) {
            this.channel = channel;
            this.onChange = onChange;
        }

        synchronized void attach(RedisNode node) {
            if (closed) {
                return;
            }
            Watch previous = registration;
            try {
                registration = node.subscribe(channel, onChange);
                registration.active().whenComplete((ok, failure) -> {
                    if (failure != null) {
                        active.completeExceptionally(failure);
                    } else {
                        active.complete(null);
                    }
                });
            } catch (IllegalStateException closedNode) {
                // The node was closed meanwhile (the client is closing, or moved on): the next move
                // registers it again; until then the engine's fallback poll covers the waiter.
                registration = null;
                active.completeExceptionally(closedNode);
            }
            if (previous != null) {
                previous.close();
            }
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
            open.remove(this);
            if (last != null) {
                last.close();
            }
        }
    }
}
