package example;

import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LockClient;

import java.time.Duration;
import java.util.Optional;

/**
 * The README's second example: work that must happen, one caller at a time — taking one unit of
 * stock for an order. Unlike the run-once job, every caller's work must be done, so a caller waits
 * its turn (bounded), releases as soon as it is done, and writes with its fencing token.
 */
public final class StockUpdate {

    /** The stock table: a fenced write, as {@code UPDATE stock SET n = n - 1, last_token = ? WHERE sku = ? AND last_token < ?}. */
    public interface FencedStock {
        /**
         * @param sku   the article
         * @param fence the writer's fencing token
         * @return false if rejected: a writer with a higher token has written since
         */
        boolean takeOne(String sku, long fence);
    }

    private StockUpdate() {
    }

    /**
     * Takes one unit of stock, waiting up to 5 s for another holder of the article's lock.
     *
     * @return true if taken; false if the store rejected the write (this holder's lease had ended)
     * @throws IllegalStateException if the backend is only an efficiency lock, or the lock stayed busy
     * @throws InterruptedException  if interrupted while waiting (nothing is left held)
     */
    public static boolean takeOne(LockClient client, String sku, FencedStock stock) throws InterruptedException {
        if (client.backend().guarantee() != Guarantee.CORRECTNESS) {    // redis://, redlock://: efficiency only
            throw new IllegalStateException(client.backend().scheme() + ":// can grant two holders at once (and"
                    + " redlock:// has no fencing token): stock needs a CORRECTNESS backend such as zookeeper://");
        }
        Optional<Lease> granted = client.lock("stock-" + sku)
                .tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(5));     // wait up to 5 s for our turn
        if (granted.isEmpty()) {
            throw new IllegalStateException("stock of " + sku + " stayed busy for 5 s; try again later");
        }
        try (Lease lease = granted.get().autoRenew()) {                  // renewed every 10 s until closed
            return stock.takeOne(sku, lease.fencingToken().getAsLong()); // present: CORRECTNESS backends fence
        }                                                                // close() releases: owner-only, idempotent
    }
}
