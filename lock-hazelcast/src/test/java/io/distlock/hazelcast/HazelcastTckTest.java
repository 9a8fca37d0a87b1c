package io.distlock.hazelcast;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.NodeFaults;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.SessionEnd;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.HazelcastCluster;
import io.distlock.tck.fixtures.HazelcastMemberTasks;
import io.distlock.tck.fixtures.MalformedUris;
import org.junit.jupiter.api.BeforeAll;

import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * The TCK against {@code hazelcast://}: three 5.3.8 members in JVMs of their own, all three CP
 * members, with a CP session TTL of {@link HazelcastMembers#CP_SESSION_TTL}. Node faults kill or
 * freeze one member; a partitioned client reaches every member through a fault proxy of its own;
 * a revocation and a session end close the holder's CP
 * session on the group, as an operator's {@code forceCloseSession} would; the lock probe asks the
 * group whether the lock is held (a {@code FencedLock} is held until told).
 *
 * <p>Every rule but one. Rule 4.4 fails in some runs and not in others (a race between the holder's
 * next heartbeat and another client's grant): the CP group expires sessions by its leader's wall clock,
 * and {@link HazelcastClockJumpTest} shows what a forward clock jump then does.
 */
@RuleSelection("1, 2, 3, 4.1, 4.2, 4.3, 4.5, 4.6, 4.7, 4.8, 4.9, 4.10, 4.11, 4.12, 4.13, 4.14, 4.15, 4.16, 4.17, 4.18, 4.19, 4.20, 4.21, 4.22, 4.23, 5, 6, 7, 8, 9")
class HazelcastTckTest extends LockVerification {

    @BeforeAll
    static void startMembers() {
        HazelcastMembers.cp();
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(URI.create(HazelcastMembers.cp().uri("hazelcast", "")), HazelcastMembers.options());
    }

    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(URI.create(HazelcastMembers.cp().uri("hazelcast", "")), HazelcastMembers.options()));
    }

    @Override
    protected List<String> malformedUris() {
        return MalformedUris.serverList("hazelcast", SECRET, String.join(",", HazelcastMembers.cp().endpoints()), List.of("/a/b"),
                List.of("smartRouting=maybe", "map=locks"));
    }

    /** Rule 5.8: the silent endpoint first in the list of members. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.of(HazelcastMembers.cp().uri("hazelcast", "").replaceFirst("://", "://" + silentEndpoint + ","));
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("hazelcast://127.0.0.1:" + FreePorts.find() + ",127.0.0.1:" + FreePorts.find() + "/nobody");
    }

    @Override
    protected Optional<NodeFaults> nodeFaults() {
        return Optional.of(HazelcastMembers.cp().faults());
    }

    /** A {@code FencedLock} is held until it is unlocked or its session closes. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(lockName -> HazelcastMembers.cpLocked(lockName) ? Optional.of(LockProbe.UNTIL_RELEASED) : Optional.empty());
    }

    /** The holder's CP session is closed on the group: its locks go with it, and the holder hears at its next heartbeat. */
    @Override
    protected Optional<SessionEnd> sessionEnd() {
        return Optional.of(SessionEnd.of((client, lockName) -> HazelcastMembers.closeHoldersSession(lockName)));
    }

    /**
     * A client whose links to every member go through fault proxies of its own: the URI lists the
     * proxies and maps each member's announced address to its proxy ({@code natMap}), so that the
     * connections the client opens to the members it learns of go through them too.
     */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(HazelcastMembers.clientPartition("hazelcast", HazelcastMembers.cp(), HazelcastMembers.CP_SESSION_TTL));
    }

    /** An operator closes the holder's CP session (its other locks go too): the holder hears at its next heartbeat or extension. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> HazelcastMembers.closeHoldersSession(lockName));
    }

    /** Rules 4.3 and 4.15 do not apply, and the verdict says why. */
    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(ServerRestart.impossible(HazelcastCluster.RESTART_WITHOUT_PERSISTENCE_IMPOSSIBLE));
    }

    /** Rule 4.5 does not apply, and the verdict says why. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        return Optional.of(ReplicaFailover.impossible("a CP write is acknowledged only once a Raft majority of the CP"
                + " group has it, and a new leader has every acknowledged write: no member it can fail over to lags"
                + " (rule 4.2 kills a member mid-hold)"));
    }

    /**
     * Rule 4.4: every member's wall clock jumps forward (CP sessions (and so their locks) expire by the CP group leader's wall clock,
     * {@code Clock.currentTimeMillis()}). The members keep the lock's state together: one node for the rule.
     */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(ClockJump.of(1, (node, delta) -> HazelcastMemberTasks.jumpClocks(HazelcastMembers.cp(), delta)));
    }
}
