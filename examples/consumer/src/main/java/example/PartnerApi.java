package example;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockClient;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The README's semaphore: a partner's API takes at most three calls at once from all of us, however
 * many instances of the service run. Each call holds one of three permits of a semaphore for its
 * duration; a caller that finds all three taken waits a little, then backs off.
 */
public final class PartnerApi {

    private PartnerApi() {
    }

    /**
     * Calls the partner with at most three calls in flight across every instance.
     *
     * @return the call's answer, or empty if three calls stayed in flight for 2 s (back off, retry later)
     * @throws InterruptedException if interrupted while waiting for a permit (nothing is left held)
     */
    public static <T> Optional<T> call(LockClient client, Supplier<T> partnerCall) throws InterruptedException {
        DistributedSemaphore partner = client.semaphore("partner-api", 3);   // every instance says 3: the count is kept
        Optional<Lease> permit = partner.tryAcquire(Duration.ofSeconds(30),  // a dead caller's permit is back in 30 s
                Duration.ofSeconds(2));                                      // wait up to 2 s for a free one
        if (permit.isEmpty()) {
            return Optional.empty();                                         // three calls in flight: back off
        }
        try (Lease held = permit.get()) {                                    // released when the call returns
            return Optional.of(partnerCall.get());
        }
    }
}
