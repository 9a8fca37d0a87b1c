package io.distlock.redlock;

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
import io.distlock.tck.fixtures.RedisNodes;
import io.distlock.tck.fixtures.TestCertificates;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code redlock://...?tls=true}: three independent TLS-only redis-servers (each
 * behind a fault proxy, which passes TLS through), reached as an ACL user with the least rights the
 * backend needs ({@link #LOCKER_RULES}, the line the README gives), trusting the test CA.
 * It runs the safety and security groups only ({@link RuleSelection}), with rules 5.5 and 5.9 (closed ports, and
 * nodes that accept and never answer, so that each TLS handshake waits), and every security rule must pass.
 */
@RuleSelection(value = "1,5.5,5.9,6", mustPass = "5.5,5.9,6")
class RedlockTlsTckTest extends LockVerification {

    /**
     * The least a Redlock user needs on every node: its keys and channels, the native {@code SET} that
     * takes a lock, the scripts that extend and release it (and what they call), {@code INFO} (the
     * restart and replica checks) and {@code PING} (the background reconnect).
     */
    static final String[] LOCKER_RULES = RedlockInspectionTest.LOCKER_RULES;

    /** The {@code default} user's password is the admin secret: the fixture's own connections use it, never distlock. */
    static final Principals PRINCIPALS = new Principals(List.of(LOCKER_RULES), "pw-RedlockTls-0b7d", "pw-RedlockIntruder-e51a",
            "pw-RedlockWrong-93c2", "pw-Admin-5248");

    /** The default per-node timeout (50 ms), scaled like every TCK timing on a slow machine, as in {@link RedlockTckTest}. */
    private static final long NODE_TIMEOUT_MILLIS = Math.round(50 * new TestEnvironment().timeoutFactor());

    private static RedisNodes nodes;
    private static RedisFamilyHooks hooks;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServers() {
        nodes = RedisNodes.start(3, node -> PRINCIPALS.configure(node.tls(TestCertificates.shared())));
        hooks = RedisFamilyHooks.onQuorum("redlock", nodes, LockScripts::lockKey); // on each node's own (TLS) connection
        otherCa = TestCertificates.generate();
    }

    @AfterAll
    static void stopServers() {
        nodes.close();
        otherCa.close();
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(uriAs(Principals.LOCKER, PRINCIPALS.lockerSecret(), TestCertificates.shared()));
    }

    /** Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does (its password and trust store in the URI). */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(uriAs(Principals.LOCKER, PRINCIPALS.lockerSecret(), TestCertificates.shared())));
    }

    private static String uriAs(String user, String password, TestCertificates ca) {
        return "redlock://" + user + ":" + password + "@" + nodes.endpoints() + "?tls=true&" + RedisFamilyHooks.trustStoreQuery(ca)
                + "&nodeTimeout=" + NODE_TIMEOUT_MILLIS;
    }

    /** Rules 5.5 and 5.9: three nodes on free loopback ports, with TLS, the trust store and the TCK's password. */
    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(RedisFamilyHooks.unreachableUri("redlock", 3, SECRET,
                "?tls=true&" + RedisFamilyHooks.trustStoreQuery(TestCertificates.shared())));
    }

    /** Rule 1.10: the quorum-th longest PTTL among the nodes that hold the lock for one token. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /** Group 6. Besides the lock key's plain writes on every node, the intruder tries to delete it from a script. */
    @Override
    protected Optional<Security> security() {
        return Optional.of(hooks.security(PRINCIPALS, otherCa, (user, password, ca) -> Locks.connect(uriAs(user, password, ca)),
                lockName -> new String[][] {
                    {"EVAL", "return redis.call('DEL', KEYS[1])", "1", LockScripts.lockKey(lockName)},
                    {"EVAL", "return redis.call('DEL', '" + LockScripts.lockKey(lockName) + "')", "0"},
                }));
    }
}
