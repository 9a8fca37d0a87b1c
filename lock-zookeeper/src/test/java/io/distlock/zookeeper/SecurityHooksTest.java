package io.distlock.zookeeper;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.tck.LockProbe;
import io.distlock.tck.Security;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The security hooks {@link ZooKeeperTlsTckTest} gives the TCK's group 6 do what they say,
 * checked by hand: the wrong password and the untrusted server are refused at connect as
 * {@link AuthenticationException}, the unprivileged principal's acquire is an
 * {@link AccessDeniedException}, tampering leaves the holder's lease intact, and no refusal shows
 * a secret.
 */
class SecurityHooksTest {

    private static final ZooKeeperTlsTckTest VERIFICATION = new ZooKeeperTlsTckTest();

    @BeforeAll
    static void start() {
        ZooKeeperTlsTckTest.startServer();
    }

    @AfterAll
    static void stop() {
        ZooKeeperTlsTckTest.stopServer();
    }

    private static Security security() {
        return VERIFICATION.security().orElseThrow();
    }

    @Test
    void aWrongPasswordAndAnUntrustedServerAreRefusedAtConnectWithinItsTimeout() {
        List<Throwable> seen = new ArrayList<>();
        for (Supplier<LockClient> connector : List.of(security().wrongPassword().orElseThrow(), security().untrustedServer().orElseThrow())) {
            long start = System.nanoTime();
            assertThatThrownBy(connector::get).isInstanceOf(AuthenticationException.class).satisfies(seen::add);
            // A refusal taken for an outage would be retried until the connect timeout ran out and end
            // as unavailable; the type above says it was not, the time that it did not wait for it.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ZooKeeperTlsTckTest.TIMEOUT);
        }
        assertThat(seen.get(0)).hasMessageContaining("wrong password for user 'locker'");
        assertThat(seen.get(1)).hasMessageContaining("TLS handshake");
        assertNoSecretIn(seen);
    }

    /**
     * Each connect with a password over TLS gets its session on its first connection. The digest sent
     * with the connect request could be answered first by ZooKeeper's Netty server; the client then
     * took that answer for the connect response, dropped the connection and tried again up to a
     * second later, leaving behind a session the server had already created. Counted by session ids,
     * which a standalone server hands out in sequence: between two marks (plain clients' sessions), a
     * connect makes one.
     */
    @Test
    void eachConnectWithAPasswordOverTlsCreatesOneSession() throws Exception {
        for (int k = 0; k < 12; k++) {
            long before = markSession();
            LockClient client = VERIFICATION.newClient();
            long after = markSession();
            client.close();
            assertThat(after - before - 1).as("sessions created by connect %d", k).isEqualTo(1);
        }
    }

    /** @return the id of a new session of a plain client (no password), closed at once */
    private static long markSession() throws Exception {
        ZooKeeper raw = ZooKeeperTlsTckTest.rawClient(null);
        try {
            return raw.getSessionId();
        } finally {
            raw.close();
        }
    }

    @Test
    void theUnprivilegedPrincipalIsDeniedAndTamperingLeavesTheLeaseIntact() throws Exception {
        String name = "tamper-" + System.nanoTime();
        LockProbe probe = VERIFICATION.lockProbe().orElseThrow();
        try (LockClient holder = VERIFICATION.newClient(); LockClient other = VERIFICATION.newClient();
             LockClient mallory = security().unprivilegedClient().orElseThrow().get()) {
            Lease lease = holder.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            long start = System.nanoTime();
            Throwable denied = org.assertj.core.api.Assertions.catchThrowable(() -> mallory.lock(name).tryAcquire(Duration.ofSeconds(10)));
            assertThat(denied).isInstanceOf(AccessDeniedException.class).hasMessageContaining("user 'mallory'");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not retried until the wait ran out")
                    .isLessThan(Duration.ofSeconds(10));

            security().tamper().orElseThrow().tryToTamper(name);
            assertThat(lease.isValid()).isTrue();
            assertThat(probe.heldFor(name)).contains(LockProbe.UNTIL_RELEASED);
            assertThat(other.lock(name).tryAcquire(Duration.ofMillis(500))).as("still held").isEmpty();
            assertThat(lease.extend(Duration.ofSeconds(30))).as("the holder's node is untouched").isTrue();
            lease.release();
            assertThat(probe.heldFor(name)).isEmpty();
            assertNoSecretIn(List.of(denied));
            assertThat(mallory.toString()).doesNotContain(security().secrets());
        }
    }

    private static void assertNoSecretIn(List<Throwable> errors) {
        for (Throwable error : errors) {
            for (Throwable t = error; t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).doesNotContain(security().secrets());
                assertThat(t.toString()).doesNotContain(security().secrets());
            }
        }
    }
}
