package io.distlock.rediswait;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.Security;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.RedisFamilyHooks;
import io.distlock.tck.fixtures.RedisFamilyHooks.Principals;
import io.distlock.tck.fixtures.RedisReplicaSet;
import io.distlock.tck.fixtures.TestCertificates;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code redis-wait://sentinels...?master=...&tls=true}: a primary, two replicas and
 * three Sentinels, all speaking TLS only (replication and Sentinel links too, {@code tls-replication
 * yes}), the data nodes' {@code default} user with a password (which replication and the Sentinels
 * use: {@code masterauth}, {@code auth-pass}) and an ACL user that has the least rights the backend needs
 * ({@link #LOCKER_RULES}, the line the README gives). The Sentinels are asked without credentials,
 * over TLS with the same trust store.
 * It runs the safety and security groups only ({@link RuleSelection}), with rules 5.5, 5.8 and 5.9 (a closed port,
 * and Sentinels that accept and never answer, so that the TLS handshake waits), and every security rule must pass.
 */
@RuleSelection(value = "1,5.5,5.8,5.9,6", mustPass = "5.5,5.8,5.9,6")
class RedisWaitTlsTckTest extends LockVerification {

    /**
     * The least a Redis+WAIT user needs on the data nodes: the single-Redis backend's keys, channels,
     * scripts and notifications, plus {@code WAIT} after each write and {@code ROLE}/{@code INFO} for the
     * checks that it talks to a primary with enough replicas.
     */
    static final String[] LOCKER_RULES = {"~distlock:*", "&distlock:*", "+ping", "+eval", "+evalsha", "+script|load",
            "+subscribe", "+unsubscribe", "+exists", "+set", "+get", "+del", "+incr", "+type", "+pexpire", "+pttl",
            "+publish", "+wait", "+role", "+info"};

    /** The data nodes' {@code default} user has the admin secret: replication and the Sentinels use it, never distlock. */
    static final Principals PRINCIPALS = new Principals(List.of(LOCKER_RULES), "pw-WaitTls-4e02", "pw-WaitIntruder-b7c5",
            "pw-WaitWrong-1d68", "pw-WaitAdmin-c3f9");

    static final String SECRET = PRINCIPALS.lockerSecret();

    /** {@code WAIT}'s bound, as {@link RedisWaitTckTest}'s: 75 ms scaled (its replicas acknowledge over TLS here). */
    private static final Duration WAIT_TIMEOUT = new TestEnvironment().scaled(Duration.ofMillis(75));

    private static RedisReplicaSet redis;
    private static RedisFamilyHooks hooks;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServers() {
        TestCertificates certs = TestCertificates.shared();
        redis = RedisReplicaSet.start(2, 3,
                node -> PRINCIPALS.configure(node.tls(certs).arg("--tls-replication", "yes")),
                sentinel -> sentinel.tls(certs).arg("--tls-replication", "yes"));
        hooks = RedisFamilyHooks.onPrimary("redis-wait", redis, LockScripts::lockKey); // on the primary's own (TLS) connection
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

    /** {@code &tls=true&trustStore=...} trusting {@code ca}. */
    static String tlsQuery(TestCertificates ca) {
        return "&tls=true&" + RedisFamilyHooks.trustStoreQuery(ca) + "&waitTimeout=" + WAIT_TIMEOUT.toMillis();
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(uriAs(Principals.LOCKER, SECRET, TestCertificates.shared()));
    }

    /** Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does (its password and trust store in the URI). */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(uriAs(Principals.LOCKER, SECRET, TestCertificates.shared())));
    }

    static String uriAs(String user, String password, TestCertificates ca) {
        return "redis-wait://" + user + ":" + password + "@" + String.join(",", redis.sentinelEndpoints())
                + "?master=" + RedisReplicaSet.MASTER_NAME + tlsQuery(ca);
    }

    /** Rule 5.8: a silent Sentinel listed first, over TLS. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.of(uriAs(Principals.LOCKER, SECRET, TestCertificates.shared())
                .replaceFirst("@", "@" + silentEndpoint + ","));
    }

    /** Rules 5.5 and 5.9: two Sentinels on free loopback ports, with TLS, the trust store and the TCK's password. */
    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(RedisFamilyHooks.unreachableUri("redis-wait", 2, LockVerification.SECRET,
                "?master=" + RedisReplicaSet.MASTER_NAME + tlsQuery(TestCertificates.shared())));
    }

    /** Rule 1.10: the lock key's PTTL on the primary. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /**
     * Group 6. Besides the lock key's plain writes on the primary, the intruder tries to delete the
     * fence, to delete the lock from a script, and to wake its waiters.
     */
    @Override
    protected Optional<Security> security() {
        return Optional.of(hooks.security(PRINCIPALS, otherCa, (user, password, ca) -> Locks.connect(uriAs(user, password, ca)),
                lockName -> new String[][] {
                    {"DEL", LockScripts.fenceKey(lockName)},
                    {"EVAL", "return redis.call('DEL', KEYS[1])", "1", LockScripts.lockKey(lockName)},
                    {"EVAL", "return redis.call('DEL', '" + LockScripts.lockKey(lockName) + "')", "0"},
                    {"PUBLISH", LockScripts.releaseChannel(lockName), "released"},
                }));
    }
}
