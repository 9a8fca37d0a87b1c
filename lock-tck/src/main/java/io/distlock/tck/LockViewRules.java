package io.distlock.tck;

import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.LeaseLostException;
import io.distlock.LeaseUnconfirmedException;
import io.distlock.LockClient;
import io.distlock.LockException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Group 7 of {@code lock-tck/SPEC.md}: the {@link java.util.concurrent.locks.Lock} view
 * ({@link io.distlock.DistributedLock#asLock}) on the backend under test. The view is the engine's,
 * the same for every backend, but what it reports rests on what the backend's client tells it: a
 * lease revoked on the server, a connection it cannot vouch for. What these rules catch is a view
 * that lies to the thread holding it: a re-entry granted on a lease another process now holds, a
 * loss reported for a lease the client only could not confirm. The view needs
 * {@link Feature#AUTO_RENEWAL}; a backend without it skips the group, naming the feature. A rule group
 * of {@link LockVerification} (see {@link RuleGroup}).
 */
interface LockViewRules extends RuleGroup {

    /**
     * Rule 7.1: once the holder's lease was revoked and another client holds the lock, the holding
     * thread cannot re-enter the view ({@code tryLock()} and {@code tryLock(time)} never return true,
     * the hold count does not grow), and its last {@code unlock()} reports the loss.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("7.1 the Lock view refuses a re-entry after its lease was revoked")
    default void required_7_1_noReEntryAfterRevocation() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.AUTO_RENEWAL);
        LeaseRevocation revocation = rig.requireRevocation();
        LockClient holder = rig.client();
        LeaseLock view = holder.lock(rig.name).asLock(rig.env.longLease());
        view.lock(); // this thread holds the view
        try {
            Lease lease = rig.track(view.lease().orElseThrow(() -> new AssertionError(rig.msg("the view's holder has no lease"))));
            CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
            long revoked = System.nanoTime();
            revocation.revoke(holder, rig.name);
            // The holder learns of it from its renewal (a third of the lease time) or from its backend.
            Duration learn = rig.env.longLease().dividedBy(3).plus(rig.env.defaultTimeout());
            Lease.LossReason reason;
            try {
                reason = lost.get(learn.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError(rig.msg("the view's lease did not learn of its revocation within "
                        + TestEnvironment.millis(learn) + " (its lost() never completed)"), e);
            } catch (ExecutionException e) {
                throw new AssertionError(rig.msg("the view's lost() completed exceptionally: " + e.getCause()), e.getCause());
            }
            Duration learnt = TestEnvironment.since(revoked);
            Lease other = rig.acquireWithin(rig.client(), rig.env.longLease(), rig.env.defaultTimeout(),
                    "another client could not acquire the lock after the view's lease was revoked");

            String first = expectNoReEntry(rig, view, "tryLock()", view::tryLock);
            long waitMillis = rig.env.scaled(Duration.ofMillis(200)).toMillis();
            String second = expectNoReEntry(rig, view, "tryLock(" + waitMillis + " ms)", () -> view.tryLock(waitMillis,
                    TimeUnit.MILLISECONDS));

            try {
                view.unlock();
                fail(rig.msg("the last unlock() of a view whose lease was revoked (lost(): " + reason + ") returned normally: it"
                        + " must report the loss with LeaseLostException"));
            } catch (LeaseLostException expected) {
                // the loss, reported
            }
            assertFalse(view.isHeldByCurrentThread(), rig.msg("the view is still held after its last unlock()"));
            assertTrue(other.isValid(), rig.msg("the other client's lease turned invalid while the revoked holder used the view"));
            rig.notes.add("7.1: lost (" + reason + ") " + TestEnvironment.millis(learnt) + " after the revocation; then tryLock() "
                    + first + ", tryLock(" + waitMillis + " ms) " + second + "; the last unlock() threw LeaseLostException");
        } finally {
            while (view.isHeldByCurrentThread()) {
                try {
                    view.unlock();
                } catch (LockException alreadyReported) {
                    // the rule has failed already, or reported the loss
                }
            }
        }
    }

    /**
     * Rule 7.2: the holder's {@code unlock()} while its client is cut off, for less than its session,
     * reports no loss (the lease's fate is unknown, or it is still valid), and the release it made is
     * carried out once the link heals.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("7.2 the Lock view's unlock during a short partition reports no loss, and the release is carried out")
    default void required_7_2_unlockDuringAShortPartitionIsNoLoss() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.AUTO_RENEWAL);
        ClientPartition partition = rig.requirePartition();
        try (PartitionedClient a = partition.open()) {
            LeaseLock view = a.client().lock(rig.name).asLock(rig.env.longLease());
            view.lock();
            Lease lease = rig.track(view.lease().orElseThrow(() -> new AssertionError(rig.msg("the view's holder has no lease"))));
            a.dropAll();
            long cut = System.nanoTime();
            // The cut is the fault this rule models: held until the client noticed it, if it does (a
            // session store suspends its leases), for a tolerance at most — far less than a session.
            rig.env.awaitUntil(rig.msg("waiting for the cut to be noticed"), rig.env.defaultTimeout(),
                    () -> !lease.isValid() || TestEnvironment.since(cut).compareTo(rig.env.tolerance()) >= 0);
            boolean vouched = lease.isValid();
            long start = System.nanoTime();
            Throwable thrown = null;
            try {
                view.unlock();
            } catch (RuntimeException e) {
                thrown = e;
            }
            Duration took = TestEnvironment.since(start);
            Duration cutFor = Duration.ofNanos(start - cut);
            if (thrown instanceof LeaseLostException) {
                fail(rig.msg("unlock() " + TestEnvironment.millis(cutFor) + " into a partition shorter than the session"
                        + (partition.sessionTimeout().isZero() ? "" : " (" + TestEnvironment.millis(partition.sessionTimeout()) + ")")
                        + " threw LeaseLostException(" + ((LeaseLostException) thrown).reason() + "), although the lease was"
                        + " never lost (its lost() did not complete): a client that could not tell reported a loss; its"
                        + " fate is unknown (LeaseUnconfirmedException)"));
            }
            if (thrown != null && !(thrown instanceof LeaseUnconfirmedException)) {
                throw new AssertionError(rig.msg("unlock() during a partition failed with " + thrown), thrown);
            }
            assertFalse(view.isHeldByCurrentThread(), rig.msg("the view is still held after unlock() during the partition"));
            long healed = System.nanoTime();
            a.healAll();
            Lease next = rig.acquireWithin(rig.client(), rig.env.shortLease(), rig.afterHeal(partition).plus(rig.env.tolerance()),
                    "after the partition healed nobody could acquire: the release made by unlock() during the partition was"
                            + " not carried out (the view's lease was " + TestEnvironment.millis(rig.env.longLease()) + ")");
            rig.notes.add("7.2: unlock() " + TestEnvironment.millis(cutFor) + " into the cut, the lease "
                    + (vouched ? "still valid" : "invalid (unvouched)") + ", " + (thrown == null ? "returned"
                    : "threw LeaseUnconfirmedException") + " after " + TestEnvironment.millis(took) + "; another client acquired "
                    + TestEnvironment.millis(TestEnvironment.since(healed)) + " after the heal");
            next.release();
        }
    }

    /**
     * Tries a re-entry on the holding thread: it must not return true, nor grow the hold count.
     *
     * @return what it did, for the notes
     */
    private static String expectNoReEntry(Rig rig, LeaseLock view, String what, Rig.Call<Boolean> reEntry) throws InterruptedException {
        int holds = view.getHoldCount();
        String outcome;
        try {
            boolean entered = reEntry.call();
            assertFalse(entered, rig.msg(what + " returned true on the view whose lease was revoked while another client holds"
                    + " the lock (hold count " + view.getHoldCount() + "): the holding thread re-entered a lost lease"));
            outcome = "returned false";
        } catch (LockException refused) {
            outcome = "threw " + refused.getClass().getSimpleName();
        }
        assertTrue(view.getHoldCount() == holds, rig.msg(what + " on the view whose lease was revoked changed the hold count from "
                + holds + " to " + view.getHoldCount()));
        return outcome;
    }
}
