package io.distlock.hazelcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.hazelcast.HazelcastMembers;
import io.distlock.spi.Attempt;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.tck.fixtures.NoEngine;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/**
 * The map lock's holds against real Community members: an extension cut in the middle — its unlock
 * through, its try lost — must not cost the lease (TCK rule 4.21 met it under load, and once in a
 * clean-clone CI run, as a lease reported lost that had lived through a short silence).
 */
class MapLockDriverTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void extensionsCutAfterTheirUnlockLeaveTheLockItsHoldersAndTheReleaseFreesIt() {
        URI uri = URI.create(HazelcastMembers.community().uri("hazelcast-map", ""));
        try (MapLockDriver driver = MapLockDriver.connect(HazelcastEndpoint.parse(uri, true), HazelcastMembers.options(),
                NoEngine.INSTANCE)) {
            String name = "cut-extension-" + UUID.randomUUID();
            Attempt attempt = driver.tryAcquire(new LockRequest(name, UUID.randomUUID().toString(), LEASE));
            assertThat(attempt.isGranted()).as("a free lock").isTrue();
            Grant grant = attempt.grant();

            // Two cut extensions, each followed by a whole one: with two holds the first cut's next
            // extension unlocked the last hold, freed the lock and reported it lost; with three and no
            // hold taken back after a cut, the second one's did.
            for (int cut = 1; cut <= 2; cut++) {
                assertThat(driver.extensionCutAfterItsUnlock(grant)).as("cut %d: the unlock took one of the holder's holds", cut)
                        .isTrue();
                assertThat(HazelcastMembers.mapLocked(name)).as("cut %d: still held on the members", cut).isTrue();
                assertThat(driver.extend(grant, LEASE).isExtended()).as("the extension after cut %d", cut).isTrue();
            }
            assertThat(HazelcastMembers.mapLocked(name)).as("held after the extensions").isTrue();

            assertThat(driver.release(grant)).as("the release found the lock the holder's").isTrue();
            assertThat(HazelcastMembers.mapLocked(name)).as("every hold given back, the ones taken back included").isFalse();
        }
    }
}
