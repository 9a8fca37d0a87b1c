package io.distlock.hazelcast;

import io.distlock.LockClient;
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
import io.distlock.tck.SessionEnd;
import io.distlock.hazelcast.internal.HazelcastEndpoint;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.HazelcastMemberTasks;
import io.distlock.tck.fixtures.MalformedUris;
import org.junit.jupiter.api.BeforeAll;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The TCK against {@code hazelcast-map://}: three 5.7.0 members (Community, no CP Subsystem) in JVMs of
 * their own. Node faults kill or freeze one member: the lock lives on its key's partition owner and
 * one backup, so a member lost can take a lock's owner with it, and the promoted backup has what the
 * owner had replicated. The lock probe reads the lease from the key owner's lock store.
 *
 * <p>Every rule but 4.9, which the members' own client cleanup overtakes (lock-hazelcast/README.md):
 * they give up the locks of a client with no connection at their next cleanup, every 10 s, so the
 * lock the rule's holder releases while cut off can be freed by the members first and granted to the
 * waiter during the cut — legitimately, as the holder's lease stopped counting when it lost its
 * connection; {@code HazelcastBackendTest} shows that binding.
 */
@RuleSelection("1, 2, 3, 4.1, 4.2, 4.3, 4.4, 4.5, 4.6, 4.7, 4.8, 4.10, 4.11, 4.12, 4.13, 4.14, 4.15, 4.16, 4.17, 4.18, 4.19, 4.20, 4.21, 4.22, 4.23, 5, 6, 7, 8, 9")
class HazelcastMapTckTest extends LockVerification {

    @BeforeAll
    static void startMembers() {
        HazelcastMembers.community();
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(URI.create(HazelcastMembers.community().uri("hazelcast-map", "")), HazelcastMembers.options());
    }

    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(URI.create(HazelcastMembers.community().uri("hazelcast-map", "")), HazelcastMembers.options()));
    }

    @Override
    protected List<String> malformedUris() {
        return MalformedUris.serverList("hazelcast-map", SECRET, String.join(",", HazelcastMembers.community().endpoints()),
                List.of("/a/b"), List.of("smartRouting=maybe", "map=%20"));
    }

    /** Rule 5.8: the silent endpoint first in the list of members. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.of(HazelcastMembers.community().uri("hazelcast-map", "").replaceFirst("://", "://" + silentEndpoint + ","));
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("hazelcast-map://127.0.0.1:" + FreePorts.find() + ",127.0.0.1:" + FreePorts.find() + "/nobody");
    }

    @Override
    protected Optional<NodeFaults> nodeFaults() {
        return Optional.of(HazelcastMembers.community().faults());
    }

    /** Rule 4.19 does not apply, and the verdict says why. */
    @Override
    protected Optional<SessionEnd> sessionEnd() {
        return Optional.of(SessionEnd.impossible("a map lock is bound to no session: the member ends it at the end of its"
                + " lease, and a client that leaves the cluster has its locks released by the members"));
    }

    /** A client whose links to every member go through fault proxies of its own (see {@link HazelcastTckTest}). */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(HazelcastMembers.clientPartition("hazelcast-map", HazelcastMembers.community(), Duration.ZERO));
    }

    /** An operator force-unlocks the lock ({@code IMap.forceUnlock}): the holder hears at its next extension. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> HazelcastMembers.forceUnlock(lockName));
    }

    /** Rule 4.5 does not apply, and the verdict says why. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        return Optional.of(ReplicaFailover.impossible("a map lock is acknowledged only once the key's backup has it"
                + " (synchronous backups, Hazelcast's default): the backup the partition fails over to never lags"
                + " (rule 4.2 kills a member mid-hold)"));
    }

    /** How long the key's owner keeps the lock, read from its lock store. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(lockName -> HazelcastMemberTasks.remainingLease(HazelcastMembers.community(), HazelcastEndpoint.DEFAULT_MAP,
                lockName));
    }

    /**
     * Rule 4.4: every member's wall clock jumps forward (map-lock leases expire by the key owner's wall clock,
     * {@code Clock.currentTimeMillis()}). The members keep the lock's state together: one node for the rule.
     */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(ClockJump.of(1, (node, delta) -> HazelcastMemberTasks.jumpClocks(HazelcastMembers.community(), delta)));
    }
}
