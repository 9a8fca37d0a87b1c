package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Feature;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Principals;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Rig;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Inspection and revocation on one real {@code redis-server} (issue 23): what an operator sees and
 * does, what the evicted holder learns and how fast, what a lock of the layout before owner records
 * shows, and the least-privilege ACL lines of the README, each as a real ACL user.
 */
class RedisInspectionTest {

    /** The README's locker line: the lock keys, read only on the revocation markers. */
    static final String[] LOCKER_RULES = {"~distlock:*", "%R~distlock-revoked:*", "&distlock:*", "+ping", "+eval", "+evalsha",
        "+script|load", "+subscribe", "+unsubscribe", "+exists", "+set", "+get", "+del", "+incr", "+type", "+pexpire", "+pttl",
        "+publish", "+time"};
    /** The README's inspector line: read only, no script. */
    static final String[] INSPECTOR_RULES = {"%R~distlock:*", "+ping", "+multi", "+exec", "+get", "+pttl", "+scan"};
    /** The README's operator line: the revoke script, and write on the markers. */
    static final String[] OPERATOR_RULES = {"~distlock:*", "%W~distlock-revoked:*", "&distlock:*", "+ping", "+eval", "+evalsha",
        "+script|load", "+get", "+pttl", "+set", "+del", "+incr", "+publish", "+multi", "+exec", "+scan"};

    /** The locker line of the layout before owner records: no TIME, no read on the markers. */
    static final String[] PREVIOUS_LOCKER_RULES = {"~distlock:*", "&distlock:*", "+ping", "+eval", "+evalsha", "+script|load",
        "+subscribe", "+unsubscribe", "+exists", "+set", "+get", "+del", "+incr", "+type", "+pexpire", "+pttl", "+publish"};

    private RedisServer redis;
    private Rig rig;

    /** A server per test: {@code holders("")} sees every lock on it. */
    @BeforeEach
    void startServer() {
        redis = RedisServer.builder()
                .aclUser("locker", "pw-locker-31", LOCKER_RULES)
                .aclUser("inspector", "pw-inspector-32", INSPECTOR_RULES)
                .aclUser("operator", "pw-operator-33", OPERATOR_RULES)
                .aclUser("previous", "pw-previous-34", PREVIOUS_LOCKER_RULES)
                .start();
        rig = new Rig("redis", options -> Locks.connect(URI.create(redis.uri()), options), List.of(redis), true, true);
    }

    @AfterEach
    void stopServer() {
        redis.close();
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
    void theOwnerRecordLivesAndDiesWithTheLockKey() {
        try (LockClient client = Locks.connect(URI.create(redis.uri()), LockOptions.builder().owner("recorded").build())) {
            var lease = client.lock("recorded").tryAcquire(java.time.Duration.ofSeconds(20)).orElseThrow();
            String record = (String) redis.call("GET", "distlock:{recorded}:owner");
            assertThat(record).startsWith(lease.fencingToken().getAsLong() + " ")
                    .contains(" " + redis.call("GET", "distlock:{recorded}") + " ").endsWith(" recorded");
            assertRecordExpiresWithTheLockKey();
            lease.extend(java.time.Duration.ofSeconds(60));
            assertThat((Long) redis.call("PTTL", "distlock:{recorded}:owner")).isGreaterThan(50_000L);
            assertRecordExpiresWithTheLockKey();
            lease.release();
            assertThat(redis.call("EXISTS", "distlock:{recorded}", "distlock:{recorded}:owner")).isEqualTo(0L);
        }
    }

    /** Written (or extended) right after the lock key in the same script: never earlier, a millisecond or two later at most. */
    private void assertRecordExpiresWithTheLockKey() {
        long lockKey = (Long) redis.call("PEXPIRETIME", "distlock:{recorded}");
        assertThat((Long) redis.call("PEXPIRETIME", "distlock:{recorded}:owner")).isBetween(lockKey, lockKey + 5);
    }

    @Test
    void holdersListsTheHeldNamesInOrderUpToTheLimit() {
        RedisFamilyInspectionChecks.holdersListsTheHeldNamesInOrderUpToTheLimit(rig);
    }

    @Test
    void revokeEndsAnotherClientsLease() {
        double first = RedisFamilyInspectionChecks.revokeEndsAnotherClientsLease(rig);
        assertThat(first).as("revoke-to-lost, ms: a notification, not a renewal").isLessThan(1000);
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
    void aLockerWithThePreviousAclLineStillLocksAndARevocationEndsItsLeaseAsNotHeld() throws Exception {
        try (LockClient holder = Locks.connect(URI.create(redis.uri("previous")), LockOptions.builder().owner("upgraded").build());
             LockClient operator = Locks.connect(redis.uri("operator"))) {
            var lease = holder.lock("upgraded").tryAcquire(java.time.Duration.ofSeconds(30)).orElseThrow();
            var info = operator.inspect("upgraded").orElseThrow();
            assertThat(info.owner()).contains("upgraded");
            assertThat(info.acquiredAt()).as("TIME refused: the time is unknown, the grant is not").isEmpty();
            assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
            assertThat(operator.revoke("upgraded", "maintenance")).isPresent();
            // The notice's marker cannot be read by this user: the lease ends at its next extension, as NOT_HELD.
            assertThat(lease.extend(java.time.Duration.ofSeconds(30))).isFalse();
            assertThat(lease.lost().toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS))
                    .isEqualTo(io.distlock.Lease.LossReason.NOT_HELD);
        }
    }

    @Test
    void lockersInspectorsAndOperatorsHaveSeparateRights() {
        RedisFamilyInspectionChecks.rightsAreSeparate(new Principals(rig,
                options -> Locks.connect(URI.create(redis.uri("locker")), options),
                () -> Locks.connect(redis.uri("inspector")),
                () -> Locks.connect(redis.uri("operator")),
                (server, message) -> server.callAs("locker", "PUBLISH", "distlock:revoked", message)));
    }
}
