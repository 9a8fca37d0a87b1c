package io.distlock.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.TestCertificates;
import io.distlock.tck.fixtures.TestCertificates.KeyStoreFile;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rediss://}: the single-Redis backend over TLS, against a real redis-server speaking TLS only. */
class RedisTlsTest {

    static final String SECRET = "pw-Tls77-secret";
    private static final Duration LEASE = Duration.ofSeconds(30);

    /** The least an ACL user needs for this backend: its keys, its channels, and the commands its scripts run. */
    static final String[] LOCKER_RULES = RedisInspectionTest.LOCKER_RULES;

    private final TestCertificates certs = TestCertificates.shared();

    /** {@code ?trustStore=...&trustStoreType=...&trustStorePassword=...} for {@code store}. */
    static String storeQuery(String option, KeyStoreFile store) {
        return option + "=" + encode(store.path().toString()) + "&" + option + "Type=" + store.type() + "&" + option
                + "Password=" + encode(store.password());
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, UTF_8);
    }

    private String trusting(String uri) {
        return uri + "?" + storeQuery("trustStore", certs.trustStore());
    }

    @Test
    void locksOverTlsWithTheTestCaAsTrustStore() {
        try (RedisServer redis = RedisServer.builder().tls(certs).start();
             LockClient a = Locks.connect(trusting(redis.uri()));
             LockClient b = Locks.connect(trusting(redis.uri()))) {
            assertThat(redis.uri()).startsWith("rediss://");
            assertThat(a.backend().scheme()).isEqualTo("rediss");
            Lease lease = a.lock("tls").tryAcquire(LEASE).orElseThrow();
            assertThat(b.lock("tls").tryAcquire(LEASE)).as("held by a").isEmpty();
            assertThat(redis.call("EXISTS", "distlock:{tls}")).isEqualTo(1L);
            lease.release();
            assertThat(redis.call("EXISTS", "distlock:{tls}")).isEqualTo(0L);
            b.lock("tls").tryAcquire(LEASE).orElseThrow().release();
        }
    }

    @Test
    void anAclUserWithTheLeastRightsTakesWaitsForAndReleasesLocks() throws Exception {
        try (RedisServer redis = RedisServer.builder().tls(certs).aclUser("locker", SECRET, LOCKER_RULES).start();
             LockClient holder = Locks.connect(trusting(redis.uri("locker")));
             LockClient waiter = Locks.connect(trusting(redis.uri("locker")))) {
            Lease held = holder.lock("acl").acquire(LEASE);
            held.extend(LEASE);
            // The waiter subscribes to the release channel: it is woken by the release, long before 20 s.
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
                DistributedLock lock = waiter.lock("acl");
                try {
                    return lock.tryAcquire(LEASE, Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            assertThat(waiting).isNotDone();
            long released = System.nanoTime();
            held.release();
            Lease next = waiting.get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(10));
            assertThat(next.fencingToken().getAsLong()).isGreaterThan(held.fencingToken().getAsLong());
            next.release();
            assertThat(holder.toString()).doesNotContain(SECRET, certs.trustStore().password());
            assertThat(redis.call("ACL", "WHOAMI")).isEqualTo("default"); // the fixture's own connection, not the user
        }
    }

    @Test
    void anAclUserWithoutTheLockKeysIsRefusedClearly() {
        try (RedisServer redis = RedisServer.builder().tls(certs).aclUser("other", SECRET, "~other:*", "+@all").start()) {
            Throwable thrown = catchThrowable(() -> {
                try (LockClient client = Locks.connect(trusting(redis.uri("other")))) {
                    client.lock("acl").tryAcquire(LEASE);
                }
            });
            assertThat(thrown).isInstanceOf(AccessDeniedException.class).hasMessageContaining("'other'")
                    .hasMessageContaining(redis.endpoint()).hasMessageContaining("acquire 'acl'");
            assertNoSecret(thrown, SECRET, certs.trustStore().password());
        }
    }

    @Test
    void theJvmDefaultTrustRefusesTheTestCaAsAConfigurationError() {
        LockOptions options = LockOptions.builder().connectTimeout(Duration.ofSeconds(2)).build();
        try (RedisServer redis = RedisServer.builder().tls(certs).aclUser("locker", SECRET, LOCKER_RULES).start()) {
            long start = System.nanoTime();
            Throwable thrown = catchThrowable(() -> Locks.connect(redis.uri("locker"), options).close());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(thrown).isInstanceOf(AuthenticationException.class)
                    .as("an untrusted certificate is a configuration error, not an outage")
                    .hasMessageContaining(redis.endpoint())
                    .hasMessageContaining("TLS");
            assertNoSecret(thrown, SECRET);
        }
    }

    @Test
    void aServerWhoseCertificateNamesAnotherHostIsRefused() {
        try (RedisServer redis = RedisServer.builder().tls(certs, certs.misnamedServer()).start()) {
            assertThatThrownBy(() -> Locks.connect(trusting(redis.uri())).close())
                    .isInstanceOf(AuthenticationException.class)
                    .hasMessageContaining(redis.endpoint())
                    .hasMessageContaining("TLS");
        }
    }

    @Test
    void aSelfSignedServerIsRefusedEvenWithATrustStore() {
        try (RedisServer redis = RedisServer.builder().tls(certs, certs.untrustedServer()).start()) {
            assertThatThrownBy(() -> Locks.connect(trusting(redis.uri())).close())
                    .isInstanceOf(AuthenticationException.class);
        }
    }

    @Test
    void aServerThatRequiresAClientCertificateTakesTheKeyStore() {
        try (RedisServer redis = RedisServer.builder().tls(certs).tlsClientAuth(RedisServer.ClientAuth.YES)
                .aclUser("locker", SECRET, LOCKER_RULES).start()) {
            String withKey = trusting(redis.uri("locker")) + "&" + storeQuery("keyStore", certs.client().keyStore());
            try (LockClient client = Locks.connect(withKey)) {
                client.lock("mtls").tryAcquire(LEASE).orElseThrow().release();
                assertThat(client.toString()).doesNotContain(SECRET, certs.client().keyStore().password());
            }
            // Without a certificate, TLS 1.3 lets the handshake finish and the server then drops the connection.
            Throwable thrown = catchThrowable(() -> {
                try (LockClient client = Locks.connect(trusting(redis.uri("locker")),
                        LockOptions.builder().connectTimeout(Duration.ofSeconds(1)).operationTimeout(Duration.ofSeconds(1)).build())) {
                    client.lock("mtls").tryAcquire(LEASE);
                }
            });
            // The server's refusal arrives either as its certificate_required alert (a LockException
            // naming the TLS handshake) or, if the connection is gone before the alert is read, as
            // a dropped connection (BackendUnavailableException, a LockException too): a race.
            assertThat(thrown).isInstanceOf(LockException.class).hasMessageContaining(redis.endpoint());
            if (!(thrown instanceof BackendUnavailableException)) {
                assertThat(thrown).isInstanceOf(AuthenticationException.class)
                        .hasMessageContaining("TLS handshake").hasMessageContaining("keyStore");
            }
            assertNoSecret(thrown, SECRET, certs.trustStore().password());
        }
    }

    @Test
    void aMissingTrustStoreIsBadInputNamingTheOptionAndTheFile(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-store.p12");
        String uri = "rediss://locker:" + SECRET + "@127.0.0.1:1?trustStore=" + encode(missing.toString())
                + "&trustStorePassword=" + SECRET;
        assertThatThrownBy(() -> Locks.connect(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustStore")
                .hasMessageContaining(missing.toString())
                .satisfies(e -> assertNoSecret(e, SECRET));
    }

    @Test
    void aWrongStorePasswordIsBadInputNamingTheOptionNotThePassword() {
        String uri = "rediss://locker:" + SECRET + "@127.0.0.1:1?trustStore="
                + encode(certs.trustStore().path().toString()) + "&trustStorePassword=wrong-" + SECRET;
        assertThatThrownBy(() -> Locks.connect(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustStorePassword")
                .hasMessageContaining(certs.trustStore().path().toString())
                .satisfies(e -> assertNoSecret(e, SECRET));
        String keyUri = trusting("rediss://127.0.0.1:1") + "&keyStore=" + encode(certs.client().keyStore().path().toString())
                + "&keyStorePassword=wrong-" + SECRET;
        assertThatThrownBy(() -> Locks.connect(keyUri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyStore")
                .satisfies(e -> assertNoSecret(e, SECRET, certs.trustStore().password()));
    }

    @Test
    void anUnknownStoreTypeOrAStorePasswordWithoutAStoreIsBadInput() {
        assertThatThrownBy(() -> Locks.connect("rediss://127.0.0.1:1?trustStore=/x&trustStoreType=PEM"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trustStoreType");
        assertThatThrownBy(() -> Locks.connect("rediss://127.0.0.1:1?keyStorePassword=" + SECRET))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without keyStore")
                .satisfies(e -> assertNoSecret(e, SECRET));
    }

    @Test
    void aTlsOptionOnAPlainUriSaysToUseRediss() {
        assertThatThrownBy(() -> Locks.connect("redis://u:" + SECRET + "@127.0.0.1:1?trustStore=/x&trustStorePassword="
                + SECRET))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use rediss://")
                .hasMessageContaining("add tls=true")
                .satisfies(e -> assertNoSecret(e, SECRET));
    }

    @Test
    void tlsTrueOnRedisIsTheSameAsRediss() {
        try (RedisServer redis = RedisServer.builder().tls(certs).aclUser("locker", SECRET, LOCKER_RULES).start();
             LockClient client = Locks.connect(trusting(redis.uri("locker").replace("rediss://", "redis://")) + "&tls=true")) {
            assertThat(client.backend().scheme()).isEqualTo("redis");
            client.lock("tls-true").tryAcquire(LEASE).orElseThrow().release();
            // Without tls=true the same server is not spoken to in plain text: the TLS option alone is refused.
            assertThatThrownBy(() -> Locks.connect(trusting(redis.uri("locker").replace("rediss://", "redis://"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls=true");
            assertThatThrownBy(() -> Locks.connect(redis.uri("locker") + "?tls=false"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls=false");
            assertThatThrownBy(() -> Locks.connect(redis.uri("locker") + "?tls=yes"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls=true or tls=false");
        }
    }

    @Test
    void theStoreFileIsReadWhenConnecting(@TempDir Path dir) throws Exception {
        // A copy that is unreadable garbage: not a key store at all.
        Path garbage = Files.writeString(dir.resolve("garbage.p12"), "not a key store");
        assertThatThrownBy(() -> Locks.connect("rediss://127.0.0.1:1?trustStore=" + encode(garbage.toString())
                + "&trustStorePassword=" + SECRET))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(garbage.toString())
                .satisfies(e -> assertNoSecret(e, SECRET));
    }

    /** No secret in any message, toString or stack trace of the exception chain. */
    static void assertNoSecret(Throwable thrown, String... secrets) {
        StringWriter trace = new StringWriter();
        thrown.printStackTrace(new PrintWriter(trace));
        assertThat(trace.toString()).doesNotContain(secrets);
    }
}
