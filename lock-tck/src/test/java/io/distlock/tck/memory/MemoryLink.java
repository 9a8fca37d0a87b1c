package io.distlock.tck.memory;

import io.distlock.BackendUnavailableException;
import io.distlock.tck.ClientLink;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The in-memory backend's network between one client and its {@link MemoryServer}, with the
 * faults of a real one, so that the partition rules run against the reference too: a dropped
 * link (calls fail at once, what was held is lost), a blackhole (requests are held; a caller that
 * gives up after its operation timeout leaves its request in flight, and it lands when the link
 * heals — late), and held replies (the server acts, the caller hears nothing).
 *
 * <p>When a blackhole heals, requests whose callers still wait land first and the ones whose
 * callers gave up last: the order a new connection and an abandoned one can take, and the one in
 * which a late write meets its own cleanup first. A client without a named link gets one that is
 * always up.
 */
final class MemoryLink implements ClientLink {

    private static final Map<String, MemoryLink> LINKS = new ConcurrentHashMap<>();

    private enum Mode { UP, DROPPED, BLACKHOLE, HOLD_REPLIES }

    /** A request or a reply held on the link. */
    private static final class Held {
        final Supplier<?> request;
        Object reply;
        boolean applied;
        boolean released;
        boolean lost;
        boolean orphan;

        Held(Supplier<?> request) {
            this.request = request;
        }
    }

    private final String id;
    private final List<Held> held = new ArrayList<>();
    private final List<Runnable> onDrop = new CopyOnWriteArrayList<>();
    private final List<Runnable> onHeal = new CopyOnWriteArrayList<>();
    private Mode mode = Mode.UP;
    private final java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();

    private MemoryLink(String id) {
        this.id = id;
    }

    /** @return a new link, registered for {@code ?link=<id>} */
    static MemoryLink create() {
        MemoryLink link = new MemoryLink(UUID.randomUUID().toString());
        LINKS.put(link.id, link);
        return link;
    }

    /** @return an unregistered link that is always up */
    static MemoryLink alwaysUp() {
        return new MemoryLink("direct");
    }

    /**
     * @param id a link's id
     * @return the link
     * @throws IllegalArgumentException if there is none of that id
     */
    static MemoryLink named(String id) {
        MemoryLink link = LINKS.get(id);
        if (link == null) {
            throw new IllegalArgumentException("no memory link '" + id + "'");
        }
        return link;
    }

    String id() {
        return id;
    }

    void remove() {
        LINKS.remove(id);
    }

    void onDrop(Runnable listener) {
        onDrop.add(listener);
    }

    void onHeal(Runnable listener) {
        onHeal.add(listener);
    }

    synchronized boolean isUp() {
        return mode == Mode.UP;
    }

    /**
     * Sends one request over the link.
     *
     * @param what          the request, for messages
     * @param timeoutNanos  how long the caller waits for the reply
     * @param request       what the server does
     * @return the reply
     * @throws BackendUnavailableException if the link is dropped, or no reply came in time
     */
    @SuppressWarnings("unchecked")
    <T> T call(String what, long timeoutNanos, Supplier<T> request) {
        sent.incrementAndGet();
        Held pending;
        synchronized (this) {
            switch (mode) {
                case DROPPED:
                    throw unavailable(what, "the link is down (connection refused)");
                case UP:
                    pending = null;
                    break;
                case BLACKHOLE:
                    pending = new Held(request);
                    held.add(pending);
                    break;
                default: // HOLD_REPLIES: the server acts now, the reply waits
                    pending = new Held(request);
                    pending.reply = request.get();
                    pending.applied = true;
                    held.add(pending);
                    break;
            }
        }
        if (pending == null) {
            return request.get();
        }
        boolean interrupted = false;
        try {
            synchronized (this) {
                long deadline = System.nanoTime() + timeoutNanos;
                while (!pending.released && !pending.lost) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    try {
                        // A reply on the wire does not care about the caller's interrupt.
                        wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (pending.released) {
                    return (T) pending.reply;
                }
                pending.orphan = true; // the caller gives up; the request may still land
                throw unavailable(what, pending.lost ? "the connection was reset" : "no reply within "
                        + timeoutNanos / 1_000_000 + " ms");
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static BackendUnavailableException unavailable(String what, String why) {
        return new BackendUnavailableException("memory-link", "memory server unreachable (" + what + "): " + why, null);
    }

    @Override
    public void drop() {
        synchronized (this) {
            mode = Mode.DROPPED;
            for (Held h : held) {
                h.lost = true; // a reset connection loses what it held: nothing lands later
            }
            held.clear();
            notifyAll();
        }
        onDrop.forEach(Runnable::run);
    }

    @Override
    public synchronized void blackhole() {
        mode = Mode.BLACKHOLE;
    }

    @Override
    public synchronized void holdReplies() {
        mode = Mode.HOLD_REPLIES;
    }

    @Override
    public void heal() {
        List<Held> landing = new ArrayList<>();
        synchronized (this) {
            mode = Mode.UP;
            for (Held h : held) {
                if (!h.orphan) {
                    landing.add(h); // callers still waiting first ...
                }
            }
            for (Held h : held) {
                if (h.orphan) {
                    landing.add(h); // ... then what was given up on: it lands late
                }
            }
            held.clear();
        }
        for (Held h : landing) {
            if (!h.applied) {
                h.reply = h.request.get();
                h.applied = true;
            }
        }
        synchronized (this) {
            for (Held h : landing) {
                h.released = true;
            }
            notifyAll();
        }
        onHeal.forEach(Runnable::run);
    }

    @Override
    public long requestsSent() {
        return sent.get();
    }

    @Override
    public synchronized boolean inFlight() {
        return !held.isEmpty();
    }

    @Override
    public String toString() {
        return "MemoryLink[" + id + ", " + mode + "]";
    }
}
