package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.Credentials;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisFamilyHooks;
import io.distlock.tck.fixtures.RedisNodes;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Redlock with credentials from {@link LockOptions}, and how the nodes' refusals are reported. */
class RedlockCredentialsTest {

    private static final String SECRET = "pw-RedlockCred-71f0";
    private static final String ROTATED = "pw-RedlockRotated-0a2b";
    private static final Duration LEASE = Duration.ofSeconds(10);

    private static RedisNodes nodes;

    @BeforeAll
    static void start() {
        nodes = RedisNodes.start(3, b -> b.aclUser("locker", SECRET, RedlockTlsTckTest.LOCKER_RULES)
                .aclUser("intruder", SECRET, RedisFamilyHooks.onOtherKeys(RedlockTlsTckTest.LOCKER_RULES)));
    }

    @AfterAll
    static void stop() {
        nodes.close();
    }

    private static String uri() {
        return "redlock://" + nodes.endpoints() + "?nodeTimeout=200";
    }

    @Test
    void aSupplierIsReadForEveryNodeAndAgainForNewConnectionsSoARotatedPasswordWorks() {
        for (int i = 0; i < nodes.size(); i++) {
            nodes.server(i).call("ACL", "SETUSER", "rotating", "reset", "on", ">" + SECRET, "~distlock:*", "&distlock:*", "+@all");
        }
        AtomicReference<String> current = new AtomicReference<>(SECRET);
        AtomicInteger reads = new AtomicInteger();
        LockOptions options = LockOptions.builder().credentials(() -> {
            reads.incrementAndGet();
            return Credentials.of("rotating", current.get());
        }).build();
        try (LockClient client = Locks.connect(uri(), options)) {
            client.lock("rotate").tryAcquire(LEASE).orElseThrow().release();
        }
        assertThat(reads.get()).as("at least once per node").isGreaterThanOrEqualTo(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            nodes.server(i).call("ACL", "SETUSER", "rotating", "resetpass", ">" + ROTATED);
        }
        current.set(ROTATED);
        try (LockClient client = Locks.connect(uri(), options)) {
            client.lock("rotate").tryAcquire(LEASE).orElseThrow().release();
        }
        current.set(SECRET);
        Throwable stale = catchThrowable(() -> Locks.connect(uri(), options).close());
        assertThat(stale).as("every node refuses the old password").isInstanceOf(AuthenticationException.class);
        RedisTlsAssertions.assertNoSecret(stale, SECRET, ROTATED);
    }

    @Test
    void aWrongPasswordOnEveryNodeIsAnAuthenticationExceptionNotUnavailable() {
        LockOptions options = LockOptions.builder().credentials(Credentials.of("locker", "wrong-" + SECRET)).build();
        Throwable thrown = catchThrowable(() -> Locks.connect(uri(), options).close());
        assertThat(thrown).isInstanceOf(AuthenticationException.class).hasMessageContaining("'locker'");
        RedisTlsAssertions.assertNoSecret(thrown, SECRET);
    }

    @Test
    void aUserWithoutTheLockKeysIsDeniedNotBusyNotUnavailableEvenWhileWaiting() {
        LockOptions options = LockOptions.builder().credentials(Credentials.of("intruder", SECRET)).build();
        try (LockClient client = Locks.connect(uri(), options)) {
            long start = System.nanoTime();
            Throwable thrown = catchThrowable(() -> client.lock("denied").tryAcquire(LEASE, Duration.ofSeconds(20)));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(thrown).isInstanceOf(AccessDeniedException.class).hasMessageContaining("'intruder'");
        }
    }

    @Test
    void rightsRevokedWhileHoldingMakeAnExtensionAccessDeniedNotLost() {
        for (int i = 0; i < nodes.size(); i++) {
            nodes.server(i).call("ACL", "SETUSER", "revoked", "reset", "on", ">" + SECRET, "~distlock:*", "&distlock:*", "+@all");
        }
        LockOptions options = LockOptions.builder().credentials(Credentials.of("revoked", SECRET)).build();
        try (LockClient client = Locks.connect(uri(), options)) {
            io.distlock.Lease lease = client.lock("revoked").tryAcquire(LEASE).orElseThrow();
            for (int i = 0; i < nodes.size(); i++) {
                nodes.server(i).call("ACL", "SETUSER", "revoked", "resetkeys", "~other:*");
            }
            assertThatThrownBy(() -> lease.extend(LEASE)).isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("'revoked'");
            // release() never throws (the engine retries in the background); the key cannot be deleted
            // without the rights and stays until its lease time passes.
            lease.release();
            assertThat(nodes.server(0).call("EXISTS", "distlock:{revoked}")).isEqualTo(1L);
        } finally {
            for (int i = 0; i < nodes.size(); i++) {
                nodes.server(i).call("ACL", "DELUSER", "revoked");
                nodes.server(i).call("DEL", "distlock:{revoked}");
            }
        }
    }

    @Test
    void credentialsInTheUriAndTheOptionsAreRefused() {
        LockOptions options = LockOptions.builder().credentials(Credentials.of("locker", SECRET)).build();
        assertThatThrownBy(() -> Locks.connect("redlock://locker:" + SECRET + "@" + nodes.endpoints(), options))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one place")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
    }

    @Test
    void aTrustStoreWithoutTlsTrueIsRefused() {
        assertThatThrownBy(() -> Locks.connect("redlock://" + nodes.endpoints() + "?trustStore=/x&trustStorePassword=" + SECRET))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls=true")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
    }

    /** No secret anywhere in an exception chain. */
    static final class RedisTlsAssertions {
        static void assertNoSecret(Throwable thrown, String... secrets) {
            java.io.StringWriter trace = new java.io.StringWriter();
            thrown.printStackTrace(new java.io.PrintWriter(trace));
            assertThat(trace.toString()).doesNotContain(secrets);
        }
    }
}
