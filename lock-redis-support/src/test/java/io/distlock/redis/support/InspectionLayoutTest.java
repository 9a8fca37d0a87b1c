package io.distlock.redis.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Feature;
import io.distlock.LockInfo;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Revoked;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The owner record, the revocation marker and the key names that inspection reads, below the
 * engine: what the scripts write, and how the driver reads it back. The user-level behaviour is
 * checked per backend (RedisFamilyInspectionChecks).
 */
class InspectionLayoutTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private RedisServer redis;
    private RecordingContext context;
    private RedisLockDriver driver;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        context = new RecordingContext("worker 7 (blue)");
        driver = new RedisLockDriver(RedisNode.connect(RedisEndpoint.parse(URI.create(redis.uri()), RedisEndpoint.OPTIONS),
                Duration.ofSeconds(1), Duration.ofSeconds(2), 4), context);
    }

    @AfterEach
    void stop() {
        driver.close();
        redis.close();
    }

    private static LockRequest request(String name, String token) {
        return new LockRequest(name, token, LEASE, System.nanoTime());
    }

    @Test
    void aGrantWritesItsOwnerRecordWithFenceServerTimeTokenAndDescription() {
        Instant before = Instant.now();
        Grant grant = driver.tryAcquire(request("recorded", "token-1")).grant();
        OwnerRecord record = OwnerRecord.parse((String) redis.call("GET", "distlock:{recorded}:owner"));
        assertThat(record.fence()).isEqualTo(grant.fencingToken());
        assertThat(record.ownerToken()).isEqualTo("token-1");
        assertThat(record.owner()).as("spaces and parentheses kept").isEqualTo("worker 7 (blue)");
        assertThat(record.acquiredAt()).isBetween(before.minusMillis(50), Instant.now().plusMillis(50));
        assertThat(record.toString()).doesNotContain("token-1");

        long fence = driver.tryAcquire(request("recorded", "token-1")).grant().fencingToken().getAsLong();
        assertThat(OwnerRecord.parse((String) redis.call("GET", "distlock:{recorded}:owner")).fence())
                .as("a grant repeated after a lost reply rewrites the record").hasValue(fence);
    }

    /**
     * A permit's hold id is its grant's fence, read from its owner record; only that finds it again,
     * and the revoke's answer carries the owner token for the engine while nothing shown does. The
     * holder's token is listened for: the driver tells the engine of the revocation once the notice
     * and the marker agree, and the revoked permit's extension answers the reason.
     */
    @Test
    void aHoldsIdIsItsGrantsFenceAndRevokeFindsItByThatAlone() {
        Grant first = driver.tryAcquire(new LockRequest("ids", "permit-1", LEASE, System.nanoTime(), Hold.permit(2))).grant();
        Grant second = driver.tryAcquire(new LockRequest("ids", "permit-2", LEASE, System.nanoTime(), Hold.permit(2))).grant();
        List<LockInfo> holds = driver.holds("ids", Feature.SEMAPHORE);
        assertThat(holds).extracting(info -> info.holdId().orElseThrow()).containsExactly(
                Long.toString(first.fencingToken().getAsLong()), Long.toString(second.fencingToken().getAsLong()));
        assertThat(holds.toString()).doesNotContain("permit-1", "permit-2");

        String id = holds.get(0).holdId().orElseThrow();
        for (String notAnId : List.of("permit-1", "0" + id, "+" + id, " " + id, "", "-" + id, "1e3", "123456789012345678901")) {
            assertThat(HoldSnapshot.holdId(notAnId)).as("'%s'", notAnId).isEmpty();
            assertThat(driver.revokeHold("ids", Feature.SEMAPHORE, notAnId, "no")).as("'%s'", notAnId).isEmpty();
        }
        assertThat(driver.revokeHold("ids", Feature.READ_WRITE, id, "another primitive")).isEmpty();
        assertThat(redis.call("ZCARD", SemaphoreScripts.holdersKey("ids"))).as("nothing changed").isEqualTo(2L);

        Revoked revoked = driver.revokeHold("ids", Feature.SEMAPHORE, id, "drain").orElseThrow();
        assertThat(revoked.ownerToken()).isEqualTo("permit-1");
        assertThat(revoked.holder().holdId()).contains(id);
        assertThat(revoked.holder().toString()).doesNotContain("permit-1");
        assertThat(redis.call("GET", LockScripts.revokedKey("ids", "permit-1"))).isEqualTo("drain");
        await().atMost(Duration.ofSeconds(5)).until(() -> "drain".equals(context.revoked.get("permit-1")));
        assertThat(driver.extend(first, LEASE).revocationReason()).contains("drain");
        assertThat(driver.extend(second, LEASE).isExtended()).isTrue();
        assertThat(driver.revokeHold("ids", Feature.SEMAPHORE, id, "again")).isEmpty();
    }

    @Test
    void recordsThatAreNotRecordsAreNoOwner() {
        assertThat(OwnerRecord.parse(null)).isNull();
        assertThat(OwnerRecord.parse("garbage")).isNull();
        assertThat(OwnerRecord.parse("x 1 t o")).isNull();
        OwnerRecord unfenced = OwnerRecord.parse("- - token who");
        assertThat(unfenced.fence()).isEmpty();
        assertThat(unfenced.acquiredAt()).isNull();
        assertThat(OwnerRecord.parse(unfenced.format())).isEqualTo(unfenced);
        OwnerRecord full = new OwnerRecord(OptionalLong.of(42), Instant.ofEpochMilli(1_700_000_000_123L), "tok", "a b");
        assertThat(OwnerRecord.parse(full.format())).isEqualTo(full);
    }

    @Test
    void onlyLockKeysAreTakenForLocksAndThePrefixIsMatchedLiterally() {
        assertThat(LockScripts.nameOfLockKey(LockScripts.lockKey("a}:fence"))).isEqualTo("a}:fence");
        assertThat(LockScripts.nameOfLockKey(LockScripts.fenceKey("a"))).isNull();
        assertThat(LockScripts.nameOfLockKey(LockScripts.ownerKey("a}"))).isNull();
        assertThat(LockScripts.nameOfLockKey(LockScripts.abandonedKey("a", "AbC-_09"))).isNull();
        assertThat(LockScripts.nameOfLockKey("distlock:{}")).isNull();
        assertThat(LockScripts.nameOfLockKey("other:{a}")).isNull();
        assertThat(LockScripts.scanPattern("a*b?[c]\\")).isEqualTo("distlock:{a\\*b\\?\\[c\\]\\\\*");

        for (String name : List.of("a*b", "a?b", "a[b]", "a\\b", "a}b", "ab")) {
            driver.tryAcquire(request(name, "t-" + name.hashCode()));
        }
        assertThat(driver.holders("a*", 10)).extracting(LockInfo::name).containsExactly("a*b");
        assertThat(driver.holders("a\\", 10)).extracting(LockInfo::name).containsExactly("a\\b");
        assertThat(driver.holders("a}", 10)).extracting(LockInfo::name).containsExactly("a}b");
        assertThat(driver.holders("a", 3)).extracting(LockInfo::name).containsExactly("a*b", "a?b", "a[b]");
    }

    @Test
    void holdersWalksAKeyspaceLargerThanOneScanBatch() {
        for (int i = 0; i < 1500; i++) {
            redis.call("SET", "unrelated:" + i, "x");
        }
        for (int i = 0; i < 30; i++) {
            driver.tryAcquire(request(String.format("many/%03d", i), "t" + i));
        }
        assertThat(driver.holders("many/", 1000)).hasSize(30);
        assertThat(driver.holders("many/", 5)).extracting(LockInfo::name)
                .containsExactly("many/000", "many/001", "many/002", "many/003", "many/004");
    }

    @Test
    void anExtensionOfARevokedLeaseAnswersTheReasonAndOfALostOneJustLost() {
        Grant revoked = driver.tryAcquire(request("ext", "revoked-token")).grant();
        assertThat(driver.revoke("ext", "drain node 4")).isPresent();
        ExtendOutcome outcome = driver.extend(revoked, LEASE);
        assertThat(outcome.isLost()).isTrue();
        assertThat(outcome.revocationReason()).contains("drain node 4");

        Grant expired = driver.tryAcquire(request("gone", "gone-token")).grant();
        redis.call("DEL", "distlock:{gone}");
        assertThat(driver.extend(expired, LEASE).revocationReason()).isEmpty();
        assertThat(driver.extend(expired, LEASE).isLost()).isTrue();
    }

    @Test
    void aNoticeForATokenThisClientDoesNotHoldCostsNoRead() {
        Grant held = driver.tryAcquire(request("heard", "held-token")).grant();
        long readsBefore = gets();
        for (int i = 0; i < 50; i++) {
            redis.call("PUBLISH", LockScripts.REVOKED_CHANNEL, "someone-elses-token-" + i + " heard");
        }
        redis.call("PUBLISH", LockScripts.REVOKED_CHANNEL, "held-token other-name");
        // A real revoke's notice comes after them on the same connection: once it is handled, they were too.
        driver.revoke("heard", "maintenance");
        await().atMost(Duration.ofSeconds(5)).until(() -> context.revoked.containsKey(held.ownerToken()));
        assertThat(context.revoked).containsEntry("held-token", "maintenance").hasSize(1);
        assertThat(gets() - readsBefore).as("one GET: the real notice's marker (and the revoke's own GETs)")
                .isLessThanOrEqualTo(1 + 3);
    }

    /** GETs the server ran, scripts' included. */
    private long gets() {
        String stats = (String) redis.call("INFO", "commandstats");
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_get:")) {
                return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
            }
        }
        return 0;
    }
}
