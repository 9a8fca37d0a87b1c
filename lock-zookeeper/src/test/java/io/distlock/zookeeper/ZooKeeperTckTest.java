package io.distlock.zookeeper;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockVerification;
import io.distlock.tck.NodeFaults;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.Lease;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TCK against a real 3-node ZooKeeper ensemble (child JVMs, each behind a fault proxy) on free
 * loopback ports. Node faults stop the current leader (the worst minority), restart a member
 * without its data, slow or partition a member's client traffic and freeze a member; the
 * revocation hook expires the holder's session on the server.
 */
class ZooKeeperTckTest extends LockVerification {

    private static ZkServers ensemble;

    @BeforeAll
    static void startEnsemble() {
        ensemble = ZkServers.ensemble();
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
    }

    /**
     * Clients with a short session ({@link ZkServers#SESSION_TIMEOUT_MILLIS}), so that one behind a
     * partitioned or frozen member moves to another within {@link ZkServers#FAILOVER}; their
     * connect and operation timeouts outlast that move (a member that hangs a connect costs a
     * third of the session timeout, plus a reconnect back-off of up to 1 s).
     */
    @Override
    protected LockClient newClient() {
        Duration rideThrough = ZkServers.FAILOVER.plusSeconds(2);
        LockOptions options = LockOptions.builder().connectTimeout(rideThrough).operationTimeout(rideThrough).build();
        return ensemble.opened(Locks.connect(URI.create(ensemble.uri("/tck?sessionTimeout=" + ZkServers.SESSION_TIMEOUT_MILLIS)), options));
    }

    @Override
    protected List<String> malformedUris() {
        String hosts = ensemble.connectString();
        return List.of(
                "zookeeper://alice:" + SECRET + "@",
                "zookeeper://alice:" + SECRET + "@127.0.0.1:notaport",
                "zookeeper://alice:" + SECRET + "@127.0.0.1:70000",
                "zookeeper://alice:" + SECRET + "@127.0.0.1:2181,,127.0.0.1:2182",
                "zookeeper://alice:" + SECRET + "@" + hosts + "/chroot/",
                "zookeeper://alice:" + SECRET + "@" + hosts + "/a//b",
                "zookeeper://alice:" + SECRET + "@" + hosts + "/a/../b",
                "zookeeper://alice:" + SECRET + "@" + hosts + "?noSuchOption=" + SECRET,
                "zookeeper://alice:" + SECRET + "@" + hosts + "?sessionTimeout=1",
                "zookeeper://" + SECRET + "@" + hosts);
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("zookeeper://alice:" + SECRET + "@127.0.0.1:" + FreePorts.find() + ",127.0.0.1:" + FreePorts.find());
    }

    @Override
    protected Optional<NodeFaults> nodeFaults() {
        return Optional.of(ensemble.faults());
    }

    /**
     * The leader is killed while a lease is held: the ensemble elects another, the holder's session
     * survives (its client reconnects to a follower), and nobody else is granted the lock meanwhile.
     */
    @Test
    @DisplayName("zookeeper: the leader killed mid-hold, the holder's lease survives and no second lease is granted")
    void leaderKilledMidHoldGrantsNoSecondLease() throws InterruptedException {
        try (LockClient a = newClient(); LockClient b = newClient()) {
            Lease held = a.lock("leader-kill").tryAcquire(Duration.ofSeconds(20)).orElseThrow();
            long token = held.fencingToken().orElseThrow();
            NodeFaults.Fault leaderDown = ensemble.stopLeader();
            try {
                Optional<Lease> second = b.lock("leader-kill").tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(3));
                assertThat(second).as("a second lease while the first is held and the leader is down").isEmpty();
            } catch (io.distlock.BackendUnavailableException e) {
                // B could not reach a quorum during the election: also no second grant
            } finally {
                leaderDown.close();
            }
            Awaitility.await().atMost(Duration.ofSeconds(15)).until(held::isValid);
            assertThat(b.lock("leader-kill").tryAcquire(Duration.ofSeconds(5))).as("A still holds after the election").isEmpty();
            held.release();
            Lease next = b.lock("leader-kill").tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5)).orElseThrow();
            assertThat(next.fencingToken().orElseThrow()).isGreaterThan(token);
            next.release();
        }
    }

    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> ensemble.expireSession(holder));
    }
}
