package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisServer;

/** ShedLock's provider suite on a {@code redis-server} with the TairString CAS/CAD module ({@code tair://}). */
class TairShedLockTest extends ShedLockSuite {

    @Override
    protected Started start() {
        RedisServer server = RedisServer.builder().tairModule().start();
        return new Started("tair://" + server.endpoint(), server);
    }
}
