package io.distlock.rediswait.internal;

import io.distlock.redis.support.MovableWatch;
import io.distlock.redis.support.RedisNode;
import io.distlock.spi.Watch;

import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Release notifications that follow the primary. A release is published on the primary that ran
 * it, so a waiter subscribed on the old primary hears nothing once the client has moved to a new
 * one: every open watch is registered again on the new primary ({@link #moveTo}), the old
 * registration closed, and every listener called once ({@link #wakeAll}), since a release during
 * the move may have been missed. The caller serialises {@link #open} and {@link #moveTo}.
 */
final class MovingWatches {

    /** Each open watch, and the channel it listens on. */
    private final Map<MovableWatch, String> open = new ConcurrentHashMap<>();

    /**
     * @param node     the primary now
     * @param channel  the channel its releases are published on
     * @param onChange cheap, non-blocking listener
     * @return a watch registered on {@code node}, moved with every {@link #moveTo}
     */
    Watch open(RedisNode node, String channel, Runnable onChange) {
        MovableWatch[] self = new MovableWatch[1];
        MovableWatch watch = new MovableWatch(onChange, () -> open.remove(self[0]));
        self[0] = watch;
        open.put(watch, channel);
        watch.moveTo(node, listener -> node.subscribe(channel, listener));
        return watch;
    }

    /**
     * Registers every open watch on {@code node} and closes its registration on the old primary.
     *
     * @param node the new primary
     */
    void moveTo(RedisNode node) {
        open.forEach((watch, channel) -> watch.moveTo(node, listener -> node.subscribe(channel, listener)));
    }

    /** Calls every open watch's listener once: a release during a move may have gone unheard. */
    void wakeAll() {
        for (MovableWatch watch : new ArrayList<>(open.keySet())) {
            watch.listener().run();
        }
    }

    /** @return how many watches are open (for tests) */
    int size() {
        return open.size();
    }
}
