package io.distlock.shedlock;

import io.distlock.tck.fixtures.RedisServer;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/** ShedLock's provider suite on Redlock over three {@code redis-server}s ({@code redlock://}). */
class RedlockShedLockTest extends ShedLockSuite {

    @Override
    protected Started start() {
        List<RedisServer> servers = Servers.startAll(RedisServer::start, RedisServer::start, RedisServer::start);
        // nodeTimeout 200 ms, not the default 50: on a loaded 2-core CI machine a node's reply took
        // longer than 50 ms during the fuzz test, and an acquire without a quorum of answers is
        // (rightly) a BackendUnavailableException, which fails the suite's counting.
        return new Started("redlock://" + servers.stream().map(RedisServer::endpoint).collect(Collectors.joining(","))
                + "?nodeTimeout=200", servers);
    }

    /** 400 ms: twice the URI's nodeTimeout (200 ms): the backend refuses shorter leases. */
    @Override
    protected Duration shortestLockAtMostFor() {
        return Duration.ofMillis(400);
    }
}
