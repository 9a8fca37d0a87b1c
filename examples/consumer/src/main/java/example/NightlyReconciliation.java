package example;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongPredicate;

/** The README's example: of every instance that wakes for the nightly job, one runs it. */
public final class NightlyReconciliation {

    private NightlyReconciliation() {
    }

    /**
     * @param client a connected client
     * @param store  writes the report if the token is not older than one it has seen; false if rejected
     * @return true if this instance ran the job and its write was accepted
     * @throws InterruptedException if interrupted while waiting for the lock
     */
    public static boolean runOnce(LockClient client, LongPredicate store) throws InterruptedException {
        DistributedLock lock = client.lock("nightly-reconciliation");
        Optional<Lease> granted = lock.tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(5));
        if (granted.isEmpty()) {
            return false;                                  // another instance is running it
        }
        try (Lease lease = granted.get().autoRenew()) {    // renewed every 10 s until closed
            long fence = lease.fencingToken().orElseThrow();
            return store.test(fence);                      // the store rejects tokens lower than one it saw
        }                                                  // close() releases: owner-only, idempotent
    }
}
