package example;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NightlyReconciliationTest {

    @Test
    void theBomSuppliesEveryVersionAndTheExampleRuns() throws InterruptedException {
        AtomicLong highestToken = new AtomicLong();
        try (RedisServer redis = RedisServer.start();
             LockClient first = Locks.connect(redis.uri());
             LockClient second = Locks.connect(redis.uri())) {
            assertTrue(NightlyReconciliation.runOnce(first, token -> highestToken.getAndAccumulate(token, Math::max) < token));
            assertTrue(NightlyReconciliation.runOnce(second, token -> highestToken.getAndAccumulate(token, Math::max) < token));
            assertEquals(2, highestToken.get(), "each grant carries the next fencing token");
        }
    }
}
