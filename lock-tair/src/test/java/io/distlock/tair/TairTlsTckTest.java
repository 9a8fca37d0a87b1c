package io.distlock.tair;

import io.distlock.Credentials;
import io.distlock.LockClient;
import io.distlock.LockOptions;
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

import java.net.URI;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code tair://...?tls=true}: a TLS-only redis-server with the CAS/CAD module,
 * reached as an ACL user with the least rights the backend needs ({@link #LOCKER_RULES}, the line
 * the README gives) and the test CA as trust store. The user's credentials come from
 * {@link LockOptions} here (the URI carries none), the way the README recommends for production.
 * It runs the safety and security groups only ({@link RuleSelection}), with rules 5.5 and 5.9 (a closed port, and
 * one that accepts and never answers, so that the TLS handshake waits), and every security rule must pass.
 */
@RuleSelection(value = "1,5.5,5.9,6", mustPass = "5.5,5.9,6")
class TairTlsTckTest extends LockVerification {

    /**
     * The least a Tair user needs: its keys and channels, the transaction that takes a lock, CAS and
     * CAD, the notifications, and {@code CLIENT INFO}/{@code CLIENT KILL} for taking back a write whose
     * reply was lost; {@code COMMAND INFO} for the check at connect that CAS and CAD exist.
     */
    static final String[] LOCKER_RULES = TairInspectionTest.LOCKER_RULES;

    /** The {@code default} user's password is the admin secret: the fixture's own connections use it, never distlock. */
    static final Principals PRINCIPALS = new Principals(List.of(LOCKER_RULES), "pw-TairTls-61a0", "pw-TairIntruder-2c94",
            "pw-TairWrong-7f13", "pw-Admin-7035");

    private static RedisServer redis;
    private static RedisFamilyHooks hooks;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServer() {
        redis = PRINCIPALS.configure(RedisServer.builder().tairModule().tls(TestCertificates.shared())).start();
        hooks = RedisFamilyHooks.onServer("tair", redis, LockScripts::lockKey); // on the fixture's own (TLS) connection
        otherCa = TestCertificates.generate();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
        otherCa.close();
    }

    /** {@code tair://127.0.0.1:<port>?tls=true&trustStore=...} trusting {@code ca}, without user info. */
    private static String tlsUri(TestCertificates ca) {
        return "tair://" + redis.endpoint() + "?tls=true&" + RedisFamilyHooks.trustStoreQuery(ca);
    }

    /** Credentials in the options, not the URI: what the README recommends for production. */
    private static LockOptions credentials(String user, String password) {
        return LockOptions.builder().credentials(Credentials.of(user, password)).build();
    }

    private static LockClient connectAs(String user, String password, TestCertificates ca) {
        return Locks.connect(tlsUri(ca), credentials(user, password));
    }

    @Override
    protected LockClient newClient() {
        return connectAs(Principals.LOCKER, PRINCIPALS.lockerSecret(), TestCertificates.shared());
    }

    /**
     * Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does, its trust store in
     * the URI and its credentials in the options (which reach the child over its standard input).
     */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(URI.create(tlsUri(TestCertificates.shared())),
                credentials(Principals.LOCKER, PRINCIPALS.lockerSecret())));
    }

    /** Rules 5.5 and 5.9: a free loopback port, with TLS, the trust store and the TCK's password (in the URI, as the rules ask). */
    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(RedisFamilyHooks.unreachableUri("tair", 1, SECRET, "?tls=true&"
                + RedisFamilyHooks.trustStoreQuery(TestCertificates.shared())));
    }

    /** Rule 1.10: the lock key's PTTL. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /**
     * Group 6. Besides the lock key's plain writes, the intruder tries to take it over or release it
     * with CAS and CAD, to delete the fence, and to wake its waiters.
     */
    @Override
    protected Optional<Security> security() {
        return Optional.of(hooks.security(PRINCIPALS, otherCa, TairTlsTckTest::connectAs, lockName -> new String[][] {
            {"CAD", LockScripts.lockKey(lockName), "intruder"},
            {"CAS", LockScripts.lockKey(lockName), "intruder", "intruder", "PX", "1"},
            {"DEL", LockScripts.fenceKey(lockName)},
            {"PUBLISH", LockScripts.releaseChannel(lockName), "released"},
        }));
    }
}
