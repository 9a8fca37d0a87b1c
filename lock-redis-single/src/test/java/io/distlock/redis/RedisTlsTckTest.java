package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.Security;
import io.distlock.tck.fixtures.RedisFamilyHooks;
import io.distlock.tck.fixtures.RedisFamilyHooks.Principals;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.TestCertificates;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code rediss://}: a TLS-only redis-server, reached as an ACL user with the least
 * rights the backend needs ({@link RedisTlsTest#LOCKER_RULES}) and the test CA as trust store.
 * It runs the safety and security groups only ({@link RuleSelection}), with rules 5.5 and 5.9 (a closed port, and
 * one that accepts and never answers, so that the TLS handshake waits), and every security rule must pass;
 * the plain {@link RedisSingleTckTest} runs every rule.
 *
 * <p>Security (group 6): a second ACL user, {@code intruder}, has the same commands but only the
 * keys and channels {@code other:*}; a client trusting an independent CA stands for a client that
 * meets a server it must not trust.
 */
@RuleSelection(value = "1,5.5,5.9,6", mustPass = "5.5,5.9,6")
class RedisTlsTckTest extends LockVerification {

    /** The {@code default} user's password is the admin secret: the fixture's own connections use it, never distlock. */
    static final Principals PRINCIPALS = new Principals(List.of(RedisTlsTest.LOCKER_RULES), RedisTlsTest.SECRET,
            "pw-Intruder-5b1c", "pw-Wrong-8d3e", "pw-Admin-2862");

    private static RedisServer redis;
    private static RedisFamilyHooks hooks;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServer() {
        redis = PRINCIPALS.configure(RedisServer.builder().tls(TestCertificates.shared())).start();
        hooks = RedisFamilyHooks.onServer("rediss", redis, LockScripts::lockKey); // on the fixture's own (TLS) connection
        otherCa = TestCertificates.generate();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
        otherCa.close();
    }

    private static String trusting(String uri, TestCertificates ca) {
        return uri + "?" + RedisFamilyHooks.trustStoreQuery(ca);
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(trusting(redis.uri(Principals.LOCKER), TestCertificates.shared()));
    }

    /** Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does (its password and trust store in the URI). */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(trusting(redis.uri(Principals.LOCKER), TestCertificates.shared())));
    }

    /** Rules 5.5 and 5.9: {@code rediss://} with a password and the trust store, on a free loopback port. */
    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(trusting(RedisFamilyHooks.unreachableUri("rediss", 1, SECRET, ""), TestCertificates.shared()));
    }

    /** Rule 1.10: the lock key's PTTL. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /**
     * Group 6. Besides the lock key's plain writes, the intruder tries to reset the fence, to delete
     * the lock from a script, and to wake its waiters.
     */
    @Override
    protected Optional<Security> security() {
        return Optional.of(hooks.security(PRINCIPALS, otherCa, (user, password, ca) ->
                Locks.connect(trusting("rediss://" + user + ":" + password + "@" + redis.endpoint(), ca)),
                lockName -> new String[][] {
                    {"DEL", LockScripts.fenceKey(lockName)}, {"SET", LockScripts.fenceKey(lockName), "0"},
                    {"EVAL", "return redis.call('DEL', KEYS[1])", "1", LockScripts.lockKey(lockName)},
                    {"EVAL", "return redis.call('DEL', '" + LockScripts.lockKey(lockName) + "')", "0"},
                    {"PUBLISH", LockScripts.releaseChannel(lockName), "released"},
                }));
    }
}
