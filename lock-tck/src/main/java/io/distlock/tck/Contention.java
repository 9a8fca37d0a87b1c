package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

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
 */
final class Contention {

    private Contention() {
    }

    static History run(Rig rig, FencedResource resource, int expiriesPerClient) throws InterruptedException {
        TestEnvironment env = rig.env;
        History history = new History();
        CountDownLatch start = new CountDownLatch(1);
        List<Rig.Waiter<Integer>> contenders = new ArrayList<>();
        for (int i = 0; i < env.contentionClients(); i++) {
            String client = "client-" + i;
            DistributedLock lock = rig.client().lock(rig.name);
            contenders.add(rig.start(client, () -> {
                start.await();
                return contend(rig, lock, client, history, resource, expiriesPerClient);
            }));
        }
        start.countDown();
        long deadline = System.nanoTime() + env.contentionTimeout().toNanos();
        for (Rig.Waiter<Integer> contender : contenders) {
            rig.outcome(contender, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        int attempts = env.contentionClients() * env.contentionRounds();
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

    private static int contend(Rig rig, DistributedLock lock, String client, History history,
                               FencedResource resource, int expiriesPerClient) throws InterruptedException {
        TestEnvironment env = rig.env;
        int granted = 0;
        int expired = 0;
        for (int round = 0; round < env.contentionRounds(); round++) {
            Optional<Lease> attempt;
            try {
                attempt = round % 2 == 0
                        ? lock.tryAcquire(env.contentionLease())
                        : lock.tryAcquire(env.contentionLease(), env.contentionWait());
            } catch (BackendUnavailableException noAnswer) {
                // An honest "could not tell" (a quorum node timed out under load): no lease, no claim.
                history.unknownOutcome();
                continue;
            }
            if (attempt.isEmpty()) {
                continue;
            }
            Lease lease = attempt.get();
            long id = history.acquired(client, lease);
            granted++;
            boolean accepted = resource.write("lease#" + id, lease.fencingToken());
            history.write(id, System.nanoTime(), accepted);
            if (expired < expiriesPerClient && granted % 25 == 10) {
                expired++;
                rig.track(lease); // left to expire; released (a no-op by then) after the rule
                continue;
            }
            history.releasing(id);
            lease.release();
        }
        return granted;
    }
}
