package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.NodeFaults;
import io.distlock.tck.PartitionedClient;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.SessionEnd;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.HookChecks;
import io.distlock.tck.fixtures.MalformedUris;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TCK against a real 3-node ZooKeeper ensemble (child JVMs, each behind a fault proxy) on free
 * loopback ports. Node faults stop the current leader (the worst minority), restart a member
 * without its data, slow or partition a member's client traffic and freeze a member; a
 * partitioned client has a fault proxy of its own in front of every member; the revocation hook
 * deletes the holder's node on the server (an operator's act the holder is not told of); the
 * lock probe looks for the lock's first node.
 */
@Order(1) // the longest class: first, so that the small ones run beside it
class ZooKeeperTckTest extends LockVerification {

    private static final String CHROOT = "/tck";
    private static final String URI_PATH = CHROOT + "?sessionTimeout=" + ZkServers.SESSION_TIMEOUT_MILLIS;
    /**
     * The connect and operation timeouts of the TCK's clients: they outlast a move to another
     * member ({@link ZkServers#FAILOVER}; a member that hangs a connect costs a third of the
     * session timeout, plus a reconnect back-off of up to 1 s).
     */
    private static final Duration RIDE_THROUGH = ZkServers.FAILOVER.plusSeconds(2);
    /**
     * How long a client cut off from every member takes to be connected again once its links
     * heal: ZooKeeper waits a random 0–1 s before each connect attempt, and 1 s more each time it
     * has tried every host; then a handshake.
     */
    private static final Duration RECONNECT = Duration.ofMillis(2_500);

    private static ZkServers ensemble;
    private static ZkOperator operator;

    @BeforeAll
    static void startEnsemble() {
        ensemble = ZkServers.ensemble();
        operator = new ZkOperator(ensemble.connectString());
    }

    @AfterAll
    static void stopEnsemble() {
        operator.close();
        ensemble.close();
    }

    private static LockOptions options() {
        return LockOptions.builder().connectTimeout(RIDE_THROUGH).operationTimeout(RIDE_THROUGH).build();
    }

    /**
     * Clients with a short session ({@link ZkServers#SESSION_TIMEOUT_MILLIS}), so that one behind a
     * partitioned or frozen member moves to another within {@link ZkServers#FAILOVER}; their
     * connect and operation timeouts are {@link #RIDE_THROUGH}.
     */
    @Override
    protected LockClient newClient() {
        return ensemble.opened(Locks.connect(URI.create(ensemble.uri(URI_PATH)), options()));
    }

    /** Rules 1.4, 1.7 and 4.15: a client in a child JVM connects as {@link #newClient()} does. */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(URI.create(ensemble.uri(URI_PATH)), options()));
    }

    /**
     * The operation timeout of the partitioned clients: their own links are what is cut, so it need
     * not outlast a move to another member as {@link #RIDE_THROUGH} does; and it must fit in their
     * session ({@link ZkServers#SESSION_TIMEOUT_MILLIS}) with room to spare, or a silence past one
     * request's timeout (rule 4.21) would end the session it is meant to leave alive.
     */
    static final Duration PARTITIONED_OPERATION_TIMEOUT = Duration.ofSeconds(2);

    /**
     * Each partitioned client reaches every member through a fault proxy of its own (the members'
     * own client ports behind them, not the shared proxies of the node faults), with the same
     * session and connect timeout as {@link #newClient()}, and an operation timeout of
     * {@link #PARTITIONED_OPERATION_TIMEOUT}.
     */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        LockOptions options = options().toBuilder().operationTimeout(PARTITIONED_OPERATION_TIMEOUT).build();
        return Optional.of(ClientPartition.of(() -> FaultProxy.partitionedClient(ensemble.serverEndpoints(),
                proxies -> Locks.connect(URI.create("zookeeper://" + proxies.stream().map(FaultProxy::endpoint)
                        .collect(Collectors.joining(",")) + URI_PATH), options)), PARTITIONED_OPERATION_TIMEOUT, RECONNECT,
                Duration.ofMillis(ZkServers.SESSION_TIMEOUT_MILLIS)));
    }

    /** A lock node stays until it is deleted: while the lock's first node exists, it is held. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(lockName -> operator.inLine(CHROOT, lockName).isEmpty() ? Optional.empty()
                : Optional.of(LockProbe.UNTIL_RELEASED));
    }

    /** One member (not the leader, if it can be helped) killed, its data wiped, and started again. */
    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(ensemble::restartOneWithoutPersistence);
    }

    @Override
    protected List<String> malformedUris() {
        return MalformedUris.serverList("zookeeper", SECRET, ensemble.connectString(), List.of("/chroot/", "/a//b", "/a/../b"), List.of("sessionTimeout=1"));
    }

    /** Rule 5.8: the silent endpoint first in the connect string, the ensemble's members after it. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.of("zookeeper://" + silentEndpoint + "," + ensemble.connectString() + URI_PATH);
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

    /**
     * The hooks the TCK's partition, probe and revocation rules rely on do what they say: a
     * partitioned client's links cut it off from every member and, healed, let it back within
     * {@link #RECONNECT}; the probe sees the lock held exactly while it is; a revoked holder still
     * believes its lease valid, and its extension reports it lost without taking the lock back.
     */
    @Test
    @DisplayName("zookeeper: the partition, probe and revocation hooks do what they tell the TCK")
    void theHooksDoWhatTheyTellTheTck() throws InterruptedException {
        ClientPartition partition = clientPartition().orElseThrow();
        LockProbe probe = lockProbe().orElseThrow();
        String name = "hooks-" + UUID.randomUUID();
        try (PartitionedClient cut = partition.open(); LockClient other = newClient()) {
            Lease lease = HookChecks.holdBehindLinks(cut, probe, 3, name);

            cut.dropAll();
            Awaitility.await().atMost(environment().defaultTimeout()).until(() -> !lease.isValid());
            long healed = System.nanoTime();
            cut.healAll();
            Awaitility.await().atMost(RECONNECT.plus(environment().tolerance())).until(lease::isValid);
            System.out.printf("[ZooKeeperTckTest] connected again %d ms after the heal%n", (System.nanoTime() - healed) / 1_000_000);

            HookChecks.checkRevocation(leaseRevocation().orElseThrow(), probe, cut.client(), lease, other, name);
        }
    }

    /**
     * The holder's node is deleted on the server, as an operator would: its session lives on, so
     * the holder still believes its lease valid until its next extension finds the node gone
     * (which must then report the lease lost and must not take the lock back).
     */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> operator.deleteHolderNode(CHROOT, lockName));
    }

    /**
     * The session of the client that holds or is being granted the lock is closed on the server from
     * another connection with its id and password, as an operator (or an expiry) ends it: its nodes go
     * at once, and the client hears of it when it next talks to the server.
     */
    @Override
    protected Optional<SessionEnd> sessionEnd() {
        return Optional.of(SessionEnd.of((client, lockName) -> ensemble.expireSession(client)));
    }

    /** Rule 4.4 does not apply, and the verdict says why. */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(ClockJump.impossible("ZooKeeper expires sessions by a monotonic clock (its session tracker"
                + " counts System.nanoTime() ticks): a wall-clock jump moves no expiry"));
    }

    /** Rule 4.5 does not apply, and the verdict says why. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        return Optional.of(ReplicaFailover.impossible("a ZooKeeper write is acknowledged only once a quorum has logged"
                + " it, and a new leader has every acknowledged write: no replica it can fail over to lags (rule 4.2 stops the leader"
                + " mid-hold)"));
    }
}
