package io.distlock.redlock;

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

/** The whitebox hooks {@link RedlockTckTest} gives the TCK do what their Javadoc says. */
class TckHooksTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private final RedlockTckTest verification = new RedlockTckTest();

    @BeforeAll
    static void startServers() {
        RedlockTckTest.startServers();
    }

    @AfterAll
    static void stopServers() {
        RedlockTckTest.stopServers();
    }

    @Test
    void theProbeTellsHowLongAQuorumHoldsTheLock() {
        LockProbe probe = verification.lockProbe().orElseThrow();
        try (LockClient client = verification.newClient()) {
            assertThat(probe.heldFor("probed")).isEmpty();
            Lease lease = client.lock("probed").tryAcquire(LEASE).orElseThrow();
            assertThat(probe.heldFor("probed")).hasValueSatisfying(d -> assertThat(d)
                    .isGreaterThanOrEqualTo(lease.remaining()).isLessThanOrEqualTo(LEASE));
            // One node's copy shorter: the quorum holds it as long as the second-longest copy.
            RedlockTckTest.nodes().server(0).call("PEXPIRE", "distlock:{probed}", "5000");
            assertThat(probe.heldFor("probed")).hasValueSatisfying(d -> assertThat(d).isGreaterThan(Duration.ofSeconds(20)));
            RedlockTckTest.nodes().server(1).call("PEXPIRE", "distlock:{probed}", "3000");
            assertThat(probe.heldFor("probed")).hasValueSatisfying(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(5)));
            RedlockTckTest.nodes().server(0).call("DEL", "distlock:{probed}");
            RedlockTckTest.nodes().server(1).call("DEL", "distlock:{probed}");
            assertThat(probe.heldFor("probed")).as("held on one node of three").isEmpty();
            lease.release();
        }
    }

    @Test
    void aPartitionedClientIsCutOffByItsOwnLinksAndHealsWithThem() throws Exception {
        try (PartitionedClient partitioned = verification.clientPartition().orElseThrow().open();
             LockClient other = verification.newClient()) {
            assertThat(partitioned.links()).hasSize(3);
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
    void aRestartEmptiesOneNode() {
        try (LockClient client = verification.newClient()) {
            client.lock("restarted").tryAcquire(LEASE).orElseThrow();
            verification.serverRestart().orElseThrow().restartWithoutPersistence();
            long holding = 0;
            for (int i = 0; i < RedlockTckTest.nodes().size(); i++) {
                holding += (Long) RedlockTckTest.nodes().server(i).call("EXISTS", "distlock:{restarted}");
            }
            assertThat(holding).as("nodes still holding the lock").isEqualTo(2);
        }
    }
}
