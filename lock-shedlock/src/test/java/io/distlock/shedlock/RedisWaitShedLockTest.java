package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;

/** ShedLock's provider suite on a Redis primary with one replica, through {@code redis-wait://}. */
class RedisWaitShedLockTest extends ShedLockSuite {

    private static List<RedisServer> servers = List.of();
    private static Connections connections;

    @BeforeAll
    static void start() {
        servers = Servers.startAll(RedisServer::start, RedisServer::start);
        RedisServer primary = servers.get(0);
        RedisServer replica = servers.get(1);
        replica.call("REPLICAOF", primary.host(), Integer.toString(primary.port()));
        await().atMost(Duration.ofSeconds(30)).until(() ->
                String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up"));
        connections = Connections.to("redis-wait://" + primary.endpoint() + "?replicas=1");
    }

    @AfterAll
    static void stop() {
        Servers.closeAll(connections);
        Servers.closeAll(servers.toArray(AutoCloseable[]::new));
    }

    /** {@value MS} ms: longer than the default waitTimeout (50 ms): the backend refuses leases not longer than it. */
    @Override
    protected Duration shortestLockAtMostFor() {
        return Duration.ofMillis(60);
    }

    @Override
    protected Connections connections() {
        return connections;
    }
}
