package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.tck.fixtures.HookChecks;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The whitebox hooks {@link RedisSingleTckTest} gives the TCK do what their Javadoc says. */
class TckHooksTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private final RedisSingleTckTest verification = new RedisSingleTckTest();

    @BeforeAll
    static void startServer() {
        RedisSingleTckTest.startServer();
    }

    @AfterAll
    static void stopServer() {
        RedisSingleTckTest.stopServer();
    }

    @Test
    void theProbeTellsHowLongTheServerHoldsTheLock() {
        HookChecks.checkProbe(verification.lockProbe().orElseThrow(), verification::newClient);
    }

    @Test
    void aPartitionedClientIsCutOffByItsOwnLinkAndHealsWithIt() throws InterruptedException {
        HookChecks.checkPartition(verification.clientPartition().orElseThrow(), verification::newClient, 1);
    }

    @Test
    void aRestartComesBackEmpty() {
        try (LockClient client = verification.newClient()) {
            long fence = client.lock("restarted").tryAcquire(LEASE).orElseThrow().fencingToken().getAsLong();
            client.lock("restarted-too").tryAcquire(LEASE).orElseThrow();
            verification.serverRestart().orElseThrow().restartWithoutPersistence();
            assertThat(verification.lockProbe().orElseThrow().heldFor("restarted")).isEmpty();
            try (LockClient after = verification.newClient()) {
                assertThat(after.lock("restarted").tryAcquire(LEASE).orElseThrow().fencingToken().getAsLong())
                        .as("the fence counter started over").isLessThanOrEqualTo(fence);
            }
        }
    }
}
