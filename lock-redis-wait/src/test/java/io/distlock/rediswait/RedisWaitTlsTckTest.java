package io.distlock.rediswait;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.Security;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.RedisReplicaSet;
import io.distlock.tck.fixtures.TestCertificates;

import java.net.URLEncoder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code redis-wait://sentinels...?master=...&tls=true}: a primary, two replicas and
 * three Sentinels, all speaking TLS only (replication and Sentinel links too, {@code tls-replication
 * yes}), the data nodes' {@code default} user with a password (which replication and the Sentinels
 * use: {@code masterauth}, {@code auth-pass}) and an ACL user that has the least rights the backend needs
 * ({@link #LOCKER_RULES}, the line the README gives). The Sentinels are asked without credentials,
 * over TLS with the same trust store.
 * It runs the safety and security groups only ({@link RuleSelection}), and every security rule must pass.
 */
@RuleSelection(value = "1,6", mustPass = "6")
class RedisWaitTlsTckTest extends LockVerification {

    /**
     * The least a Redis+WAIT user needs on the data nodes: the single-Redis backend's keys, channels,
     * scripts and notifications, plus {@code WAIT} after each write and {@code ROLE}/{@code INFO} for the
     * checks that it talks to a primary with enough replicas.
     */
    static final String[] LOCKER_RULES = {"~distlock:*", "&distlock:*", "+ping", "+eval", "+evalsha", "+script|load",
            "+subscribe", "+unsubscribe", "+exists", "+set", "+get", "+del", "+incr", "+type", "+pexpire", "+pttl",
            "+publish", "+wait", "+role", "+info"};

    static final String SECRET = "pw-WaitTls-4e02";
    static final String INTRUDER_SECRET = "pw-WaitIntruder-b7c5";
    static final String WRONG_SECRET = "pw-WaitWrong-1d68";
    /** The {@code default} user's password on the data nodes: replication and the Sentinels use it, never distlock. */
    static final String ADMIN_SECRET = "pw-WaitAdmin-c3f9";

    private static final Duration WAIT_TIMEOUT = Duration.ofMillis(Math.round(50 * new TestEnvironment().timeoutFactor()));

    private static RedisReplicaSet redis;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServers() {
        TestCertificates certs = TestCertificates.shared();
        redis = RedisReplicaSet.start(2, 3,
                node -> node.tls(certs).arg("--tls-replication", "yes").password(ADMIN_SECRET)
                        .aclUser("locker", SECRET, LOCKER_RULES)
                        .aclUser("intruder", INTRUDER_SECRET, otherKeys(LOCKER_RULES)),
                sentinel -> sentinel.tls(certs).arg("--tls-replication", "yes"));
        otherCa = TestCertificates.generate();
    }

    @AfterAll
    static void stopServers() {
        if (redis != null) {
            redis.close();
        }
        if (otherCa != null) {
            otherCa.close();
        }
    }

    static RedisReplicaSet set() {
        return redis;
    }

    /** The same commands, on the keys and channels {@code other:*}. */
    static String[] otherKeys(String... rules) {
        List<String> out = new ArrayList<>();
        for (String rule : rules) {
            out.add(rule.equals("~distlock:*") ? "~other:*" : rule.equals("&distlock:*") ? "&other:*" : rule);
        }
        return out.toArray(String[]::new);
    }

    /** {@code &tls=true&trustStore=...} trusting {@code ca}. */
    static String tlsQuery(TestCertificates ca) {
        TestCertificates.KeyStoreFile store = ca.trustStore();
        return "&tls=true&trustStore=" + URLEncoder.encode(store.path().toString(), UTF_8) + "&trustStoreType="
                + store.type() + "&trustStorePassword=" + URLEncoder.encode(store.password(), UTF_8)
                + "&waitTimeout=" + WAIT_TIMEOUT.toMillis();
    }

    static String uriAs(String user, String password, TestCertificates ca) {
        return "redis-wait://" + user + ":" + password + "@" + String.join(",", redis.sentinelEndpoints())
                + "?master=" + RedisReplicaSet.MASTER_NAME + tlsQuery(ca);
    }

    static LockClient connectAs(String user, String password, TestCertificates ca) {
        return Locks.connect(uriAs(user, password, ca));
    }

    @Override
    protected LockClient newClient() {
        return connectAs("locker", SECRET, TestCertificates.shared());
    }

    /** Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does (its password and trust store in the URI). */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(uriAs("locker", SECRET, TestCertificates.shared())));
    }

    /** Rule 1.10: the lock key's PTTL on the primary. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(lockName -> {
            long pttl = (Long) redis.call(redis.primaryIndex(), "PTTL", LockScripts.lockKey(lockName));
            return pttl == -2 ? Optional.empty()
                    : Optional.of(pttl == -1 ? LockProbe.UNTIL_RELEASED : Duration.ofMillis(pttl));
        });
    }

    @Override
    protected Optional<Security> security() {
        return Optional.of(new Security() {
            @Override
            public List<String> secrets() {
                return List.of(SECRET, INTRUDER_SECRET, WRONG_SECRET, ADMIN_SECRET,
                        TestCertificates.shared().trustStore().password(), otherCa.trustStore().password());
            }

            @Override
            public Optional<Supplier<LockClient>> wrongPassword() {
                return Optional.of(() -> connectAs("locker", WRONG_SECRET, TestCertificates.shared()));
            }

            @Override
            public Optional<Supplier<LockClient>> unprivilegedClient() {
                return Optional.of(() -> connectAs("intruder", INTRUDER_SECRET, TestCertificates.shared()));
            }

            @Override
            public Optional<Tamper> tamper() {
                return Optional.of(lockName -> {
                    String key = LockScripts.lockKey(lockName);
                    String[][] attempts = {
                        {"DEL", key}, {"SET", key, "intruder"}, {"PEXPIRE", key, "1"},
                        {"DEL", LockScripts.fenceKey(lockName)},
                        {"EVAL", "return redis.call('DEL', KEYS[1])", "1", key},
                        {"EVAL", "return redis.call('DEL', '" + key + "')", "0"},
                        {"PUBLISH", LockScripts.releaseChannel(lockName), "released"},
                    };
                    redis.node(redis.primaryIndex()).tryAs("intruder", attempts); // NOPERM (or a script error carrying it) expected
                });
            }

            @Override
            public Optional<Supplier<LockClient>> untrustedServer() {
                return Optional.of(() -> connectAs("locker", SECRET, otherCa));
            }
        });
    }
}
