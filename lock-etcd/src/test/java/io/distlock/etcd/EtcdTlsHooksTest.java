package io.distlock.etcd;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.tck.Security;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link EtcdTlsTckTest}'s security hook does what it tells the TCK: the wrong password and the
 * untrusted server are refused as authentication failures, the outsider is denied access, and its
 * tampering leaves the holder's lease and key as they were.
 */
class EtcdTlsHooksTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static Security security;
    private static EtcdTlsTckTest verification;

    @BeforeAll
    static void start() {
        EtcdTlsTckTest.startServer();
        verification = new EtcdTlsTckTest();
        security = verification.security().orElseThrow();
    }

    @AfterAll
    static void stop() {
        EtcdTlsTckTest.stopServer();
    }

    /** @return what opening a client and acquiring once threw */
    private static Throwable firstAcquire(Supplier<LockClient> connector) {
        return catchThrowable(() -> {
            try (LockClient client = connector.get()) {
                client.lock("hooks").tryAcquire(LEASE);
            }
        });
    }

    @Test
    void theWrongPasswordAndTheUntrustedServerAreAuthenticationFailures() {
        assertThat(firstAcquire(security.wrongPassword().orElseThrow())).isInstanceOf(AuthenticationException.class)
                .isNotInstanceOf(BackendUnavailableException.class);
        assertThat(firstAcquire(security.untrustedServer().orElseThrow())).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("not trusted");
    }

    @Test
    void theOutsiderIsDeniedAndItsTamperingLeavesTheHolderAsItWas() throws Exception {
        assertThat(firstAcquire(security.unprivilegedClient().orElseThrow())).isInstanceOf(AccessDeniedException.class);
        try (LockClient holder = verification.newClient(); LockClient other = verification.newClient()) {
            Lease held = holder.lock("tampered").tryAcquire(LEASE).orElseThrow();
            Optional<Duration> before = verification.lockProbe().orElseThrow().heldFor("tampered");
            assertThat(before).isPresent();

            security.tamper().orElseThrow().tryToTamper("tampered");

            assertThat(verification.lockProbe().orElseThrow().heldFor("tampered")).isEqualTo(before);
            assertThat(held.isValid()).isTrue();
            assertThat(held.extend(LEASE)).as("the holder's key is still bound to its live session").isTrue();
            assertThat(other.lock("tampered").tryAcquire(LEASE)).as("still held").isEmpty();
            held.release();
            other.lock("tampered").tryAcquire(LEASE).orElseThrow().release();
        }
    }

    @Test
    void theSecretsListEveryPassword() {
        assertThat(security.secrets()).contains(EtcdSecurityTest.LOCKER_PASSWORD, EtcdSecurityTest.OUTSIDER_PASSWORD,
                EtcdSecurityTest.ROOT_PASSWORD).doesNotContainNull();
    }
}
