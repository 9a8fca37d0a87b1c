package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.internal.LockScripts;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.TestCertificates;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code rediss://}: a TLS-only redis-server, reached as an ACL user with the least
 * rights the backend needs ({@link RedisTlsTest#LOCKER_RULES}) and the test CA as trust store.
 * Not run on its own (its name is not a test's): {@link RedisTlsTckTest} runs its safety group,
 * the rules that would show a transport that lost or mixed up replies; the plain
 * {@link RedisSingleTckTest} runs every rule.
 */
class RedisTlsVerification extends LockVerification {

    private static RedisServer redis;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.builder().tls(TestCertificates.shared())
                .aclUser("locker", RedisTlsTest.SECRET, RedisTlsTest.LOCKER_RULES).start();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(redis.uri("locker") + "?"
                + RedisTlsTest.storeQuery("trustStore", TestCertificates.shared().trustStore()));
    }

    /** Rule 1.10: the lock key's PTTL, read by the fixture's own (TLS) connection. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(lockName -> {
            long pttl = (Long) redis.call("PTTL", LockScripts.lockKey(lockName));
            return pttl == -2 ? Optional.empty()
                    : Optional.of(pttl == -1 ? LockProbe.UNTIL_RELEASED : Duration.ofMillis(pttl));
        });
    }
}
