package io.distlock.rediswait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Principals;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Rig;
import io.distlock.tck.fixtures.RedisReplicaSet;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Inspection and revocation on Redis + {@code WAIT} (issue 23), on a real primary with two replicas:
 * the family's checks ({@link RedisFamilyInspectionChecks}, on the primary, without fencing tokens),
 * the README's least-privilege ACL lines as real ACL users on every node, and the revoke's own
 * {@code WAIT}: too few acknowledgements leave its outcome unknown, never "done".
 */
class RedisWaitInspectionTest {

    /** The README's locker line. */
    static final String[] LOCKER_RULES = {"~distlock:*", "%R~distlock-revoked:*", "&distlock:*", "+ping", "+eval", "+evalsha",
        "+script|load", "+subscribe", "+unsubscribe", "+exists", "+set", "+get", "+del", "+incr", "+type", "+pexpire", "+pttl",
        "+publish", "+time", "+wait", "+role", "+info"};
    /** The README's inspector line. */
    static final String[] INSPECTOR_RULES = {"%R~distlock:*", "+ping", "+multi", "+exec", "+get", "+pttl", "+scan", "+role", "+info"};
    /** The README's operator line. */
    static final String[] OPERATOR_RULES = {"~distlock:*", "%W~distlock-revoked:*", "&distlock:*", "+ping", "+eval", "+evalsha",
        "+script|load", "+get", "+pttl", "+set", "+del", "+incr", "+publish", "+multi", "+exec", "+scan", "+wait", "+role", "+info"};

    /** Longer than a build on two shared cores needs for the replicas' acknowledgement; shorter than the checks' 1 s lease. */
    private static final String WAIT = "replicas=2&waitTimeout=500";

    private static final java.util.Map<String, String> PASSWORDS = java.util.Map.of("locker", "pw-locker-41",
            "inspector", "pw-inspector-42", "operator", "pw-operator-43");

    private static RedisReplicaSet redis;
    private static Rig rig;

    @BeforeAll
    static void start() {
        redis = RedisReplicaSet.start(2, 1, node -> node
                .aclUser("locker", PASSWORDS.get("locker"), LOCKER_RULES)
                .aclUser("inspector", PASSWORDS.get("inspector"), INSPECTOR_RULES)
                .aclUser("operator", PASSWORDS.get("operator"), OPERATOR_RULES), sentinel -> { });
        rig = new Rig("redis-wait", options -> Locks.connect(URI.create(uri("")), options), List.of(primary()), false, false);
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    /**
     * {@code holders("")} sees every lock on the server. The flush is waited for on both replicas: a
     * test's first grant needs their acknowledgement within the URI's 500 ms, which a replica still
     * catching up (after the set's start, or a healed cut) would not give.
     */
    @BeforeEach
    void empty() {
        await("both replicas acknowledge a write").atMost(Duration.ofSeconds(30))
                .until(() -> redis.writeAndWait(redis.primaryIndex(), 2, Duration.ofMillis(500), "FLUSHALL") == 2);
    }

    private static RedisServer primary() {
        return redis.node(redis.primaryIndex());
    }

    private static String uri(String userInfo) {
        return "redis-wait://" + userInfo + redis.primaryEndpoint() + "?" + WAIT;
    }

    /** The URI of an ACL user, with the password {@link #start} gave it. */
    private static String uriOf(String user) {
        return uri(user + ":" + PASSWORDS.get(user) + "@");
    }

    @Test
    void declaresInspectionAndRevocationButNoFencingTokens() {
        try (LockClient client = rig.client()) {
            assertThat(client.backend().features()).contains(Feature.INSPECTION, Feature.REVOCATION).doesNotContain(Feature.FENCING_TOKENS);
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
    void aRevokeTheReplicasDidNotAcknowledgeIsUnknownAndRepeatingItIsHarmless() throws Exception {
        int replica = redis.primaryIndex() == 1 ? 2 : 1;
        try (LockClient holder = rig.client(); LockClient operator = rig.client()) {
            Lease lease = holder.lock("unconfirmed").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            redis.cutReplication(replica);
            try {
                assertThatThrownBy(() -> operator.revoke("unconfirmed", "drain"))
                        .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("1 of 2 replicas")
                        .hasMessageContaining("revoking again is harmless");
                // It did happen on the primary: the holder is told there, and inspect says it is free.
                assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
                assertThat(operator.inspect("unconfirmed")).isEmpty();
                assertThat(operator.revoke("unconfirmed", "drain")).as("again: nothing held, nothing changed").isEmpty();
            } finally {
                redis.healReplication(replica);
            }
        }
    }

    @Test
    void theOwnerDescriptionIsTheOptions() {
        try (LockClient holder = Locks.connect(URI.create(uri("")), LockOptions.builder().owner("batch-7").build());
             LockClient inspector = rig.client()) {
            holder.lock("described").tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            assertThat(inspector.inspect("described")).hasValueSatisfying(i -> assertThat(i.owner()).contains("batch-7"));
        }
    }
}
