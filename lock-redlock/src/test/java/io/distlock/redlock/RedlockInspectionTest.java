package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Principals;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Rig;
import io.distlock.tck.fixtures.RedisNodes;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Inspection and revocation on Redlock (issue 23), on three real {@code redis-server} nodes behind
 * fault proxies: the family's checks ({@link RedisFamilyInspectionChecks}: every node gets the old
 * layout's writes and the forged notices), the majority's view when nodes disagree or one does not
 * answer, a revoke on a majority, and the README's least-privilege ACL lines as real ACL users on
 * every node.
 */
class RedlockInspectionTest {

    /** The README's locker line. */
    static final String[] LOCKER_RULES = {"~distlock:*", "%R~distlock-revoked:*", "&distlock:*", "+ping", "+info", "+set", "+get",
        "+del", "+exists", "+pexpire", "+pttl", "+publish", "+eval", "+evalsha", "+script|load", "+time", "+subscribe",
        "+unsubscribe"};
    /** The README's inspector line. */
    static final String[] INSPECTOR_RULES = {"%R~distlock:*", "+ping", "+info", "+multi", "+exec", "+get", "+pttl", "+scan"};
    /** The README's operator line. */
    static final String[] OPERATOR_RULES = {"~distlock:*", "%W~distlock-revoked:*", "&distlock:*", "+ping", "+info", "+eval",
        "+evalsha", "+script|load", "+get", "+pttl", "+set", "+del", "+publish", "+multi", "+exec", "+scan"};
    private static final Map<String, String> PASSWORDS = Map.of("locker", "pw-locker-51", "inspector", "pw-inspector-52",
            "operator", "pw-operator-53");
    /** Per node: generous for a build on two shared cores. */
    private static final String OPTIONS = "?nodeTimeout=250";

    private RedisNodes nodes;
    private Rig rig;

    @BeforeEach
    void start() {
        nodes = RedisNodes.start(3, node -> node
                .aclUser("locker", PASSWORDS.get("locker"), LOCKER_RULES)
                .aclUser("inspector", PASSWORDS.get("inspector"), INSPECTOR_RULES)
                .aclUser("operator", PASSWORDS.get("operator"), OPERATOR_RULES));
        rig = new Rig("redlock", options -> Locks.connect(URI.create(nodes.uri("redlock") + OPTIONS), options),
                IntStream.range(0, 3).mapToObj(nodes::server).toList(), false, false);
    }

    @AfterEach
    void stop() {
        nodes.close();
    }

    private String uriOf(String user) {
        return "redlock://" + user + ":" + PASSWORDS.get(user) + "@" + nodes.endpoints() + OPTIONS;
    }

    @Test
    void declaresInspectionAndRevocation() {
        try (LockClient client = rig.client()) {
            assertThat(client.backend().features()).contains(Feature.INSPECTION, Feature.REVOCATION);
        }
    }

    @Test
    void inspectShowsTheHolderUntilReleaseAndExpiry() {
        RedisFamilyInspectionChecks.inspectShowsTheHolderUntilReleaseAndExpiry(rig);
    }

    @Test
    void holdersListsTheHeldNamesInOrderUpToTheLimit() {
        RedisFamilyInspectionChecks.holdersListsTheHeldNamesInOrderUpToTheLimit(rig);
    }

    @Test
    void revokeEndsAnotherClientsLease() {
        assertThat(RedisFamilyInspectionChecks.revokeEndsAnotherClientsLease(rig)).as("ms: a notification").isLessThan(1000);
    }

    @Test
    void revokeOfAFreeLockChangesNothing() {
        RedisFamilyInspectionChecks.revokeOfAFreeLockChangesNothing(rig);
    }

    @Test
    void aForgedNoticeEvictsNobody() {
        RedisFamilyInspectionChecks.aForgedNoticeEvictsNobody(rig, (server, message) -> server.call("PUBLISH", "distlock:revoked", message));
    }

    @Test
    void aMissedNoticeEndsAsRevokedAtTheNextExtension() {
        RedisFamilyInspectionChecks.aMissedNoticeEndsAsRevokedAtTheNextExtension(rig);
    }

    @Test
    void aLockOfTheOldLayoutShowsNoOwnerAndCanBeRevoked() {
        RedisFamilyInspectionChecks.aLockOfTheOldLayoutShowsNoOwnerAndCanBeRevoked(rig);
    }

    @Test
    void lockersInspectorsAndOperatorsHaveSeparateRights() {
        RedisFamilyInspectionChecks.rightsAreSeparate(new Principals(rig,
                options -> Locks.connect(URI.create(uriOf("locker")), options),
                () -> Locks.connect(uriOf("inspector")),
                () -> Locks.connect(uriOf("operator")),
                (server, message) -> server.callAs("locker", "PUBLISH", "distlock:revoked", message)));
    }

    @Test
    void inspectShowsTheMajoritysViewAndEachNodesAnswerWhereTheyDisagree() {
        try (LockClient holder = rig.client(); LockClient inspector = rig.client()) {
            holder.lock("split").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            holder.lock("whole").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            assertThat(inspector.inspect("split").orElseThrow().detail()).as("all agree: the key alone").isEqualTo("distlock:{split}");

            RedisServer second = nodes.server(1);
            second.call("DEL", "distlock:{split}", "distlock:{split}:owner");
            LockInfo majority = inspector.inspect("split").orElseThrow(() -> new AssertionError("held on two of three"));
            assertThat(majority.owner()).isPresent();
            assertThat(majority.detail()).startsWith("distlock:{split} on 2 of 3 nodes: ")
                    .contains(nodes.proxy(0).endpoint() + " held, ").contains(nodes.proxy(1).endpoint() + " free")
                    .doesNotContain((String) nodes.server(0).call("GET", "distlock:{split}"));

            // A minority's leftover is no holder.
            nodes.server(0).call("SET", "distlock:{leftover}", "someone", "PX", "30000");
            assertThat(inspector.inspect("leftover")).isEmpty();
            assertThat(inspector.holders("", 10)).extracting(LockInfo::name).containsExactly("split", "whole");

            // One node silent, the two others split: nobody can tell.
            nodes.server(1).call("SET", "distlock:{leftover}", "someone-else", "PX", "30000");
            nodes.proxy(2).blackhole();
            assertThatThrownBy(() -> inspector.inspect("leftover")).isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("do not decide it");
            assertThatThrownBy(() -> inspector.inspect("split")).as("one held, one free, one silent")
                    .isInstanceOf(BackendUnavailableException.class);
            assertThat(inspector.inspect("whole")).as("two of three answer alike: decided").hasValueSatisfying(info ->
                    assertThat(info.detail()).contains(nodes.proxy(2).endpoint() + " no answer"));
        } finally {
            nodes.healAll();
        }
    }

    @Test
    void aRevokeOnAMajorityWithOneNodeSilentEndsTheLease() throws Exception {
        try (LockClient holder = rig.client(); LockClient operator = rig.client()) {
            Lease lease = holder.lock("quorum").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            nodes.proxy(2).blackhole();
            assertThat(operator.revoke("quorum", "node 3 is down anyway")).isPresent();
            assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            assertThat(nodes.server(2).call("EXISTS", "distlock:{quorum}")).as("the silent node still has it").isEqualTo(1L);
            nodes.proxy(2).heal();
            assertThat(operator.inspect("quorum")).as("a minority's leftover").isEmpty();
            assertThat(operator.revoke("quorum", "again")).as("no majority holds it: not held").isEmpty();
            assertThat(nodes.server(2).call("EXISTS", "distlock:{quorum}")).as("the leftover was cleaned up").isEqualTo(0L);
        } finally {
            nodes.healAll();
        }
    }

    @Test
    void aRevokeWithTwoNodesSilentIsUnknown() {
        try (LockClient holder = rig.client(); LockClient operator = rig.client()) {
            Lease lease = holder.lock("unknown").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            // The holder hears a revoke on the node that publishes it once it listens there: a grant
            // waits for that only so long (250 ms), which a loaded build machine can outlast.
            await().atMost(Duration.ofSeconds(10)).until(() -> (Long) ((List<?>) nodes.server(0).call("PUBSUB", "NUMSUB",
                    LockScripts.REVOKED_CHANNEL)).get(1) == 1L);
            nodes.proxy(1).blackhole();
            nodes.proxy(2).blackhole();
            assertThatThrownBy(() -> operator.revoke("unknown", "cannot tell")).isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("only 1 of 3");
            // It was revoked on the one node that answered, whose marker proves it: the holder gives up (fails safe).
            assertThat(lease.lost()).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(Lease.LossReason.REVOKED);
            assertThat(nodes.server(0).call("EXISTS", "distlock:{unknown}")).isEqualTo(0L);
        } finally {
            nodes.healAll();
        }
    }
}
