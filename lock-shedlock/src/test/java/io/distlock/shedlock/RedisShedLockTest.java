package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisServer;

/** ShedLock's provider suite on one {@code redis-server} ({@code redis://}). */
class RedisShedLockTest extends ShedLockSuite {

    @Override
    protected Started start() {
        RedisServer server = RedisServer.start();
        return new Started(server.uri(), server);
    }
}
