package io.distlock.rediswait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.tck.Security;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The parts of {@link RedisWaitTlsVerification}'s security hook do what group 6 of the TCK expects of
 * them: checked by hand here, so that a hook that cannot fail the rules is caught without the TCK.
 */
class SecurityHooksTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final RedisWaitTlsVerification VERIFICATION = new RedisWaitTlsVerification();
    private static Security security;

    @BeforeAll
    static void start() {
        RedisWaitTlsVerification.startServers();
        security = VERIFICATION.security().orElseThrow();
    }

    @AfterAll
    static void stop() {
        RedisWaitTlsVerification.stopServers();
    }

    /** The refusal may come from the connect or from the first acquire, as rule 6.x allows. */
    private static Throwable refusalOf(Supplier<LockClient> connect) {
        return catchThrowable(() -> {
            try (LockClient client = connect.get()) {
                client.lock("hooks").tryAcquire(LEASE, Duration.ofSeconds(10));
            }
        });
    }

    @Test
    void theWrongPasswordIsAnAuthenticationFailureAtOnce() {
        long start = System.nanoTime();
        Throwable thrown = refusalOf(security.wrongPassword().orElseThrow());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(thrown).isInstanceOf(AuthenticationException.class);
        assertNoSecret(thrown);
    }

    @Test
    void theUnprivilegedClientIsDeniedAndItsTamperingLeavesTheLeaseIntact() throws Exception {
        Throwable thrown = refusalOf(security.unprivilegedClient().orElseThrow());
        assertThat(thrown).isInstanceOf(AccessDeniedException.class);
        assertNoSecret(thrown);
        try (LockClient holder = VERIFICATION.newClient()) {
            Lease lease = holder.lock("hooks-tamper").tryAcquire(LEASE).orElseThrow();
            security.tamper().orElseThrow().tryToTamper("hooks-tamper");
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remaining()).isGreaterThan(LEASE.minusSeconds(5));
            lease.extend(LEASE); // still ours on the server
            try (LockClient other = VERIFICATION.newClient()) {
                assertThat(other.lock("hooks-tamper").tryAcquire(LEASE)).as("still held").isEmpty();
            }
            lease.release();
        }
    }

    @Test
    void aClientTrustingAnotherCaRefusesTheServer() {
        Throwable thrown = refusalOf(security.untrustedServer().orElseThrow());
        assertThat(thrown).isInstanceOf(AuthenticationException.class).hasMessageContaining("TLS");
        assertNoSecret(thrown);
    }

    private static void assertNoSecret(Throwable thrown) {
        StringWriter trace = new StringWriter();
        thrown.printStackTrace(new PrintWriter(trace));
        assertThat(trace.toString()).doesNotContain(security.secrets());
    }
}
