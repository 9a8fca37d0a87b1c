package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider suite on one {@code redis-server} ({@code redis://}). */
class RedisShedLockTest extends ShedLockSuite {

    private static RedisServer server;
    private static Connections connections;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        connections = Connections.to(server.uri());
    }

    @AfterAll
    static void stop() {
        Servers.closeAll(connections, server);
    }

    @Override
    protected Connections connections() {
        return connections;
    }
}
