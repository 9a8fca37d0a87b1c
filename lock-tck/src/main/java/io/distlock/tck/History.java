package io.distlock.tck;

import io.distlock.Lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A concurrent record of what clients did with leases, for {@link HistoryChecker} to judge.
 *
 * <p>Every lease gets an id when its acquisition is recorded; its release and its writes to a
 * protected resource are recorded under that id. Times are {@link System#nanoTime()} readings of
 * this JVM, comparable because every event is recorded here: a client in another process is recorded
 * by the JVM that drives it, with {@link #acquired(String, String, long, long, OptionalLong)} — the
 * grant's answer arrived here at {@code atNanos}, and its validity is counted from when its request
 * was sent from here, which keeps its valid interval inside the real one.
 *
 * <p>How a lease's <em>valid interval</em> is derived (conservatively, so that a correct backend
 * never shows a violation): it starts when the acquire returned and ends at the earlier of the
 * moment its holder called release and the validity the lease promised when it was acquired
 * ({@code now + remaining()}, read right after the acquire returned).
 *
 * <p>Thread-safe: any number of threads may record at once.
 */
public final class History {

    /** What happened. */
    public enum Kind {
        /** An acquire returned a lease. */
        ACQUIRED,
        /** The holder is about to release the lease (recorded before the release call). */
        RELEASING,
        /** The holder wrote to a protected resource; {@link Event#accepted()} tells the resource's answer. */
        WRITE
    }

    /**
     * One recorded event.
     *
     * @param lease           the id of the lease, from {@link #acquired}
     * @param client          who acted
     * @param lockName        the lock
     * @param kind            what happened
     * @param nanoTime        when ({@link System#nanoTime()})
     * @param validUntilNanos for {@link Kind#ACQUIRED}: when the lease's promised validity ends; else 0
     * @param fencingToken    the lease's fencing token, if the backend has them
     * @param accepted        for {@link Kind#WRITE}: whether the resource accepted it; else true
     */
    public record Event(long lease, String client, String lockName, Kind kind, long nanoTime,
                        long validUntilNanos, OptionalLong fencingToken, boolean accepted) {
        /**
         * @param lease           the lease's id in the history
         * @param client          the client that holds or held it
         * @param lockName        the lock's name
         * @param kind            what happened
         * @param nanoTime        when, on {@link System#nanoTime()}
         * @param validUntilNanos for ACQUIRED: when the promised validity ends; else 0
         * @param fencingToken    the lease's fencing token, if any
         * @param accepted        for WRITE: whether the resource accepted it; else true
         * @throws NullPointerException if a reference component is null
         */
        public Event {
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(lockName, "lockName");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(fencingToken, "fencingToken");
        }

        /**
         * @param originNanos the time printed as zero
         * @return this event for a violation message, times in ms relative to {@code originNanos}
         */
        public String describe(long originNanos) {
            StringBuilder s = new StringBuilder()
                    .append(client).append(" lease#").append(lease).append(' ').append(kind)
                    .append(" '").append(lockName).append("' at ").append(relative(nanoTime, originNanos));
            if (kind == Kind.ACQUIRED) {
                s.append(", valid until ").append(relative(validUntilNanos, originNanos));
            }
            if (kind == Kind.WRITE) {
                s.append(accepted ? ", accepted" : ", REJECTED");
            }
            fencingToken.ifPresent(t -> s.append(", token ").append(t));
            return s.toString();
        }

        private static String relative(long nanos, long originNanos) {
            return String.format(Locale.ROOT, "+%.3f ms", (nanos - originNanos) / 1e6);
        }
    }

    /**
     * An attempt that waited for the lock (a {@code tryAcquire} with a {@code maxWait}): kept beside the
     * events, which it does not change, so that a timeline can draw the waits.
     *
     * @param client    who waited
     * @param lockName  the lock
     * @param fromNanos when the attempt started ({@link System#nanoTime()})
     * @param toNanos   when it returned
     * @param granted   whether it returned a lease
     */
    public record Wait(String client, String lockName, long fromNanos, long toNanos, boolean granted) {
        /**
         * @param client    who waited
         * @param lockName  the lock
         * @param fromNanos when the attempt started
         * @param toNanos   when it returned
         * @param granted   whether it returned a lease
         * @throws NullPointerException if a reference component is null
         */
        public Wait {
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(lockName, "lockName");
        }
    }

    private final ConcurrentLinkedQueue<Wait> waits = new ConcurrentLinkedQueue<>();
    private final AtomicInteger unknown = new AtomicInteger();
    private final long originNanos = System.nanoTime();
    private final AtomicLong leaseIds = new AtomicLong();
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final ConcurrentHashMap<Long, Event> acquisitions = new ConcurrentHashMap<>();

    /** An empty history whose origin (time zero in messages) is now. */
    public History() {
    }

    /** @return the {@link System#nanoTime()} reading printed as zero in messages */
    public long originNanos() {
        return originNanos;
    }

    /**
     * Records that {@code client} was just granted {@code lease}: reads the time, then
     * {@link Lease#remaining()} and {@link Lease#fencingToken()}. Call it right after the acquire
     * returned.
     *
     * @param client who acquired
     * @param lease  what was granted
     * @return the lease's id, for {@link #releasing} and {@link #write}
     */
    public long acquired(String client, Lease lease) {
        long now = System.nanoTime();
        Duration remaining = lease.remaining();
        return acquired(client, lease.lockName(), now, now + remaining.toNanos(), lease.fencingToken());
    }

    /**
     * Records an acquisition with explicit times (for histories built by hand or replayed).
     *
     * @param client          who acquired
     * @param lockName        the lock
     * @param atNanos         when the acquire returned
     * @param validUntilNanos when the lease's promised validity ends
     * @param fencingToken    its token, or empty
     * @return the lease's id
     */
    public long acquired(String client, String lockName, long atNanos, long validUntilNanos, OptionalLong fencingToken) {
        long id = leaseIds.incrementAndGet();
        Event event = new Event(id, client, lockName, Kind.ACQUIRED, atNanos, validUntilNanos, fencingToken, true);
        acquisitions.put(id, event);
        events.add(event);
        return id;
    }

    /**
     * Records, now, that the holder of {@code lease} is about to release it.
     *
     * @param lease the id from {@link #acquired}
     * @throws IllegalArgumentException if the id is unknown
     */
    public void releasing(long lease) {
        releasing(lease, System.nanoTime());
    }

    /**
     * @param lease   the id from {@link #acquired}
     * @param atNanos when release was called
     * @throws IllegalArgumentException if the id is unknown
     */
    public void releasing(long lease, long atNanos) {
        Event a = acquisition(lease);
        events.add(new Event(lease, a.client(), a.lockName(), Kind.RELEASING, atNanos, 0, a.fencingToken(), true));
    }

    /**
     * Records a write to a protected resource.
     *
     * @param lease    the id from {@link #acquired}
     * @param atNanos  a time no earlier than when the resource judged the write (read it after the
     *                 write returned)
     * @param accepted the resource's answer
     * @throws IllegalArgumentException if the id is unknown
     */
    public void write(long lease, long atNanos, boolean accepted) {
        Event a = acquisition(lease);
        events.add(new Event(lease, a.client(), a.lockName(), Kind.WRITE, atNanos, 0, a.fencingToken(), accepted));
    }

    private Event acquisition(long lease) {
        Event a = acquisitions.get(lease);
        if (a == null) {
            throw new IllegalArgumentException("unknown lease id " + lease);
        }
        return a;
    }

    /** @return a snapshot of the events, ordered by time (then by lease id) */
    public List<Event> events() {
        List<Event> snapshot = new ArrayList<>(events);
        snapshot.sort(Comparator.comparingLong((Event e) -> e.nanoTime() - originNanos).thenComparingLong(Event::lease));
        return snapshot;
    }

    /**
     * Records an attempt that waited for the lock; it does not count as an event.
     *
     * @param wait the attempt
     */
    public void waited(Wait wait) {
        waits.add(Objects.requireNonNull(wait, "wait"));
    }

    /** @return a snapshot of the attempts that waited, ordered by their start */
    public List<Wait> waits() {
        List<Wait> snapshot = new ArrayList<>(waits);
        snapshot.sort(Comparator.comparingLong((Wait w) -> w.fromNanos() - originNanos));
        return snapshot;
    }

    /** @return how many acquisitions were recorded */
    public int acquisitions() {
        return acquisitions.size();
    }

    /** Records an attempt that got no answer (its outcome is unknown: no lease, and no contention either). */
    public void unknownOutcome() {
        unknown.incrementAndGet();
    }

    /** @return how many attempts got no answer */
    public int unknownOutcomes() {
        return unknown.get();
    }

    /** @return how many distinct clients acquired at least once */
    public long distinctHolders() {
        return acquisitions.values().stream().map(Event::client).distinct().count();
    }

    @Override
    public String toString() {
        return "History[" + events.size() + " events, " + acquisitions.size() + " leases"
                + (unknown.get() > 0 ? ", " + unknown.get() + " attempts unanswered" : "") + "]";
    }
}
