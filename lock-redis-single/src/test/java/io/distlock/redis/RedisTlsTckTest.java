package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.Security;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.TestCertificates;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code rediss://}: a TLS-only redis-server, reached as an ACL user with the least
 * rights the backend needs ({@link RedisTlsTest#LOCKER_RULES}) and the test CA as trust store.
 * It runs the safety and security groups only ({@link RuleSelection}), and every security rule must pass;
 * the plain {@link RedisSingleTckTest} runs every rule.
 *
 * <p>Security (group 6): a second ACL user, {@code intruder}, has the same commands but only the
 * keys and channels {@code other:*}; a client trusting an independent CA stands for a client that
 * meets a server it must not trust.
 */
@RuleSelection(value = "1,6", mustPass = "6")
class RedisTlsTckTest extends LockVerification {

    static final String INTRUDER_SECRET = "pw-Intruder-5b1c";
    static final String WRONG_SECRET = "pw-Wrong-8d3e";
    /** The {@code default} user's password: the fixture's own connections use it, never distlock. */
    static final String ADMIN_SECRET = "pw-Admin-2862";

    private static RedisServer redis;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.builder().tls(TestCertificates.shared()).password(ADMIN_SECRET)
                .aclUser("locker", RedisTlsTest.SECRET, RedisTlsTest.LOCKER_RULES)
                .aclUser("intruder", INTRUDER_SECRET, intruderRules(RedisTlsTest.LOCKER_RULES)).start();
        otherCa = TestCertificates.generate();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
        otherCa.close();
    }

    /** The same commands as {@code rules}, on the keys and channels {@code other:*} instead of {@code distlock:*}. */
    static String[] intruderRules(String... rules) {
        List<String> out = new ArrayList<>();
        for (String rule : rules) {
            out.add(rule.equals("~distlock:*") ? "~other:*" : rule.equals("&distlock:*") ? "&other:*" : rule);
        }
        return out.toArray(String[]::new);
    }

    private static String trusting(String uri, TestCertificates ca) {
        return uri + "?" + RedisTlsTest.storeQuery("trustStore", ca.trustStore());
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(trusting(redis.uri("locker"), TestCertificates.shared()));
    }

    /** Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does (its password and trust store in the URI). */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(trusting(redis.uri("locker"), TestCertificates.shared())));
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

    @Override
    protected Optional<Security> security() {
        return Optional.of(new Security() {
            @Override
            public List<String> secrets() {
                return List.of(RedisTlsTest.SECRET, INTRUDER_SECRET, WRONG_SECRET, ADMIN_SECRET,
                        TestCertificates.shared().trustStore().password(), otherCa.trustStore().password());
            }

            @Override
            public Optional<Supplier<LockClient>> wrongPassword() {
                return Optional.of(() -> Locks.connect(trusting("rediss://locker:" + WRONG_SECRET + "@" + redis.endpoint(),
                        TestCertificates.shared())));
            }

            @Override
            public Optional<Supplier<LockClient>> unprivilegedClient() {
                return Optional.of(() -> Locks.connect(trusting(redis.uri("intruder"), TestCertificates.shared())));
            }

            @Override
            public Optional<Tamper> tamper() {
                return Optional.of(lockName -> tamperAs(redis, "intruder", lockName));
            }

            @Override
            public Optional<Supplier<LockClient>> untrustedServer() {
                return Optional.of(() -> Locks.connect(trusting(redis.uri("locker"), otherCa)));
            }
        });
    }

    /**
     * As {@code user}, on the fixture's own connection: delete, overwrite and re-expire the lock's
     * keys, directly and from a script; each refusal ({@code NOPERM}) is swallowed.
     */
    static void tamperAs(RedisServer server, String user, String lockName) {
        String key = LockScripts.lockKey(lockName);
        String fence = LockScripts.fenceKey(lockName);
        String[][] attempts = {
            {"DEL", key}, {"SET", key, "intruder"}, {"PEXPIRE", key, "1"}, {"DEL", fence}, {"SET", fence, "0"},
            {"EVAL", "return redis.call('DEL', KEYS[1])", "1", key},
            {"EVAL", "return redis.call('DEL', '" + key + "')", "0"},
            {"PUBLISH", LockScripts.releaseChannel(lockName), "released"},
        };
        server.tryAs(user, attempts); // each refusal (NOPERM, or a script error carrying it) is what the rule expects
    }
}
