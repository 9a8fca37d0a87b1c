package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockVerification;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.RedisServer;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The TCK against one real {@code redis-server} on a free loopback port. */
class RedisSingleTckTest extends LockVerification {

    private static RedisServer redis;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(redis.uri());
    }

    @Override
    protected List<String> malformedUris() {
        String base = "redis://alice:" + SECRET + "@127.0.0.1:" + redis.port();
        return List.of(
                "redis://alice:" + SECRET + "@",
                "redis://alice:" + SECRET + "@127.0.0.1:notaport",
                base + "/notadb",
                base + "?noSuchOption=" + SECRET,
                base + "?poolSize=0");
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("redis://alice:" + SECRET + "@127.0.0.1:" + FreePorts.find());
    }

    /** Rule 4.8: the server drops the lock key, as an eviction or an operator would; the holder learns on renewal. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> redis.call("DEL", "distlock:{" + lockName + "}"));
    }
}
