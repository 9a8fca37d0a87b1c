package io.distlock.engine;

import io.distlock.Feature;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.Backoff;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * How one client's acquirers wait between attempts: where they sleep ({@link Waiter}s, all woken
 * when the client closes), the driver's change notifications that wake them, and how long they
 * sleep when nothing does.
 *
 * <p>After a busy attempt: with notifications, until notified, or until the holder's remaining
 * lease (the driver's hint) has passed, since an expiry is not announced — and, unless the
 * notifications are reliable, a slow poll as well; without notifications, the client's retry
 * back-off ({@link LockOptions.Builder#retryBackoff}), also cut short by the hint. After an attempt
 * with no answer: the retry back-off. Jitter keeps waiters that were woken together from retrying in
 * lockstep.
 *
 * <p>Before the first attempt: a courtesy pause, if this client's release of the lock just woke
 * waiters ({@link #releaseWokeWaiters}), so that they get it ahead of the client that released it.
 */
final class Waiting {

    /** Without reliable notifications, a notified waiter still polls this many maximum back-offs apart. */
    private static final int NOTIFIED_POLL_FACTOR = 10;
    /** The shortest courtesy pause ({@link #releaseWokeWaiters}): a woken waiter's thread must get to run. */
    static final long MIN_COURTESY_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    /** The longest: a slow release must not make the next acquire of a client that is alone slow. */
    static final long MAX_COURTESY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** From this many names on, a new courtesy first drops those that have run out. */
    private static final int COURTESY_SWEEP_SIZE = 64;

    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private final Backoff retry;
    private final long minRetryNanos;
    private final boolean notifications;
    private volatile boolean reliable;
    private volatile LockDriver driver;
    /**
     * Names whose release by this client woke waiters, and until when (engine clock) a waiting
     * acquire of this client holds back its first attempt on them. Each is used once; those that ran
     * out unused are dropped as new ones come, so the map stays small.
     */
    private final ConcurrentHashMap<String, Long> courtesyUntil = new ConcurrentHashMap<>();

    Waiting(LockOptions options, boolean notifications) {
        this.retry = Backoff.exponential(options.minRetryBackoff(), options.maxRetryBackoff());
        this.minRetryNanos = options.minRetryBackoff().toNanos();
        this.notifications = notifications;
    }

    /** The driver is connected: its watches can be asked for, and whether they can be relied on is known. */
    void connected(LockDriver connected) {
        this.driver = connected;
        this.reliable = notifications && connected.reliableNotifications();
    }

    /** A place to sleep between attempts, woken by the client closing. */
    Waiter newWaiter() {
        Waiter waiter = new Waiter();
        waiters.add(waiter);
        return waiter;
    }

    /** Has {@code waiter} woken by the driver's change notifications for {@code request}, if the backend has them. */
    void watch(Waiter waiter, LockRequest request, String endpoint) {
        waiter.watchRequested(true);
        if (!notifications) {
            return;
        }
        try {
            waiter.watching(driver.watch(request, waiter));
        } catch (RuntimeException e) {
            // No notifications for this wait: the acquirer polls on its back-off instead.
            EngineClient.LOG.log(System.Logger.Level.DEBUG, "could not watch ''{0}'' on {1}; polling instead: {2}", request.name(),
                    endpoint, e.toString());
        }
    }

    void drop(Waiter waiter) {
        waiters.remove(waiter);
        waiter.close();
    }

    /** The client closes: every acquirer wakes up (and finds it closed). */
    void wakeAll() {
        waiters.forEach(Waiter::run);
    }

    /**
     * @param result    the attempt that gave no lease: busy, unknown, or a grant that could not be used
     * @param attempt   how many attempts came before it
     * @param suspended the driver reports its connection suspended: a grant cannot be used until it is
     *                  restored, which wakes every waiter
     * @return how long to sleep before the next attempt, in nanoseconds
     */
    long pauseNanos(Attempt result, int attempt, boolean suspended) {
        if (result.isUnknown() || (result.isGranted() && !suspended)) {
            return retry.delayNanos(attempt + 1); // no answer, or a grant that came too late: try again soon
        }
        long hint = result.retryAfter().map(d -> d.toNanos() + ThreadLocalRandom.current().nextLong(minRetryNanos + 1))
                .orElse(Long.MAX_VALUE);
        if (reliable) {
            return hint;
        }
        if (notifications) {
            return Math.min(hint, retry.max().toNanos() * NOTIFIED_POLL_FACTOR);
        }
        return Math.min(retry.delayNanos(attempt + 1), hint);
    }

    /**
     * This client's release of {@code name} woke waiters ({@link io.distlock.spi.DriverContext#releaseWokeWaiters}):
     * its next waiting acquire of the name, if it starts soon, lets them go first.
     *
     * @param roundTrip how long the release took
     * @param now       the engine's clock
     */
    void releaseWokeWaiters(String name, Duration roundTrip, long now) {
        long pause = Math.min(MAX_COURTESY_NANOS, Math.max(MIN_COURTESY_NANOS, 2 * Math.max(0, roundTrip.toNanos())));
        if (courtesyUntil.size() >= COURTESY_SWEEP_SIZE) {
            courtesyUntil.values().removeIf(until -> until - now <= 0);
        }
        courtesyUntil.put(name, now + pause);
    }

    /**
     * Takes the courtesy pause due before a waiting acquire's first attempt on {@code name}: what is
     * left of it at {@code now}, or 0. Taken once: the next acquire does not pause again.
     */
    long takeCourtesy(String name, long now) {
        Long until = courtesyUntil.remove(name);
        return until == null ? 0 : Math.max(0, until - now);
    }

    /** @return how many names have a courtesy pause recorded, used or not (for tests) */
    int courtesies() {
        return courtesyUntil.size();
    }

    /** @return true if the backend declares change notifications ({@link Feature#WAIT_NOTIFICATION}) */
    boolean notifications() {
        return notifications;
    }
}
