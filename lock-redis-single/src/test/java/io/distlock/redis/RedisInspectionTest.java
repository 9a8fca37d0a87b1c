package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.AccessDeniedException;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockEvent;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.ReadWriteScripts;
import io.distlock.redis.support.SemaphoreScripts;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Principals;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Rig;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
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

    /** The README's inspector line for read-write locks and semaphores too: the lock's, and the reads of their holds. */
    static final String[] HOLDS_INSPECTOR_RULES = concat(INSPECTOR_RULES, "+time", "+zrange", "+hgetall");
    /** The README's operator line for read-write locks and semaphores too: the lock's, and what the holds' revoke reads and removes. */
    static final String[] HOLDS_OPERATOR_RULES = concat(OPERATOR_RULES, "+time", "+zrange", "+hgetall", "+zscore", "+zrem", "+hdel",
            "+zcard", "+zcount");
    /** Every command of the holds' operator, but the markers read only (a locker's rights on them): refused at the marker. */
    static final String[] MARKER_READER_RULES = java.util.Arrays.stream(HOLDS_OPERATOR_RULES)
            .map(rule -> rule.equals("%W~distlock-revoked:*") ? "%R~distlock-revoked:*" : rule).toArray(String[]::new);

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
                .aclUser("holds-locker", "pw-holds-locker-35", RedisSemaphoreTest.HOLDS_LOCKER_RULES)
                .aclUser("holds-inspector", "pw-holds-inspector-36", HOLDS_INSPECTOR_RULES)
                .aclUser("holds-operator", "pw-holds-operator-37", HOLDS_OPERATOR_RULES)
                .aclUser("marker-reader", "pw-marker-reader-38", MARKER_READER_RULES)
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

    /**
     * The holds of a semaphore and of a read-write lock under the README's lines: the holds' inspector
     * lists them (the lock's inspector line alone may not), the holds' operator revokes them, and
     * nobody else may — the inspector, a locker, the holder itself, the lock's operator line, and a
     * principal with every command but only read rights on the markers (refused at the marker, the
     * revoke's first write) — with nothing changed by a refused revoke: no marker, the fence where
     * it was, the holds held and extended.
     */
    @Test
    void holdsAreShownToInspectorsAndRevokedByOperatorsOnly() throws Exception {
        List<LockEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (LockClient holder = Locks.connect(URI.create(redis.uri("holds-locker")),
                LockOptions.builder().owner("acl-holder").listener(events::add).build());
             LockClient otherLocker = Locks.connect(redis.uri("holds-locker"));
             LockClient inspector = Locks.connect(redis.uri("holds-inspector"));
             LockClient lockInspector = Locks.connect(redis.uri("inspector"));
             LockClient lockOperator = Locks.connect(redis.uri("operator"));
             LockClient markerReader = Locks.connect(redis.uri("marker-reader"));
             LockClient operator = Locks.connect(redis.uri("holds-operator"))) {
            Lease permit = holder.semaphore("guarded-permits", 2).tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            Lease write = holder.readWriteLock("guarded-rw").writeLock().tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            String permitId = Long.toString(permit.fencingToken().getAsLong());
            String writeId = Long.toString(write.fencingToken().getAsLong());
            Object permitFence = redis.call("GET", SemaphoreScripts.fenceKey("guarded-permits"));
            Object rwFence = redis.call("GET", ReadWriteScripts.fenceKey("guarded-rw"));

            assertThat(inspector.semaphore("guarded-permits", 2).holders()).singleElement()
                    .satisfies(hold -> assertThat(hold.owner()).contains("acl-holder"));
            assertThat(inspector.readWriteLock("guarded-rw").holders()).singleElement()
                    .satisfies(hold -> assertThat(hold.holdId()).contains(writeId));
            assertThatThrownBy(() -> lockInspector.semaphore("guarded-permits", 2).holders())
                    .as("the lock's inspector line reads no holds").isInstanceOf(AccessDeniedException.class);

            for (LockClient refused : List.of(inspector, otherLocker, holder, lockOperator, markerReader)) {
                assertThatThrownBy(() -> refused.semaphore("guarded-permits", 2).revoke(permitId, "not mine to do"))
                        .as("%s's revoke of a permit", refused).isInstanceOf(AccessDeniedException.class);
                assertThatThrownBy(() -> refused.readWriteLock("guarded-rw").revoke(writeId, "not mine to do"))
                        .as("%s's revoke of the writer", refused).isInstanceOf(AccessDeniedException.class);
            }
            assertThat(redis.call("KEYS", "distlock-revoked:*")).as("no marker").isEqualTo(List.of());
            assertThat(redis.call("GET", SemaphoreScripts.fenceKey("guarded-permits"))).isEqualTo(permitFence);
            assertThat(redis.call("GET", ReadWriteScripts.fenceKey("guarded-rw"))).isEqualTo(rwFence);
            for (Lease lease : List.of(permit, write)) {
                assertThat(lease.isValid()).isTrue();
                assertThat(lease.extend(Duration.ofSeconds(30))).as("still held on the server").isTrue();
            }

            assertThat(operator.semaphore("guarded-permits", 2).revoke(permitId, "by the operator")).isPresent();
            assertThat(operator.readWriteLock("guarded-rw").revoke(writeId, "by the operator")).isPresent();
            for (Lease lease : List.of(permit, write)) {
                assertThat(lease.lost().toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS))
                        .as("the locker reads the marker").isEqualTo(Lease.LossReason.REVOKED);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> events.stream().filter(e -> e.type() == LockEvent.Type.REVOKED)
                    .map(LockEvent::revocationReason).filter(r -> r.equals(java.util.Optional.of("by the operator"))).count() == 2);
            assertThat(inspector.semaphore("guarded-permits", 2).holders()).isEmpty();
            assertThat(inspector.readWriteLock("guarded-rw").holders()).isEmpty();
        }
    }

    private static String[] concat(String[] rules, String... more) {
        return java.util.stream.Stream.concat(java.util.Arrays.stream(rules), java.util.Arrays.stream(more)).toArray(String[]::new);
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
