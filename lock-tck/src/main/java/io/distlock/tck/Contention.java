package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * A contention run (rules 1.1, 1.4, 1.7): independent clients, each on its own thread, race for one
 * lock round after round, write to a {@link FencedResource} while they hold it, and record
 * everything in a {@link History}.
 *
 * <p>Even rounds are single attempts, odd rounds wait up to
 * {@link TestEnvironment#contentionWait()}. Each client leaves up to {@code expiriesPerClient} of
 * its leases (its 10th, 35th, ...) to expire instead of releasing them, so that hand-offs by expiry
 * are in the history too. An attempt that gets no answer ({@link BackendUnavailableException}) is
 * counted, not failed; a run where more than a fifth of the attempts got none proves nothing and fails.
 * Before the run, each contender in this JVM makes one unrecorded attempt of its own until it is
 * answered, so that the run starts warm.
 * One contender may be a client in a separate process ({@link ChildClient}), so that a fencing token
 * that increases only within one JVM shows in the history.
 */
final class Contention {

    /**
     * One contender's way to the lock: a client in this JVM, or one in a separate process.
     */
    @FunctionalInterface
    private interface Seat {
        /**
         * One attempt: a single one ({@code maxWait} null) or a waiting one.
         *
         * @return the grant, or empty for contention
         * @throws BackendUnavailableException if the attempt got no answer
         */
        Optional<Held> attempt(Duration lease, Duration maxWait) throws InterruptedException;
    }

    /**
     * A grant, with the times the history records (its valid interval, see {@link History}) and how its
     * holder lets go of it or leaves it to expire.
     */
    private record Held(long atNanos, long validUntilNanos, OptionalLong token, Runnable release, Runnable leaveToExpire) {
    }

    /**
     * How one contender in this JVM takes what it contends for: a lock, a side of a read-write lock, a
     * semaphore's permit.
     */
    @FunctionalInterface
    interface Acquirer {
        /**
         * @param lease   the lease time
         * @param maxWait null for a single attempt, else how long to wait
         * @return the lease, or empty for contention
         * @throws BackendUnavailableException if the attempt got no answer
         * @throws InterruptedException        if interrupted
         */
        Optional<Lease> acquire(Duration lease, Duration maxWait) throws InterruptedException;
    }

    /**
     * One contender of a run on a primitive other than a lock (group 9).
     *
     * @param recordedAs the name its leases are recorded under in the history (a read-write lock's
     *                   readers and writers under two names, so that the checks tell them apart)
     * @param acquirer   how it takes its hold
     * @param writes     whether it writes to the run's fenced resource while it holds (a writer; not a
     *                   reader, nor a permit holder, who hold beside each other)
     */
    record Contender(String recordedAs, Acquirer acquirer, boolean writes) {
    }

    private Contention() {
    }

    /**
     * A contention run of {@link TestEnvironment#contentionClients()} clients in this JVM, each
     * contending as {@code contenders} says for its index and client.
     */
    static History run(Rig rig, FencedResource resource, int expiriesPerClient,
                       BiFunction<Integer, LockClient, Contender> contenders) throws InterruptedException {
        return run(rig, resource, expiriesPerClient, null, contenders);
    }

    static History run(Rig rig, FencedResource resource, int expiriesPerClient) throws InterruptedException {
        return run(rig, resource, expiriesPerClient, (ChildClient) null);
    }

    /**
     * A contention run in which one of the contenders, if {@code separate} is given, is a client in a
     * separate process (in place of the last client of this JVM); this JVM writes to {@code resource}
     * with its token while it holds.
     */
    static History run(Rig rig, FencedResource resource, int expiriesPerClient, ChildClient separate)
            throws InterruptedException {
        return run(rig, resource, expiriesPerClient, separate, (i, client) -> {
            DistributedLock lock = client.lock(rig.name);
            return new Contender(rig.name, (lease, maxWait) -> maxWait == null ? lock.tryAcquire(lease)
                    : lock.tryAcquire(lease, maxWait), true);
        });
    }

    private static History run(Rig rig, FencedResource resource, int expiriesPerClient, ChildClient separate,
                               BiFunction<Integer, LockClient, Contender> contenders)
            throws InterruptedException {
        TestEnvironment env = rig.env;
        History history = new History();
        AtomicLong attempted = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<Rig.Waiter<Integer>> running = new ArrayList<>();
        for (int i = 0; i < env.contentionClients(); i++) {
            boolean elsewhere = separate != null && i == env.contentionClients() - 1;
            String client = elsewhere ? separate.label() : "client-" + i;
            Contender contender = elsewhere ? new Contender(rig.name, null, true) : contenders.apply(i, rig.client());
            if (!elsewhere) {
                warmUp(rig, client, contender.acquirer());
            }
            Seat seat = elsewhere ? separateSeat(rig, separate) : seat(rig, contender.acquirer());
            running.add(rig.start(client, () -> {
                start.await();
                return contend(rig, seat, client, contender, history, resource, expiriesPerClient, attempted);
            }));
        }
        if (separate != null) {
            separate.connect(); // its JVM started while the clients here connected
        }
        start.countDown();
        long deadline = System.nanoTime() + env.contentionTimeout().toNanos();
        for (Rig.Waiter<Integer> contender : running) {
            rig.outcome(contender, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        rig.hooks.recorded(rig.rule, history);
        long attempts = attempted.get();
        if (history.unknownOutcomes() * 5 > attempts) {
            throw new AssertionError(rig.msg("contention run proves nothing: " + history.unknownOutcomes() + " of " + attempts
                    + " attempts got no answer (BackendUnavailableException); is the server overloaded, or the node timeout too short?"));
        }
        if (history.distinctHolders() < 2) {
            throw new AssertionError(rig.msg("contention run was vacuous: " + history.acquisitions() + " grants to "
                    + history.distinctHolders() + " client(s) out of " + env.contentionClients()));
        }
        return history;
    }

    /**
     * One uncontended attempt by a contender before the run starts, repeated until it gets an answer
     * (a grant, released at once, or "busy"), so that the run measures contention and not a cold start:
     * the client's first connects, its scripts loaded, the code paths compiled. Without it, a quorum
     * backend with a short per-node timeout (Redlock's 50 ms) saw its nodes time out during the first
     * concurrent attempts; a node that times out is skipped until it answers again, so every contender
     * then burned rounds on immediate "no answer"s, and the run was reported as proving nothing.
     * Nothing here is recorded: the contenders warm up one after another, never at once.
     */
    private static void warmUp(Rig rig, String client, Acquirer acquirer) {
        rig.env.awaitUntil(rig.msg(client + " to get an answer to one attempt before the contention run"), () -> {
            Optional<Lease> lease;
            try {
                lease = acquirer.acquire(rig.env.contentionLease(), null);
            } catch (BackendUnavailableException noAnswerYet) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(rig.msg("interrupted while warming up " + client), e);
            }
            lease.ifPresent(granted -> {
                rig.track(granted); // if the release below gets no answer, released again after the rule
                granted.release();
            });
            return true;
        });
    }

    private static Seat seat(Rig rig, Acquirer acquirer) {
        return (lease, maxWait) -> acquirer.acquire(lease, maxWait).map(granted -> {
            long now = System.nanoTime();
            return new Held(now, now + granted.remaining().toNanos(), granted.fencingToken(), granted::release,
                    () -> rig.track(granted)); // released (a no-op by then) after the rule
        });
    }

    /** The child's grants start when their answer arrived here and end at the send time + the child's remaining(). */
    private static Seat separateSeat(Rig rig, ChildClient child) {
        return (lease, maxWait) -> child.tryAcquire(rig.name, lease, maxWait).map(grant -> new Held(grant.receivedAtNanos(),
                grant.validUntilNanos(), grant.token(), () -> child.release(grant), () -> { })); // the child's quit releases it
    }

    private static int contend(Rig rig, Seat seat, String client, Contender contender, History history,
                               FencedResource resource, int expiriesPerClient, AtomicLong attempted)
            throws InterruptedException {
        TestEnvironment env = rig.env;
        int granted = 0;
        int expired = 0;
        long stopAt = System.nanoTime() + env.contentionDuration().map(Duration::toNanos).orElse(0L);
        for (int round = 0; round < env.contentionRounds(); round++) {
            if (env.contentionDuration().isPresent() && round > 0 && System.nanoTime() - stopAt > 0) {
                break;
            }
            Optional<Held> attempt;
            boolean waits = round % 2 == 1;
            attempted.incrementAndGet();
            long attemptedAt = System.nanoTime();
            try {
                attempt = seat.attempt(env.contentionLease(), waits ? env.contentionWait() : null);
            } catch (BackendUnavailableException noAnswer) {
                // An honest "could not tell" (a quorum node timed out under load): no lease, no claim.
                history.unknownOutcome();
                continue;
            }
            if (waits) {
                history.waited(new History.Wait(client, contender.recordedAs(), attemptedAt, System.nanoTime(), attempt.isPresent()));
            }
            if (attempt.isEmpty()) {
                continue;
            }
            Held held = attempt.get();
            long id = history.acquired(client, contender.recordedAs(), held.atNanos(), held.validUntilNanos(), held.token());
            granted++;
            if (contender.writes()) {
                boolean accepted = resource.write("lease#" + id, held.token());
                history.write(id, System.nanoTime(), accepted);
            }
            if (expired < expiriesPerClient && granted % 25 == 10) {
                expired++;
                held.leaveToExpire().run();
                continue;
            }
            history.releasing(id);
            held.release().run();
        }
        return granted;
    }
}
