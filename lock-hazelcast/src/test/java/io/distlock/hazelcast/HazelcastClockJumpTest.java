package io.distlock.hazelcast;

import io.distlock.Lease;
import io.distlock.tck.PartitionedClient;
import io.distlock.tck.fixtures.HazelcastMemberTasks;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why TCK rule 4.4 is not in {@link HazelcastTckTest}'s selection: the CP group expires a session by
 * its leader's wall clock ({@code Clock.currentTimeMillis()}), so a forward jump of that clock (an NTP
 * step) ends a live session early and frees its locks. The holder learns it at its next heartbeat;
 * until then a second client can be granted the lock while the first still holds a valid lease — the
 * rule saw it in some runs (B granted 0.6–0.7 s after a 10 s jump, A's lease valid for 5 s more) and
 * not in others (A's heartbeat came first: a heartbeat renews the session by the jumped clock). This
 * test shows the part that does not depend on that race: with the holder's heartbeats held back by a
 * partition, the jump ends its session, and its lock, long before the session TTL would have.
 */
class HazelcastClockJumpTest {

    @BeforeAll
    static void startMembers() {
        HazelcastMembers.cp();
    }

    @Test
    void aForwardJumpOfTheCpMembersWallClockEndsASessionBeforeItsTtlAndFreesItsLock() throws Exception {
        Duration ttl = HazelcastMembers.CP_SESSION_TTL;
        try (PartitionedClient holder = HazelcastMembers.clientPartition("hazelcast", HazelcastMembers.cp(), ttl).open()) {
            String name = "clock-jump-" + System.nanoTime();
            Lease lease = holder.client().lock(name).tryAcquire(Duration.ofSeconds(60)).orElseThrow();
            assertThat(HazelcastMembers.cpLocked(name)).isTrue();

            // No heartbeat reaches the group from here on: without the jump the session, and the lock,
            // would last at least the TTL less one heartbeat interval (1 s) from now.
            long cut = System.nanoTime();
            holder.blackholeAll();
            HazelcastMemberTasks.jumpClocks(HazelcastMembers.cp(), ttl.multipliedBy(2));
            Awaitility.await("the lock freed by the group after the jump").atMost(ttl.minusSeconds(2))
                    .until(() -> !HazelcastMembers.cpLocked(name));
            assertThat(Duration.ofNanos(System.nanoTime() - cut)).as("before the session TTL could have passed")
                    .isLessThan(ttl.minusSeconds(1));

            holder.healAll();
            assertThat(lease.lost().toCompletableFuture().get(ttl.toMillis() * 2, TimeUnit.MILLISECONDS))
                    .as("the holder learns that its lock is gone: from the group, or by its own validity running out first")
                    .isIn(Lease.LossReason.BACKEND_LOST, Lease.LossReason.EXPIRED);
        }
    }
}
