package example;

import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockClient;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The README's read-write lock: a price cache shared by every instance (in a store of its own), read
 * all the time and rebuilt now and then. Readers read at once; a rebuild waits for the readers inside,
 * and readers that come after it wait for the rebuild (write preference), so it is never starved.
 */
public final class PriceCache {

    /** The shared cache: a store every instance reads, with the writer's fencing token on a rebuild. */
    public interface SharedPrices {
        /**
         * @param sku the article
         * @return its price
         */
        String get(String sku);

        /**
         * @param prices the new prices, replacing every old one
         * @param fence  the rebuild's fencing token, where the backend has one: the store refuses a lower one
         */
        void replaceAll(Map<String, String> prices, OptionalLong fence);
    }

    private PriceCache() {
    }

    /**
     * Reads a price, beside any other reader, never during a rebuild.
     *
     * @throws IllegalStateException if a rebuild kept the cache for 2 s
     * @throws InterruptedException  if interrupted while waiting (nothing is left held)
     */
    public static String price(LockClient client, SharedPrices cache, String sku) throws InterruptedException {
        DistributedReadWriteLock prices = client.readWriteLock("price-cache");
        try (Lease read = prices.readLock().tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(2))
                .orElseThrow(() -> new IllegalStateException("the price cache is being rebuilt; try again"))) {
            return cache.get(sku);                                   // other readers are inside too
        }
    }

    /**
     * Rebuilds the cache alone: waits for the readers inside; readers that arrive meanwhile wait for it.
     *
     * @throws InterruptedException if interrupted while waiting (nothing is left held)
     */
    public static void rebuild(LockClient client, SharedPrices cache, Map<String, String> fresh) throws InterruptedException {
        DistributedReadWriteLock prices = client.readWriteLock("price-cache");
        try (Lease write = prices.writeLock().acquire(Duration.ofSeconds(30))) {  // no new reader gets in now
            cache.replaceAll(fresh, write.fencingToken());           // empty on redis-wait://: no fencing
        }
    }
}
