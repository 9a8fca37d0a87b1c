package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.tck.LockProbe;
import io.distlock.tck.PartitionedClient;

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
        LockProbe probe = verification.lockProbe().orElseThrow();
        try (LockClient client = verification.newClient()) {
            assertThat(probe.heldFor("probed")).isEmpty();
            Lease lease = client.lock("probed").tryAcquire(LEASE).orElseThrow();
            assertThat(probe.heldFor("probed")).hasValueSatisfying(d -> assertThat(d)
                    .isGreaterThanOrEqualTo(lease.remaining()).isLessThanOrEqualTo(LEASE));
            lease.release();
            assertThat(probe.heldFor("probed")).isEmpty();
        }
    }

    @Test
    void aPartitionedClientIsCutOffByItsOwnLinkAndHealsWithIt() throws Exception {
        try (PartitionedClient partitioned = verification.clientPartition().orElseThrow().open();
             LockClient other = verification.newClient()) {
            assertThat(partitioned.links()).hasSize(1);
            partitioned.client().lock("partitioned").tryAcquire(LEASE).orElseThrow().release();
            partitioned.blackholeAll();
            assertThatThrownBy(() -> partitioned.client().lock("partitioned").tryAcquire(LEASE))
                    .isInstanceOf(BackendUnavailableException.class);
            assertThat(other.lock("elsewhere").tryAcquire(LEASE)).as("other clients are not cut off").isPresent();
            partitioned.healAll();
            assertThat(partitioned.client().lock("partitioned").tryAcquire(LEASE, Duration.ofSeconds(5))).isPresent();
        }
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
