package io.distlock.hazelcast;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.HazelcastMemberTasks;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why TCK rule 4.4 is not in {@link HazelcastTckTest}'s selection: the CP group expires a session by
 * its leader's wall clock ({@code Clock.currentTimeMillis()}), so a forward jump of that clock (an NTP
 * step) ends a live session early and frees its locks. The holder learns it at its next heartbeat;
 * until then a second client can be granted the lock while the first still holds a valid lease — the
 * rule saw it in some runs (B granted 0.6–0.7 s after a 10 s jump, A's lease valid for 5 s more) and
 * not in others (A's heartbeat came first). Only the fencing token protects the data then. This test
 * shows the part that does not depend on that race: the session, and the lock, end with the jump,
 * long before the lease or the session TTL would have ended them.
 */
class HazelcastClockJumpTest {

    @BeforeAll
    static void startMembers() {
        HazelcastMembers.cp();
    }

    @Test
    void aForwardJumpOfTheCpMembersWallClockEndsALiveSessionAndFreesItsLock() throws Exception {
        try (LockClient client = Locks.connect(URI.create(HazelcastMembers.cp().uri("hazelcast", "")), HazelcastMembers.options())) {
            String name = "clock-jump-" + System.nanoTime();
            Lease lease = client.lock(name).tryAcquire(Duration.ofSeconds(60)).orElseThrow();
            assertThat(HazelcastMembers.cpLocked(name)).isTrue();
            long jumped = System.nanoTime();
            HazelcastMemberTasks.jumpClocks(HazelcastMembers.cp(), HazelcastMembers.CP_SESSION_TTL.multipliedBy(2));

            // Without the jump the session lives on (heartbeats every second) and the lease lasts 60 s.
            Awaitility.await("the lock freed by the group after the jump").atMost(HazelcastMembers.CP_SESSION_TTL)
                    .until(() -> !HazelcastMembers.cpLocked(name));
            assertThat(lease.lost().toCompletableFuture().get(HazelcastMembers.CP_SESSION_TTL.toMillis(), TimeUnit.MILLISECONDS))
                    .as("the holder learns that its session ended").isEqualTo(Lease.LossReason.BACKEND_LOST);
            assertThat(Duration.ofNanos(System.nanoTime() - jumped)).as("well before the session TTL could have passed")
                    .isLessThan(HazelcastMembers.CP_SESSION_TTL.plusSeconds(1));
        }
    }
}
