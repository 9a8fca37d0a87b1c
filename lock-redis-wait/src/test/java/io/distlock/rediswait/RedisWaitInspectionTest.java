package io.distlock.rediswait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedSemaphore;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.SemaphoreScripts;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Principals;
import io.distlock.tck.fixtures.RedisFamilyInspectionChecks.Rig;
import io.distlock.tck.fixtures.RedisReplicaSet;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.FutureTask;
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

    /**
     * A semaphore's permits and a read-write lock's writer on Redis + {@code WAIT}: listed with their
     * hold ids — the grants' numbers, which the acquire scripts draw from the primitive's counter here
     * too — but no fencing token; a revoke confirmed by both replicas (its marker is on each), its
     * holder told through the primary, the other permit untouched, and the waiter let in at once.
     */
    @Test
    void holdsAreListedWithoutFencingTokensAndARevokeReachesTheReplicas() throws Exception {
        LockOptions slowPolling = LockOptions.builder().retryBackoff(Duration.ofMillis(5), Duration.ofMinutes(1)).build();
        try (LockClient a = Locks.connect(URI.create(uri("")), LockOptions.builder().owner("stuck-worker").build());
             LockClient b = Locks.connect(URI.create(uri("")), LockOptions.builder().owner("worker-b").build());
             LockClient c = Locks.connect(URI.create(uri("")), slowPolling);
             LockClient operator = rig.client()) {
            Lease revokedLease = a.semaphore("wait-permits", 2).tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            Lease kept = b.semaphore("wait-permits", 2).tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            FutureTask<Optional<Lease>> waiting = new FutureTask<>(
                    () -> c.semaphore("wait-permits", 2).tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(10)));
            Thread waiter = new Thread(waiting, "waiting-for-a-permit");
            waiter.setDaemon(true);
            waiter.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> (Long) ((List<?>) primary().call("PUBSUB", "NUMSUB",
                    SemaphoreScripts.channel("wait-permits"))).get(1) == 1L);

            DistributedSemaphore permits = operator.semaphore("wait-permits", 2);
            List<LockInfo> holds = permits.holders();
            assertThat(holds).extracting(LockInfo::owner).containsExactly(Optional.of("stuck-worker"), Optional.of("worker-b"));
            assertThat(holds).allSatisfy(hold -> {
                assertThat(hold.kind()).isEqualTo(LockInfo.Kind.PERMIT);
                assertThat(hold.fencingToken()).as("no fencing tokens on redis-wait").isEmpty();
                assertThat(hold.permits()).hasValue(2);
            });
            List<String> fences = ((List<?>) primary().call("HVALS", SemaphoreScripts.ownersKey("wait-permits"))).stream()
                    .map(record -> ((String) record).split(" ")[0]).sorted(java.util.Comparator.comparingLong(Long::parseLong)).toList();
            assertThat(holds).extracting(hold -> hold.holdId().orElseThrow()).as("the grants' numbers").isEqualTo(fences);

            long start = System.nanoTime();
            LockInfo revoked = permits.revoke(holds.get(0).holdId().orElseThrow(), "stuck since 02:10").orElseThrow();
            assertThat(revoked.owner()).contains("stuck-worker");
            for (int node = 0; node < redis.size(); node++) {
                assertThat((List<?>) redis.call(node, "KEYS", "distlock-revoked:*")).as("the marker on node %d", node).hasSize(1);
            }
            assertThat(revokedLease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("a notification").isLessThan(1_000);
            assertThat(revokedLease.extend(Duration.ofSeconds(30))).isFalse();
            assertThat(kept.extend(Duration.ofSeconds(30))).isTrue();
            Lease handed = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("woken by the revoke").isLessThan(1_000);
            assertThat(permits.revoke(holds.get(0).holdId().orElseThrow(), "again")).isEmpty();
            assertThat(permits.holders()).extracting(LockInfo::owner).first().isEqualTo(Optional.of("worker-b"));
            handed.release();
            kept.release();

            Lease write = a.readWriteLock("wait-rw").writeLock().tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            LockInfo writer = operator.readWriteLock("wait-rw").holders().get(0);
            assertThat(writer.kind()).isEqualTo(LockInfo.Kind.WRITE);
            assertThat(writer.fencingToken()).isEmpty();
            assertThat(operator.readWriteLock("wait-rw").revoke(writer.holdId().orElseThrow(), "writer stuck")).isPresent();
            assertThat(write.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            b.readWriteLock("wait-rw").readLock().tryAcquire(Duration.ofSeconds(30)).orElseThrow().release();
        }
    }

    @Test
    void aHoldRevokeTheReplicasDidNotAcknowledgeIsUnknownAndRepeatingItIsHarmless() throws Exception {
        int replica = redis.primaryIndex() == 1 ? 2 : 1;
        try (LockClient holder = rig.client(); LockClient operator = rig.client()) {
            Lease lease = holder.semaphore("unconfirmed-permit", 1).tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            DistributedSemaphore permits = operator.semaphore("unconfirmed-permit", 1);
            String id = permits.holders().get(0).holdId().orElseThrow();
            redis.cutReplication(replica);
            try {
                assertThatThrownBy(() -> permits.revoke(id, "drain"))
                        .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("1 of 2 replicas")
                        .hasMessageContaining("revoking again is harmless");
                // It did happen on the primary: the holder is told there, and holders() shows it gone.
                assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
                assertThat(permits.holders()).isEmpty();
                assertThat(permits.revoke(id, "drain")).as("again: nothing held, nothing changed").isEmpty();
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
