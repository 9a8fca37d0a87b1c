package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.Credentials;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisServer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Credentials from {@link LockOptions} (fixed or a supplier read at each connect) against a real
 * redis-server with ACL users, and how refusals are reported: {@link AuthenticationException},
 * {@link AccessDeniedException}, never a password in a message.
 */
class RedisCredentialsTest {

    private static final String SECRET = "pw-Cred42-secret";
    private static final String ROTATED = "pw-Rotated42-secret";
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.builder().password("admin-" + SECRET)
                .aclUser("locker", SECRET, RedisTlsTest.LOCKER_RULES)
                .aclUser("other", SECRET, "~other:*", "&other:*", "+@all").start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    private static String plainUri() {
        return "redis://" + redis.endpoint();
    }

    @Test
    void credentialsInTheOptionsAuthenticate() {
        LockOptions options = LockOptions.builder().credentials(Credentials.of("locker", SECRET)).build();
        try (LockClient client = Locks.connect(plainUri(), options)) {
            client.lock("opts").tryAcquire(LEASE).orElseThrow().release();
            assertThat(client.toString()).doesNotContain(SECRET);
        }
    }

    @Test
    void aPasswordAloneInTheOptionsIsTheDefaultUsers() {
        LockOptions options = LockOptions.builder().credentials(Credentials.of(null, "admin-" + SECRET)).build();
        try (LockClient client = Locks.connect(plainUri(), options)) {
            client.lock("default-user").tryAcquire(LEASE).orElseThrow().release();
        }
    }

    @Test
    void credentialsInBothTheUriAndTheOptionsAreRefusedBeforeAnyIo() {
        LockOptions options = LockOptions.builder().credentials(Credentials.of("locker", SECRET)).build();
        assertThatThrownBy(() -> Locks.connect(redis.uri("locker"), options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one place")
                .satisfies(e -> RedisTlsTest.assertNoSecret(e, SECRET));
    }

    @Test
    void aSupplierIsReadAgainForEveryNewConnectionSoARotatedPasswordWorks() {
        AtomicReference<String> current = new AtomicReference<>(SECRET);
        AtomicInteger reads = new AtomicInteger();
        LockOptions options = LockOptions.builder().credentials(() -> {
            reads.incrementAndGet();
            return Credentials.of("rotating", current.get());
        }).build();
        redis.call("ACL", "SETUSER", "rotating", "reset", "on", ">" + SECRET, "~distlock:*", "&distlock:*", "+@all");
        try (LockClient before = Locks.connect(plainUri(), options)) {
            before.lock("rotate").tryAcquire(LEASE).orElseThrow().release();
            assertThat(reads.get()).as("read at connect").isPositive();
            // The secret rotates on the server: the old password stops working, the new one works.
            redis.call("ACL", "SETUSER", "rotating", "resetpass", ">" + ROTATED);
            current.set(ROTATED);
            int readsBefore = reads.get();
            try (LockClient after = Locks.connect(plainUri(), options)) {
                after.lock("rotate").tryAcquire(LEASE).orElseThrow().release();
            }
            assertThat(reads.get()).as("read again by the new connection").isGreaterThan(readsBefore);
            // A supplier still handing out the old password is refused as an authentication failure.
            current.set(SECRET);
            Throwable stale = catchThrowable(() -> Locks.connect(plainUri(), options).close());
            assertThat(stale).isInstanceOf(AuthenticationException.class).hasMessageContaining(redis.endpoint())
                    .hasMessageContaining("'rotating'");
            RedisTlsTest.assertNoSecret(stale, SECRET, ROTATED);
        } finally {
            redis.call("ACL", "DELUSER", "rotating");
        }
    }

    @Test
    void aFailingSupplierIsALockExceptionNamingNoSecret() {
        LockOptions options = LockOptions.builder().credentials(() -> {
            throw new IllegalStateException("vault down, token " + SECRET);
        }).build();
        Throwable thrown = catchThrowable(() -> Locks.connect(plainUri(), options).close());
        assertThat(thrown).isInstanceOf(LockException.class).hasMessageContaining("credentials supplier");
        RedisTlsTest.assertNoSecret(thrown, SECRET);
    }

    @Test
    void aWrongPasswordIsAnAuthenticationExceptionNamingTheUserNotThePassword() {
        LockOptions options = LockOptions.builder().credentials(Credentials.of("locker", "wrong-" + SECRET)).build();
        long start = System.nanoTime();
        Throwable thrown = catchThrowable(() -> Locks.connect(plainUri(), options).close());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(thrown).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining(redis.endpoint()).hasMessageContaining("'locker'");
        assertThat(((AuthenticationException) thrown).endpoint()).isEqualTo(redis.endpoint());
        RedisTlsTest.assertNoSecret(thrown, SECRET);
    }

    @Test
    void aPasswordForAServerThatHasNoneIsAnAuthenticationException() {
        try (RedisServer open = RedisServer.start()) {
            LockOptions options = LockOptions.builder().credentials(Credentials.of(null, SECRET)).build();
            Throwable thrown = catchThrowable(() -> Locks.connect("redis://" + open.endpoint(), options).close());
            assertThat(thrown).isInstanceOf(AuthenticationException.class).hasMessageContaining(open.endpoint());
            RedisTlsTest.assertNoSecret(thrown, SECRET);
        }
    }

    @Test
    void noPasswordWhereOneIsRequiredIsAnAuthenticationException() {
        assertThatThrownBy(() -> Locks.connect(plainUri()).close())
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("requires a password");
    }

    @Test
    void aUserWithoutTheLockKeysIsDeniedAtOnceEvenWhileWaiting() {
        try (LockClient other = Locks.connect(redis.uri("other"))) {
            long start = System.nanoTime();
            Throwable thrown = catchThrowable(() -> other.lock("denied").tryAcquire(LEASE, Duration.ofSeconds(20)));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no retry loop").isLessThan(Duration.ofSeconds(5));
            assertThat(thrown).isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("'other'").hasMessageContaining("'denied'").hasMessageContaining(redis.endpoint());
            assertThat(((AccessDeniedException) thrown).endpoint()).isEqualTo(redis.endpoint());
            RedisTlsTest.assertNoSecret(thrown, SECRET);
        }
        assertThat(redis.call("EXISTS", "distlock:{denied}")).as("nothing left held").isEqualTo(0L);
    }
}
