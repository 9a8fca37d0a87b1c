package io.distlock.hazelcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.hazelcast.HazelcastMembers;
import io.distlock.spi.Attempt;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.tck.fixtures.NoEngine;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The map lock's one hold against real Community members: an extension re-enters the lock, then gives
 * the extra hold back with an unlock sent twice, the second an owner check that changes nothing. It
 * must keep a lease whose extension was cut after its try (TCK rule 4.21 met such cuts under load),
 * and must never keep, or leave held, a lock that was lost — free or taken by another owner.
 */
class MapLockDriverTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private MapLockDriver driver;

    @BeforeEach
    void connect() {
        URI uri = URI.create(HazelcastMembers.community().uri("hazelcast-map", ""));
        driver = MapLockDriver.connect(HazelcastEndpoint.parse(uri, true), HazelcastMembers.options(), NoEngine.INSTANCE);
    }

    @AfterEach
    void close() {
        driver.close();
    }

    @Test
    void extensionsCutAfterTheirTryLeaveTheLockItsHoldersAndTheReleaseFreesIt() {
        String name = "cut-extension-" + UUID.randomUUID();
        Grant grant = acquire(name);

        // Two cut extensions, each followed by a whole one: each cut leaves a hold more, which the
        // whole extensions keep and the release must give back too.
        for (int cut = 1; cut <= 2; cut++) {
            assertThat(driver.extensionCutAfterItsTry(grant, LEASE)).as("cut %d: the owner re-entered the lock", cut).isTrue();
            assertThat(driver.extend(grant, LEASE).isExtended()).as("the extension after cut %d", cut).isTrue();
            assertThat(HazelcastMembers.mapLocked(name)).as("held after the extension after cut %d", cut).isTrue();
        }

        assertThat(driver.release(grant)).as("the release found the lock the holder's").isTrue();
        assertThat(HazelcastMembers.mapLocked(name)).as("every hold given back, the cut tries' included").isFalse();
    }

    @Test
    void aRenewalTickKeepsTheLeasesStillHeldAndLeavesNoLostLockHeldByTheLoser() {
        String kept = "kept-" + UUID.randomUUID();
        String freed = "freed-" + UUID.randomUUID();
        String retaken = "retaken-" + UUID.randomUUID();
        Grant keptGrant = acquire(kept);
        Grant freedGrant = acquire(freed);
        Grant retakenGrant = acquire(retaken);

        // Both lost behind their holders' backs: one left free, one taken by another owner.
        HazelcastMembers.forceUnlock(freed);
        HazelcastMembers.forceUnlock(retaken);
        Grant otherOwner = acquire(retaken);

        List<ExtendOutcome> outcomes = driver.extendAll(List.of(new Renewal(keptGrant, LEASE), new Renewal(freedGrant, LEASE),
                new Renewal(retakenGrant, LEASE)));

        assertThat(outcomes.get(0).isExtended()).as("the lease still held").isTrue();
        assertThat(outcomes.get(1).isExtended()).as("the lease whose lock was freed").isFalse();
        assertThat(outcomes.get(1).isUnknown()).as("the freed lock's outcome is known").isFalse();
        assertThat(outcomes.get(2).isExtended()).as("the lease whose lock another owner took").isFalse();
        assertThat(HazelcastMembers.mapLocked(kept)).as("the kept lock").isTrue();
        assertThat(HazelcastMembers.mapLocked(freed)).as("the freed lock, which the extension's try took and gave back").isFalse();

        assertThat(driver.release(otherOwner)).as("the other owner's hold is untouched, and its release frees it").isTrue();
        assertThat(HazelcastMembers.mapLocked(retaken)).as("the retaken lock after the other owner's release").isFalse();
        assertThat(driver.release(keptGrant)).as("the kept lock's release").isTrue();
        assertThat(HazelcastMembers.mapLocked(kept)).as("one release frees a lock no extension left a hold more on").isFalse();
    }

    @Test
    void anExtensionOfALockThatWasLostAndIsFreeReportsItLostAndLeavesItFree() {
        String name = "lost-free-" + UUID.randomUUID();
        Grant grant = acquire(name);
        HazelcastMembers.forceUnlock(name);

        assertThat(driver.extend(grant, LEASE).isExtended()).as("the extension of a lock that was lost").isFalse();
        assertThat(HazelcastMembers.mapLocked(name)).as("the lock the extension's try took is given back").isFalse();
        Grant next = acquire(name);
        assertThat(driver.release(next)).as("the next owner's release").isTrue();
    }

    private Grant acquire(String name) {
        Attempt attempt = driver.tryAcquire(new LockRequest(name, UUID.randomUUID().toString(), LEASE));
        assertThat(attempt.isGranted()).as("%s is free", name).isTrue();
        return attempt.grant();
    }
}
