package io.distlock.redlock;

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
import io.distlock.tck.fixtures.RedisNodes;
import io.distlock.tck.fixtures.TestCertificates;

import java.net.URLEncoder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code redlock://...?tls=true}: three independent TLS-only redis-servers (each
 * behind a fault proxy, which passes TLS through), reached as an ACL user with the least rights the
 * backend needs ({@link #LOCKER_RULES}, the line the README gives), trusting the test CA.
 * It runs the safety and security groups only ({@link RuleSelection}), and every security rule must pass.
 */
@RuleSelection(value = "1,6", mustPass = "6")
class RedlockTlsTckTest extends LockVerification {

    /**
     * The least a Redlock user needs on every node: its keys and channels, the native {@code SET} that
     * takes a lock, the scripts that extend and release it (and what they call), {@code INFO} (the
     * restart and replica checks) and {@code PING} (the background reconnect).
     */
    static final String[] LOCKER_RULES = {"~distlock:*", "&distlock:*", "+ping", "+info", "+set", "+get", "+del",
            "+exists", "+pexpire", "+pttl", "+publish", "+eval", "+evalsha", "+script|load"};

    static final String SECRET = "pw-RedlockTls-0b7d";
    static final String INTRUDER_SECRET = "pw-RedlockIntruder-e51a";
    static final String WRONG_SECRET = "pw-RedlockWrong-93c2";
    /** The {@code default} user's password: the fixture's own connections use it, never distlock. */
    static final String ADMIN_SECRET = "pw-Admin-5248";

    /** The default per-node timeout (50 ms), scaled like every TCK timing on a slow machine, as in {@link RedlockTckTest}. */
    private static final long NODE_TIMEOUT_MILLIS = Math.round(50 * new TestEnvironment().timeoutFactor());

    private static RedisNodes nodes;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServers() {
        nodes = RedisNodes.start(3, b -> b.tls(TestCertificates.shared()).password(ADMIN_SECRET)
                .aclUser("locker", SECRET, LOCKER_RULES)
                .aclUser("intruder", INTRUDER_SECRET, otherKeys(LOCKER_RULES)));
        otherCa = TestCertificates.generate();
    }

    @AfterAll
    static void stopServers() {
        nodes.close();
        otherCa.close();
    }

    /** The same commands, on the keys and channels {@code other:*}. */
    static String[] otherKeys(String... rules) {
        List<String> out = new ArrayList<>();
        for (String rule : rules) {
            out.add(rule.equals("~distlock:*") ? "~other:*" : rule.equals("&distlock:*") ? "&other:*" : rule);
        }
        return out.toArray(String[]::new);
    }

    private static String uriAs(String user, String password, TestCertificates ca) {
        TestCertificates.KeyStoreFile store = ca.trustStore();
        return "redlock://" + user + ":" + password + "@" + nodes.endpoints() + "?tls=true&trustStore="
                + URLEncoder.encode(store.path().toString(), UTF_8) + "&trustStoreType=" + store.type()
                + "&trustStorePassword=" + URLEncoder.encode(store.password(), UTF_8) + "&nodeTimeout=" + NODE_TIMEOUT_MILLIS;
    }

    private static LockClient connectAs(String user, String password, TestCertificates ca) {
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

    /** Rule 1.10: the quorum-th longest PTTL among the nodes that hold the lock for one token. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        int quorum = nodes.size() / 2 + 1;
        return Optional.of(lockName -> {
            java.util.Map<String, List<Duration>> heldFor = new java.util.HashMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                List<?> reply = (List<?>) nodes.server(i).call("EVAL", "return {redis.call('GET', KEYS[1]),"
                        + " redis.call('PTTL', KEYS[1])}", "1", LockScripts.lockKey(lockName));
                if (reply.isEmpty() || reply.get(0) == null) {
                    continue;
                }
                String token = reply.get(0) instanceof byte[] bytes ? new String(bytes, UTF_8) : String.valueOf(reply.get(0));
                long pttl = (Long) reply.get(1);
                heldFor.computeIfAbsent(token, t -> new ArrayList<>())
                        .add(pttl == -1 ? LockProbe.UNTIL_RELEASED : Duration.ofMillis(Math.max(0, pttl)));
            }
            return heldFor.values().stream().filter(held -> held.size() >= quorum)
                    .map(held -> held.stream().sorted(Comparator.reverseOrder()).toList().get(quorum - 1))
                    .findFirst();
        });
    }

    @Override
    protected Optional<Security> security() {
        return Optional.of(new Security() {
            @Override
            public List<String> secrets() {
                return List.of(SECRET, INTRUDER_SECRET, WRONG_SECRET, ADMIN_SECRET, TestCertificates.shared().trustStore().password(),
                        otherCa.trustStore().password());
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
                        {"EVAL", "return redis.call('DEL', KEYS[1])", "1", key},
                        {"EVAL", "return redis.call('DEL', '" + key + "')", "0"},
                    };
                    for (int i = 0; i < nodes.size(); i++) {
                        nodes.server(i).tryAs("intruder", attempts); // NOPERM (or a script error carrying it) expected
                    }
                });
            }

            @Override
            public Optional<Supplier<LockClient>> untrustedServer() {
                return Optional.of(() -> connectAs("locker", SECRET, otherCa));
            }
        });
    }
}
