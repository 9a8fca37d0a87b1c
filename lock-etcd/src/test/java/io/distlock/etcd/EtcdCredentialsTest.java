package io.distlock.etcd;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.EtcdCluster;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Credentials over time, on one etcd member (plain http) whose authentication tokens live one second
 * unused: a client keeps its session past many token expiries (jetcd logs in again), picks up a
 * rotated password from its supplier, and the README's {@code etcdctl} commands make a user that can
 * lock under its prefix and nowhere else.
 */
class EtcdCredentialsTest {

    private static final String ROOT_PASSWORD = "pw-Root-cred5";
    private static final String PASSWORD = "pw-Locker-cred5";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static EtcdCluster etcd;

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.of(1, Duration.ofSeconds(1));
        etcd.addUser("locker", PASSWORD, "/cred/");
        etcd.addUser("rotated", PASSWORD, "/rot/");
        etcd.enableAuth(ROOT_PASSWORD);
    }

    @AfterAll
    static void stop() {
        etcd.close();
    }

    /** Keep-alives every 2 s (a third of the 6 s session), so the 1 s token has always expired by the next one. */
    private static String uri(String prefix) {
        return etcd.uri(prefix + "?sessionTtl=6");
    }

    private static LockOptions options(java.util.function.Supplier<Credentials> credentials) {
        return LockOptions.builder().connectTimeout(Duration.ofSeconds(3)).operationTimeout(Duration.ofSeconds(3))
                .credentials(credentials).build();
    }

    @Test
    void theSessionOutlivesManyTokenExpiries() {
        try (LockClient holder = Locks.connect(uri("/cred"), options(() -> Credentials.of("locker", PASSWORD)));
             LockClient other = Locks.connect(uri("/cred"), options(() -> Credentials.of("locker", PASSWORD)))) {
            Lease held = holder.lock("long").tryAcquire(LEASE).orElseThrow();
            // Three keep-alives, each sent after the token of the one before had expired.
            Awaitility.await().during(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(9)).until(held::isValid);
            assertThat(held.lost().toCompletableFuture()).isNotDone();
            assertThat(held.extend(LEASE)).isTrue();
            assertThat(other.lock("long").tryAcquire(LEASE)).as("still held").isEmpty();
            held.release();
            other.lock("long").tryAcquire(LEASE).orElseThrow().release();
        }
    }

    @Test
    void aRotatedPasswordIsReadFromTheSupplierAndTheSessionLivesOn() throws Exception {
        AtomicReference<String> current = new AtomicReference<>(PASSWORD);
        AtomicInteger reads = new AtomicInteger();
        try (LockClient client = Locks.connect(uri("/rot"), options(() -> {
            reads.incrementAndGet();
            return Credentials.of("rotated", current.get());
        }))) {
            Lease held = client.lock("job").tryAcquire(LEASE).orElseThrow();
            int readsBefore = reads.get();
            String next = "pw-Rotated-2nd";
            etcd.changePassword("rotated", next);
            current.set(next);

            // etcd drops the user's tokens: the next call is refused, the supplier is read again,
            // and the call is sent again on a client that logs in with the new password; the
            // session (a lease: keep-alives need no rights) carries on.
            Lease second = client.lock("second").tryAcquire(LEASE).orElseThrow();
            assertThat(reads.get()).isGreaterThan(readsBefore);
            assertThat(held.isValid()).isTrue();
            assertThat(held.lost().toCompletableFuture()).as("the session lease lived on").isNotDone();
            assertThat(held.extend(LEASE)).isTrue();
            held.release();
            second.release();
        } finally {
            etcd.changePassword("rotated", PASSWORD);
        }
    }

    @Test
    void fixedCredentialsThatNoLongerWorkAreAnAuthenticationFailureNotAnOutage() {
        etcd.addUser("fixed", PASSWORD, "/fixed/");
        try (LockClient client = Locks.connect(uri("/fixed"), options(() -> Credentials.of("fixed", PASSWORD)))) {
            client.lock("job").tryAcquire(LEASE).orElseThrow().release();
            etcd.changePassword("fixed", "pw-Fixed-changed");
            // etcd drops the user's tokens at once; jetcd's new login with the old password is refused.
            assertThatThrownBy(() -> client.lock("job").tryAcquire(LEASE))
                    .isInstanceOf(AuthenticationException.class)
                    .hasMessageContaining("authentication failed for user 'fixed'")
                    .message().doesNotContain(PASSWORD);
        }
    }

    /**
     * An operator takes the role's permission away while a client holds a lock: its next acquire is
     * an AccessDeniedException at once (not busy, not retried until the wait ends), and once the
     * permission is back the lock can be released and taken again.
     */
    @Test
    void rightsTakenAwayAfterTheConnectAreAnAccessDeniedException(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        etcd.addUser("revoked", PASSWORD, "/revoked/");
        try (LockClient client = Locks.connect(uri("/revoked"), options(() -> Credentials.of("revoked", PASSWORD)))) {
            Lease held = client.lock("held").tryAcquire(LEASE).orElseThrow();
            etcdctl(dir, null, "role", "revoke-permission", "revoked", "--prefix=true", "/revoked/");
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.lock("other").tryAcquire(LEASE, Duration.ofSeconds(20)))
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("user 'revoked'")
                    .hasMessageContaining("/revoked/");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("refused at once, not waited out")
                    .isLessThan(Duration.ofSeconds(5));
            etcdctl(dir, null, "role", "grant-permission", "revoked", "--prefix=true", "readwrite", "/revoked/");
            // The release is carried out, at once or by the engine's cleanup, which retries a removal
            // the server refused.
            held.release();
            // (The refused request's withdrawal marker, under /revoked/abandoned/, stays with the session.)
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> etcd.keys("/revoked/locks/").isEmpty());
            client.lock("held").tryAcquire(LEASE).orElseThrow().release();
        }
        assertThat(etcd.keys("/revoked/")).isEmpty();
    }

    /** The commands of the README's "The least a user needs", run as they are written there. */
    @Test
    void theReadmeCommandsMakeAUserWhoCanLockUnderItsPrefixAndNowhereElse(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path passwordFile = dir.resolve("distlock-password.txt");
        Files.writeString(passwordFile, "pw-Readme-user\n", StandardCharsets.UTF_8);
        etcdctl(dir, null, "role", "add", "distlock");
        etcdctl(dir, null, "role", "grant-permission", "distlock", "--prefix=true", "readwrite", "/distlock/");
        etcdctl(dir, passwordFile, "user", "add", "distlock", "--interactive=false");
        etcdctl(dir, null, "user", "grant-role", "distlock", "distlock");

        String user = "etcd://distlock:pw-Readme-user@" + etcd.endpoints();
        try (LockClient client = Locks.connect(user + "/distlock?sessionTtl=4")) {
            Lease lease = client.lock("job").tryAcquire(LEASE).orElseThrow();
            assertThat(etcd.keys("/distlock/locks/")).hasSize(1);
            assertThat(lease.extend(LEASE)).isTrue();
            lease.release();
            // The one role covers read-write locks and semaphores too (their keys live under the prefix).
            client.readWriteLock("job").writeLock().tryAcquire(LEASE).orElseThrow().release();
            client.semaphore("job", 2).tryAcquire(LEASE).orElseThrow().release();
        }
        assertThat(etcd.keys("/distlock/")).isEmpty();
        assertThatThrownBy(() -> Locks.connect(user + "/distlock-other?sessionTtl=4").close())
                .isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("/distlock-other/");
    }

    private static void etcdctl(Path dir, Path stdin, String... args) throws IOException, InterruptedException {
        Path etcdctl = Path.of("/usr/bin/etcdctl");
        assertThat(etcdctl).as("etcdctl (Debian's etcd-client; test.sh installs it)").isExecutable();
        List<String> command = new ArrayList<>(List.of(etcdctl.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("ETCDCTL_API", "3");
        env.put("ETCDCTL_ENDPOINTS", "http://" + etcd.memberEndpoints().get(0));
        env.put("ETCDCTL_USER", "root");
        env.put("ETCDCTL_PASSWORD", ROOT_PASSWORD); // in the environment, not on a command line
        if (stdin != null) {
            builder.redirectInput(stdin.toFile());
        }
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("etcdctl %s: %s", String.join(" ", args), output).isZero();
    }
}
