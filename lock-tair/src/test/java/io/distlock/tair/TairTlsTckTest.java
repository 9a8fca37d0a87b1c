package io.distlock.tair;

import static java.nio.charset.StandardCharsets.UTF_8;

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
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.TestCertificates;

import java.net.URI;
import java.net.URLEncoder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code tair://...?tls=true}: a TLS-only redis-server with the CAS/CAD module,
 * reached as an ACL user with the least rights the backend needs ({@link #LOCKER_RULES}, the line
 * the README gives) and the test CA as trust store. The user's credentials come from
 * {@link LockOptions} here (the URI carries none), the way the README recommends for production.
 * It runs the safety and security groups only ({@link RuleSelection}), and every security rule must pass.
 */
@RuleSelection(value = "1,6", mustPass = "6")
class TairTlsTckTest extends LockVerification {

    /**
     * The least a Tair user needs: its keys and channels, the transaction that takes a lock, CAS and
     * CAD, the notifications, and {@code CLIENT INFO}/{@code CLIENT KILL} for taking back a write whose
     * reply was lost; {@code COMMAND INFO} for the check at connect that CAS and CAD exist.
     */
    static final String[] LOCKER_RULES = {"~distlock:*", "&distlock:*", "+ping", "+command|info", "+client|info",
            "+client|kill", "+multi", "+exec", "+set", "+incr", "+pttl", "+type", "+cas", "+cad", "+publish",
            "+subscribe", "+unsubscribe"};

    static final String SECRET = "pw-TairTls-61a0";
    static final String INTRUDER_SECRET = "pw-TairIntruder-2c94";
    static final String WRONG_SECRET = "pw-TairWrong-7f13";
    /** The {@code default} user's password: the fixture's own connections use it, never distlock. */
    static final String ADMIN_SECRET = "pw-Admin-7035";

    private static RedisServer redis;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.builder().tairModule().tls(TestCertificates.shared()).password(ADMIN_SECRET)
                .aclUser("locker", SECRET, LOCKER_RULES)
                .aclUser("intruder", INTRUDER_SECRET, otherKeys(LOCKER_RULES)).start();
        otherCa = TestCertificates.generate();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
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

    /** {@code tair://127.0.0.1:<port>?tls=true&trustStore=...} trusting {@code ca}, without user info. */
    static String tlsUri(RedisServer server, TestCertificates ca) {
        TestCertificates.KeyStoreFile store = ca.trustStore();
        return "tair://" + server.endpoint() + "?tls=true&trustStore=" + URLEncoder.encode(store.path().toString(), UTF_8)
                + "&trustStoreType=" + store.type() + "&trustStorePassword=" + URLEncoder.encode(store.password(), UTF_8);
    }

    private static LockOptions credentials(String user, String password) {
        return LockOptions.builder().credentials(Credentials.of(user, password)).build();
    }

    private static LockClient connectAs(String user, String password, TestCertificates ca) {
        return Locks.connect(tlsUri(redis, ca), credentials(user, password));
    }

    @Override
    protected LockClient newClient() {
        return connectAs("locker", SECRET, TestCertificates.shared());
    }

    /**
     * Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does, its trust store in
     * the URI and its credentials in the options (which reach the child over its standard input).
     */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(URI.create(tlsUri(redis, TestCertificates.shared())), credentials("locker", SECRET)));
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
                        {"DEL", key}, {"SET", key, "intruder"}, {"PEXPIRE", key, "1"}, {"CAD", key, "intruder"},
                        {"CAS", key, "intruder", "intruder", "PX", "1"}, {"DEL", LockScripts.fenceKey(lockName)},
                        {"PUBLISH", LockScripts.releaseChannel(lockName), "released"},
                    };
                    redis.tryAs("intruder", attempts); // each refusal (NOPERM) is what the rule expects
                });
            }

            @Override
            public Optional<Supplier<LockClient>> untrustedServer() {
                return Optional.of(() -> connectAs("locker", SECRET, otherCa));
            }
        });
    }
}
