package io.distlock.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * The engine's waiters of one driver, by lock name: what {@link LockDriver#watch} registers and a
 * driver that learns of changes itself (a deletion its own watch saw, a reconnect) wakes. For
 * drivers whose change notifications come from their own per-request watches rather than from one
 * subscription per name. Thread-safe; the listeners are called on the waking thread and must not
 * block (the engine's do not).
 */
public final class Waiters {

    private final Map<String, Set<Runnable>> byName = new ConcurrentHashMap<>();

    /** Creates an empty registry. */
    public Waiters() {
    }

    /**
     * Registers a waiter: what {@link LockDriver#watch} returns.
     *
     * @param name     the lock name
     * @param onChange the engine's listener
     * @return the registration; closing it removes the listener
     */
    public Watch add(String name, Runnable onChange) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(onChange, "onChange");
        byName.computeIfAbsent(name, k -> new CopyOnWriteArraySet<>()).add(onChange);
        return () -> byName.computeIfPresent(name, (k, set) -> {
            set.remove(onChange);
            return set.isEmpty() ? null : set;
        });
    }

    /**
     * Wakes every waiter of {@code name}.
     *
     * @param name the lock name
     */
    public void wake(String name) {
        Set<Runnable> waiting = byName.get(name);
        if (waiting != null) {
            waiting.forEach(Runnable::run);
        }
    }

    /** Wakes every waiter of every name (after a reconnect: a change may have gone unheard). */
    public void wakeAll() {
        byName.keySet().forEach(this::wake);
    }
}
