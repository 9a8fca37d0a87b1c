package io.distlock.engine;

import io.distlock.spi.Backoff;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The one place where whatever must be removed from the server is removed: releases, abandoned
 * requests (also by owner token after an unknown outcome), and lease ends on session stores.
 *
 * <p>A removal that the server did not confirm is never forgotten: it stays here and is retried
 * with a jittered back-off ({@link #BACKOFF}: 10 ms doubling to 250 ms), at once when the
 * driver reports its connection restored, and in the client's closing batch — until the driver
 * returns normally, or until it is moot: on a backend whose server expires leases, once everything
 * the lease or request wrote has expired there (its latest write's lease time plus the operation
 * timeout for a write still in flight). A write delayed in the network for longer than that may
 * still land; it then holds the lock at most one lease time, as a crashed client's would.
 *
 * <p>Each retry round runs on the client's I/O executor: first every pending release in one
 * {@link LockDriver#releaseAll} batch, then the other removals one by one, and the round stops at
 * the first one that fails (the backend is still away; trying the rest would only wait out more
 * timeouts). While a round has just failed, the backend counts as away ({@link #outage()}): a
 * user's release then goes straight to the queue and returns at once instead of waiting for a
 * timeout.
 */
final class Cleanup {

    /** Between retry rounds of removals the server did not confirm, by how many rounds in a row failed. */
    static final Backoff BACKOFF = Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(250));
    private static final long NO_MOOT = Long.MAX_VALUE;

    /** One removal. */
    abstract static class Task {
        final String name;
        /** When it stops mattering (monotonic clock), or {@link #NO_MOOT}. */
        final long mootAt;
        int failures;
        /** Not to be tried before this (monotonic clock): a confirmed removal repeated for a late write. */
        long notBefore;

        Task(String name, long mootAt) {
            this.name = name;
            this.mootAt = mootAt;
        }

        abstract void run(LockDriver driver);

        abstract String what();
    }

    static final class Release extends Task {
        final Grant grant;

        Release(Grant grant, long mootAt) {
            super(grant.name(), mootAt);
            this.grant = grant;
        }

        @Override
        void run(LockDriver driver) {
            driver.release(grant);
        }

        @Override
        String what() {
            return "release '" + name + "'";
        }
    }

    static final class Abandon extends Task {
        final LockRequest request;
        final boolean outcomeUnknown;
        /**
         * Confirmed removals are repeated until {@link #repeatUntil}: a write of the request may still
         * land (see LockDriver#lateWritesPossible).
         */
        final boolean repeat;
        /**
         * Until when (monotonic clock): the request's lease time after its last write, and a write in
         * flight. On a session store, whose holds never turn moot by themselves, repeats still end
         * then, while an unconfirmed removal is kept until it is confirmed.
         */
        final long repeatUntil;

        Abandon(LockRequest request, boolean outcomeUnknown, long mootAt, boolean repeat, long repeatUntil) {
            super(request.name(), mootAt);
            this.request = request;
            this.outcomeUnknown = outcomeUnknown;
            this.repeat = repeat && outcomeUnknown && repeatUntil != NO_MOOT;
            this.repeatUntil = repeatUntil;
        }

        @Override
        void run(LockDriver driver) {
            driver.abandon(request, outcomeUnknown);
        }

        @Override
        String what() {
            return (outcomeUnknown ? "clean up after an acquire of '" : "withdraw an acquire of '") + name + "'";
        }
    }

    static final class LeaseEnd extends Task {
        final Grant grant;

        LeaseEnd(Grant grant) {
            super(grant.name(), NO_MOOT);
            this.grant = grant;
        }

        @Override
        void run(LockDriver driver) {
            driver.leaseExpired(grant);
        }

        @Override
        String what() {
            return "end the lease on '" + name + "'";
        }
    }

    private final ClientState state;
    private final DriverCalls calls;
    private final List<Task> pending = new ArrayList<>();
    /** A round waiting for its back-off (null if none); guarded by pending. */
    private EngineRuntime.Cancellable scheduledRound;
    /** A round is submitted to, or running on, the I/O executor; guarded by pending. */
    private boolean roundRunning;
    /** The connection came back while a round ran: start another at once; guarded by pending. */
    private boolean rerun;
    /** How many rounds in a row failed; guarded by pending. */
    private int failedRounds;
    private volatile boolean outage;

    Cleanup(ClientState state, DriverCalls calls) {
        this.state = state;
        this.calls = calls;
    }

    static long never() {
        return NO_MOOT;
    }

    /** @return true while the latest attempt failed: the backend is away */
    boolean outage() {
        return outage;
    }

    /** @return how many removals are waiting for the server */
    int pending() {
        synchronized (pending) {
            return pending.size();
        }
    }

    /**
     * Removes now, on the calling thread (bounded by the driver's operation timeout), unless the
     * backend is known to be away (the last attempt failed, or the driver reports its connection
     * suspended): then, and if this attempt fails, the removal is queued for the next round.
     */
    void now(Task task) {
        if (!outage && !state.suspended()) {
            try {
                task.run(calls.driver());
                return;
            } catch (IllegalStateException closed) {
                return; // the driver is closed: the server ends what is left (TTL, session)
            } catch (RuntimeException e) {
                if (refusedWithNothingToRemove(task, e)) {
                    return;
                }
                outage = true;
                task.failures++;
                logFirstFailure(task, e);
                queue(task, BACKOFF.delayNanos(1)); // it just failed: no point trying again at once
                return;
            }
        }
        queue(task, BACKOFF.delayNanos(failedRounds()));
    }

    /**
     * A withdrawal of a request whose every attempt was answered, refused for the client's identity or
     * rights: the server wrote nothing this client could still remove (a queue entry of an earlier
     * attempt, on a session store, ends with the session), and retrying a refusal would only repeat it
     * until the client closes. Given up, with a warning. Removals that may matter — a release, the end
     * of a lease, the clean-up after an unknown outcome — are retried as for an outage: rights that
     * come back let them through.
     */
    private boolean refusedWithNothingToRemove(Task task, RuntimeException e) {
        if (!(e instanceof io.distlock.AuthenticationException || e instanceof io.distlock.AccessDeniedException)
                || !(task instanceof Abandon abandon) || abandon.outcomeUnknown) {
            return false;
        }
        EngineClient.LOG.log(System.Logger.Level.WARNING, "gave up: {0} on {1}: the server refused it ({2})", task.what(),
                state.endpoint(), e.getMessage());
        return true;
    }

    /** Removes on the I/O executor as soon as possible (for the keeper's thread, and after an unknown outcome). */
    void soon(Task task) {
        queue(task, 0);
    }

    /** The connection is back: retry everything now, not after the back-off. */
    void retryNow() {
        synchronized (pending) {
            failedRounds = 0;
            if (roundRunning) {
                rerun = true;
                return;
            }
            if (pending.isEmpty()) {
                return;
            }
            if (scheduledRound != null) {
                scheduledRound.cancel();
                scheduledRound = null;
            }
            roundRunning = true;
        }
        submitRound();
    }

    private int failedRounds() {
        synchronized (pending) {
            return failedRounds;
        }
    }

    private void queue(Task task, long delayNanos) {
        synchronized (pending) {
            pending.add(task);
            if (roundRunning || (scheduledRound != null && delayNanos > 0)) {
                return; // the round under way, or the one already scheduled, takes it
            }
            if (scheduledRound != null) {
                scheduledRound.cancel(); // this one should go sooner
                scheduledRound = null;
            }
            if (delayNanos > 0) {
                scheduleRound(delayNanos);
                return;
            }
            roundRunning = true;
        }
        submitRound();
    }

    /** Guarded by pending. */
    private void scheduleRound(long delayNanos) {
        scheduledRound = state.runtime().schedule(() -> {
            synchronized (pending) {
                scheduledRound = null;
                if (roundRunning) {
                    return;
                }
                roundRunning = true;
            }
            submitRound();
        }, delayNanos);
    }

    private void submitRound() {
        try {
            state.runtime().io().execute(this::round);
        } catch (RejectedExecutionException closing) {
            synchronized (pending) {
                roundRunning = false;
            }
        }
    }

    /** One retry round, on the I/O executor. */
    private void round() {
        List<Task> tasks;
        long now = state.nanoTime();
        synchronized (pending) {
            tasks = new ArrayList<>(pending.size());
            List<Task> later = new ArrayList<>();
            for (Task task : pending) {
                if (now - task.mootAt >= 0) {
                    continue; // moot: the server's own expiry has removed whatever it was
                }
                (now - task.notBefore >= 0 ? tasks : later).add(task);
            }
            pending.clear();
            pending.addAll(later);
        }
        boolean failed = attempt(tasks, true);
        roundEnded(failed);
    }

    /**
     * A removal the server confirmed, of a request whose write may still land late on a backend
     * that cannot refuse it: tried again a little later, until its lease time has passed there.
     */
    private void repeatLater(Abandon task) {
        long next = state.nanoTime() + LockDriver.LATE_WRITE_REPEAT.delayNanos(1);
        if (next - task.repeatUntil < 0 && next - task.mootAt < 0) {
            task.notBefore = next;
            synchronized (pending) {
                pending.add(task);
            }
        }
    }

    /**
     * Tries {@code tasks}: releases in one batch, the rest one by one, stopping at the first
     * failure when {@code stopAtFailure}. What fails, or is not tried, goes back to the queue.
     *
     * @return true if something failed
     */
    private boolean attempt(List<Task> tasks, boolean stopAtFailure) {
        LockDriver driver = calls.driver();
        List<Release> releases = new ArrayList<>();
        List<Task> others = new ArrayList<>();
        for (Task task : tasks) {
            if (task instanceof Release) {
                releases.add((Release) task);
            } else {
                others.add(task);
            }
        }
        Failures failures = new Failures();
        if (!releases.isEmpty() && !releaseBatch(driver, releases, failures)) {
            return false; // the driver is closed: nothing more can be done here
        }
        for (Task task : others) {
            if (stopAtFailure && failures.any()) {
                failures.add(task, null); // not tried: the backend is still away
            } else {
                runOne(driver, task, failures);
            }
        }
        for (Release release : releases) {
            if (!failures.contains(release)) {
                logRecovered(release);
            }
        }
        return requeue(failures);
    }

    /**
     * Sends the releases in one batch; each whose removal the driver could not confirm is a failure.
     *
     * @return false if the driver is closed
     */
    private boolean releaseBatch(LockDriver driver, List<Release> releases, Failures failures) {
        Map<Grant, Release> byGrant = new IdentityHashMap<>();
        List<Grant> grants = new ArrayList<>(releases.size());
        for (Release release : releases) {
            byGrant.put(release.grant, release);
            grants.add(release.grant);
        }
        List<Grant> unconfirmed;
        RuntimeException failure = null;
        try {
            unconfirmed = driver.releaseAll(grants);
        } catch (IllegalStateException closed) {
            return false;
        } catch (RuntimeException e) {
            unconfirmed = grants;
            failure = e;
        }
        for (Grant grant : unconfirmed) {
            Release release = byGrant.get(grant);
            if (release != null) {
                failures.add(release, failure);
            }
        }
        return true;
    }

    /** Runs one task that is not a release; an abandon that must be repeated is queued again. */
    private void runOne(LockDriver driver, Task task, Failures failures) {
        try {
            task.run(driver);
            logRecovered(task);
            if (task instanceof Abandon abandon && abandon.repeat) {
                repeatLater(abandon);
            }
        } catch (IllegalStateException closed) {
            // the driver is closed: nothing more can be done here
        } catch (RuntimeException e) {
            if (!refusedWithNothingToRemove(task, e)) {
                failures.add(task, e);
            }
        }
    }

    /** Logs each task's first failure and puts every failed task back in the queue; true if there was one. */
    private boolean requeue(Failures failures) {
        for (Task task : failures.tasks) {
            if (task.failures++ == 0) {
                logFirstFailure(task, failures.first);
            }
        }
        if (failures.tasks.isEmpty()) {
            return false;
        }
        synchronized (pending) {
            pending.addAll(failures.tasks);
        }
        return true;
    }

    /** The tasks of one attempt that failed or were not tried, and the first failure seen (for the log). */
    private static final class Failures {
        final Set<Task> tasks = Collections.newSetFromMap(new IdentityHashMap<>());
        RuntimeException first;

        void add(Task task, RuntimeException cause) {
            tasks.add(task);
            if (first == null) {
                first = cause;
            }
        }

        boolean any() {
            return !tasks.isEmpty();
        }

        boolean contains(Task task) {
            return tasks.contains(task);
        }
    }

    private void roundEnded(boolean failed) {
        outage = failed;
        synchronized (pending) {
            failedRounds = failed ? failedRounds + 1 : 0;
            roundRunning = false;
            if (pending.isEmpty() || state.closed()) {
                rerun = false;
                return;
            }
            long now = state.nanoTime();
            long delay;
            if (failed && !rerun) {
                delay = BACKOFF.delayNanos(failedRounds);
            } else {
                // The next task due: at once, unless every pending one is a repeat waiting its turn.
                long soonest = Long.MAX_VALUE;
                for (Task task : pending) {
                    soonest = Math.min(soonest, Math.max(0, task.notBefore - now));
                }
                delay = soonest;
            }
            rerun = false;
            if (delay > 0) {
                scheduleRound(delay);
                return;
            }
            roundRunning = true;
        }
        submitRound();
    }

    /**
     * The client's last, bounded attempt: releases {@code grants} and everything pending in one
     * batch (per node, as the driver sends it), then the other removals, all on the I/O executor,
     * waiting at most {@code timeoutNanos}. What does not get through is left to the server's own
     * expiry (TTL) or to the end of the session, which closing the driver brings.
     */
    void closeBatch(List<Grant> grants, long timeoutNanos) {
        List<Task> tasks = new ArrayList<>();
        for (Grant grant : grants) {
            tasks.add(new Release(grant, NO_MOOT));
        }
        long now = state.nanoTime();
        synchronized (pending) {
            for (Task task : pending) {
                if (now - task.mootAt < 0) {
                    tasks.add(task);
                }
            }
            pending.clear();
        }
        if (tasks.isEmpty()) {
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            state.runtime().io().execute(() -> {
                try {
                    attempt(tasks, false);
                } finally {
                    done.complete(null);
                }
            });
            done.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException | java.util.concurrent.ExecutionException e) {
            EngineClient.LOG.log(System.Logger.Level.WARNING, "could not remove {0} lock(s) from {1} while closing: {2}",
                    tasks.size(), state.endpoint(), e.toString());
        } catch (java.util.concurrent.TimeoutException e) {
            EngineClient.LOG.log(System.Logger.Level.WARNING, "{0} lock(s) not confirmed removed from {1} within the"
                    + " operation timeout while closing; they end with their lease time or the session",
                    tasks.size(), state.endpoint());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void logFirstFailure(Task task, RuntimeException e) {
        EngineClient.LOG.log(System.Logger.Level.WARNING, "could not {0} on {1}; retrying until the server confirms it"
                + (task.mootAt == NO_MOOT ? "" : " or its lease time has passed there") + ": {2}",
                task.what(), state.endpoint(), e == null ? "the server did not confirm it" : e.toString());
    }

    private void logRecovered(Task task) {
        if (task.failures > 0) {
            EngineClient.LOG.log(System.Logger.Level.INFO, "{0} on {1}: done after {2} failed attempt(s)",
                    task.what(), state.endpoint(), task.failures);
        }
    }
}
