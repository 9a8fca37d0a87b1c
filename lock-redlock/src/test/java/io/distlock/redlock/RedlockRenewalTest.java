package io.distlock.redlock;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisNodes;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 9, item 3: a renewal is lost only when a majority of nodes answered that the lease is gone.
 * One node that forgot the lock (it answers 0) plus one that is too slow to answer is "could not
 * tell", not a revocation: the lease must not be reported lost, nor deleted on the node that just
 * extended it.
 */
class RedlockRenewalTest {

    private static RedisNodes nodes;

    private final String name = "renewal-" + UUID.randomUUID();

    @BeforeAll
    static void startServers() {
        nodes = RedisNodes.start(3);
    }

    @AfterAll
    static void stopServers() {
        nodes.close();
    }

    @AfterEach
    void heal() {
        nodes.healAll();
    }

    private static Long pttl(int node, String lockName) {
        return (Long) nodes.server(node).call("PTTL", "distlock:{" + lockName + "}");
    }

    @Test
    void oneNodeSayingGoneAndOneTooSlowIsNotALoss() {
        try (LockClient client = Locks.connect(nodes.uri("redlock"))) {
            Lease lease = client.lock(name).tryAcquire(Duration.ofSeconds(3)).orElseThrow().autoRenew();
            CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
            long acquired = System.nanoTime();
            long before = pttl(2, name);
            nodes.server(0).call("DEL", "distlock:{" + name + "}"); // node 0 forgot it (restarted empty)
            nodes.proxy(1).latency(Duration.ofMillis(200));          // node 1 answers too late for the 50 ms node timeout

            // The keeper renews a third into the lease: node 2's key then lives longer than it would have.
            await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20)).until(() ->
                    pttl(2, name) > before - Duration.ofNanos(System.nanoTime() - acquired).toMillis() + 200);

            // The renewal's outcome is decided within two node timeouts (100 ms); for half a second
            // after it, the lease must stand, and so must node 2's key.
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !lost.isDone() && lease.isValid() && pttl(2, name) > 0);
            assertThat(lost).as("one 'gone' and one silence decide nothing: the renewal's outcome is unknown").isNotDone();

            nodes.proxy(1).heal();
            nodes.server(0).call("SET", "distlock:{" + name + "}", "someone-else", "PX", "10000");
            lease.release();
        }
    }
}
