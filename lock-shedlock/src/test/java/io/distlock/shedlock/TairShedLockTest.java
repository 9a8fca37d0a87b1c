package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider suite on a {@code redis-server} with the TairString CAS/CAD module ({@code tair://}). */
class TairShedLockTest extends ShedLockSuite {

    private static RedisServer server;
    private static Connections connections;

    @BeforeAll
    static void start() {
        server = RedisServer.builder().tairModule().start();
        connections = Connections.to("tair://" + server.endpoint());
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
