package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisServer;

import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;

/** ShedLock's provider suite on a Redis primary with one replica, through {@code redis-wait://}. */
class RedisWaitShedLockTest extends ShedLockSuite {

    @Override
    protected Started start() {
        List<RedisServer> servers = Servers.startAll(RedisServer::start, RedisServer::start);
        RedisServer primary = servers.get(0);
        RedisServer replica = servers.get(1);
        try {
            replica.call("REPLICAOF", primary.host(), Integer.toString(primary.port()));
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up"));
        } catch (RuntimeException e) {
            Servers.closeAll(primary, replica);
            throw e;
        }
        // waitTimeout 200 ms, not the default 50: on a loaded 2-core CI machine the replica's
        // acknowledgement took longer than 50 ms during the fuzz test, and an unacknowledged grant
        // is (rightly) a BackendUnavailableException, which fails the suite's counting.
        return new Started("redis-wait://" + primary.endpoint() + "?replicas=1&waitTimeout=200", servers);
    }

    /** 250 ms: longer than the URI's waitTimeout (200 ms): the backend refuses leases not longer than it. */
    @Override
    protected Duration shortestLockAtMostFor() {
        return Duration.ofMillis(250);
    }
}
