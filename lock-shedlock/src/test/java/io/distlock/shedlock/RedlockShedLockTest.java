package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/** ShedLock's provider suite on Redlock over three {@code redis-server}s ({@code redlock://}). */
class RedlockShedLockTest extends ShedLockSuite {

    private static List<RedisServer> servers = List.of();
    private static Connections connections;

    @BeforeAll
    static void start() {
        servers = Servers.startAll(RedisServer::start, RedisServer::start, RedisServer::start);
        connections = Connections.to("redlock://" + servers.stream().map(RedisServer::endpoint).collect(Collectors.joining(",")));
    }

    @AfterAll
    static void stop() {
        Servers.closeAll(connections);
        Servers.closeAll(servers.toArray(AutoCloseable[]::new));
    }

    /** {@value MS} ms: twice the default nodeTimeout (50 ms): the backend refuses shorter leases. */
    @Override
    protected Duration shortestLockAtMostFor() {
        return Duration.ofMillis(100);
    }

    @Override
    protected Connections connections() {
        return connections;
    }
}
