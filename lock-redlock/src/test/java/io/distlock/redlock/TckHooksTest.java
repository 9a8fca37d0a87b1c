package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.tck.fixtures.HookChecks;

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
        HookChecks.checkProbe(verification.lockProbe().orElseThrow(), verification::newClient);
        try (LockClient client = verification.newClient()) {
            client.lock("probed").tryAcquire(LEASE).orElseThrow();
            // One node's copy shorter: the quorum holds it as long as the second-longest copy.
            RedlockTckTest.nodes().server(0).call("PEXPIRE", "distlock:{probed}", "5000");
            assertThat(verification.lockProbe().orElseThrow().heldFor("probed"))
                    .hasValueSatisfying(d -> assertThat(d).isGreaterThan(Duration.ofSeconds(20)));
            RedlockTckTest.nodes().server(1).call("PEXPIRE", "distlock:{probed}", "3000");
            assertThat(verification.lockProbe().orElseThrow().heldFor("probed"))
                    .hasValueSatisfying(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(5)));
            RedlockTckTest.nodes().server(0).call("DEL", "distlock:{probed}");
            RedlockTckTest.nodes().server(1).call("DEL", "distlock:{probed}");
            assertThat(verification.lockProbe().orElseThrow().heldFor("probed")).as("held on one node of three").isEmpty();
        }
    }

    @Test
    void aPartitionedClientIsCutOffByItsOwnLinksAndHealsWithThem() throws InterruptedException {
        HookChecks.checkPartition(verification.clientPartition().orElseThrow(), verification::newClient, 3);
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
