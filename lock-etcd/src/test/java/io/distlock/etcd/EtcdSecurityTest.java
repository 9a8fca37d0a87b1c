package io.distlock.etcd;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.EtcdCluster;
import io.distlock.tck.fixtures.TestCertificates;
import io.distlock.tck.fixtures.TestCertificates.KeyStoreFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * TLS and authentication on one real etcd member that serves https only, with auth enabled: the
 * least-privilege user ({@code locker}, a role with readwrite on {@value #PREFIX}{@code /} and nothing
 * else) takes, waits for and releases locks; a wrong password, no credentials, a user whose role covers
 * another prefix, an untrusted server certificate and bad TLS options each fail at once with their own
 * exception, never as "unavailable" and never showing a secret.
 */
class EtcdSecurityTest {

    static final String PREFIX = "/sec";
    static final String LOCKER = "locker";
    static final String LOCKER_PASSWORD = "pw-Locker-5ecret";
    static final String OUTSIDER = "outsider";
    static final String OUTSIDER_PASSWORD = "pw-Outsider-5ecret";
    static final String ROOT_PASSWORD = "pw-Root-5ecret";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration CONNECT = Duration.ofSeconds(3);

    private static final TestCertificates certs = TestCertificates.shared();
    private static EtcdCluster etcd;

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.withTls(1, certs, false);
        secure(etcd, PREFIX);
    }

    @AfterAll
    static void stop() {
        etcd.close();
    }

    /** root, the locker limited to {@code prefix + "/"}, and the outsider limited to {@code /other/}; then auth on. */
    static void secure(EtcdCluster cluster, String prefix) {
        cluster.addUser(LOCKER, LOCKER_PASSWORD, prefix + "/");
        cluster.addUser(OUTSIDER, OUTSIDER_PASSWORD, "/other/");
        cluster.enableAuth(ROOT_PASSWORD);
    }

    static String encode(String s) {
        return URLEncoder.encode(s, UTF_8);
    }

    /** {@code &trustStore=...&trustStoreType=...&trustStorePassword=...} (or keyStore) for {@code store}. */
    static String storeQuery(String option, KeyStoreFile store) {
        return "&" + option + "=" + encode(store.path().toString()) + "&" + option + "Type=" + store.type() + "&" + option
                + "Password=" + encode(store.password());
    }

    /** The cluster's URI with user info and {@code tls=true} trusting {@code trust}. */
    static String uri(EtcdCluster cluster, String userInfo, String prefix, KeyStoreFile trust) {
        return cluster.uri(prefix + "?sessionTtl=4&tls=true" + (trust == null ? "" : storeQuery("trustStore", trust)))
                .replace("etcd://", "etcd://" + (userInfo == null ? "" : userInfo + "@"));
    }

    private static LockOptions options() {
        return LockOptions.builder().connectTimeout(CONNECT).operationTimeout(CONNECT).build();
    }

    @Test
    void theLeastPrivilegeUserTakesWaitsForAndReleasesLocksOverTls() throws Exception {
        String uri = uri(etcd, LOCKER + ":" + LOCKER_PASSWORD, PREFIX, certs.trustStore());
        try (LockClient holder = Locks.connect(uri, options()); LockClient waiter = Locks.connect(uri, options())) {
            Lease held = holder.lock("job").tryAcquire(LEASE).orElseThrow();
            assertThat(etcd.keys(PREFIX + "/locks/")).singleElement().asString().startsWith(PREFIX + "/locks/job/");
            assertThat(held.extend(LEASE)).isTrue();
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
                DistributedLock lock = waiter.lock("job");
                try {
                    return lock.tryAcquire(LEASE, Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> etcd.keys(PREFIX + "/locks/job/").size() == 2);
            assertThat(waiting).isNotDone();
            held.release();
            Lease next = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(next.fencingToken().orElseThrow()).isGreaterThan(held.fencingToken().orElseThrow());
            next.release();
            assertThat(holder.toString()).doesNotContain(LOCKER_PASSWORD, certs.trustStore().password());
        }
        assertThat(etcd.keys(PREFIX + "/")).as("closing revoked the sessions, as the locker").isEmpty();
    }

    @Test
    void aWrongPasswordIsAnAuthenticationExceptionAtOnceNamingTheUserNotThePassword() {
        String wrong = "wrong-" + LOCKER_PASSWORD;
        long start = System.nanoTime();
        Throwable thrown = catchThrowable(() -> Locks.connect(uri(etcd, LOCKER + ":" + wrong, PREFIX, certs.trustStore()),
                LockOptions.builder().connectTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(10)).build()).close());
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(thrown).isInstanceOf(AuthenticationException.class)
                .isNotInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("authentication failed for user '" + LOCKER + "'")
                .hasMessageContaining(etcd.endpoints());
        assertThat(((AuthenticationException) thrown).endpoint()).isEqualTo(etcd.endpoints());
        assertThat(took).as("refused at once, not retried until the 10 s connect timeout").isLessThan(Duration.ofSeconds(5));
        assertNoSecret(thrown, wrong, LOCKER_PASSWORD, certs.trustStore().password());
        assertThat(etcd.leases()).as("nothing granted").isEmpty();
    }

    @Test
    void noCredentialsWhereAuthIsOnIsAnAuthenticationException() {
        assertThatThrownBy(() -> Locks.connect(uri(etcd, null, PREFIX, certs.trustStore()), options()).close())
                .isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("no credentials were given");
    }

    @Test
    void aUserWhoseRoleCoversAnotherPrefixIsDeniedAccessNamingThePrefix() {
        Throwable thrown = catchThrowable(() -> {
            try (LockClient outsider = Locks.connect(uri(etcd, OUTSIDER + ":" + OUTSIDER_PASSWORD, PREFIX, certs.trustStore()),
                    options())) {
                outsider.lock("job").tryAcquire(LEASE);
            }
        });
        assertThat(thrown).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("permission denied")
                .hasMessageContaining("user '" + OUTSIDER + "'")
                .hasMessageContaining(PREFIX + "/");
        assertThat(((AccessDeniedException) thrown).endpoint()).isEqualTo(etcd.endpoints());
        assertNoSecret(thrown, OUTSIDER_PASSWORD, certs.trustStore().password());
        // The same user on its own prefix is served.
        try (LockClient own = Locks.connect(uri(etcd, OUTSIDER + ":" + OUTSIDER_PASSWORD, "/other", certs.trustStore()),
                options())) {
            own.lock("job").tryAcquire(LEASE).orElseThrow().release();
        }
    }

    @Test
    void credentialsFromLockOptionsAndFromASupplierReadAtEachConnect() {
        String uri = uri(etcd, null, PREFIX, certs.trustStore());
        try (LockClient client = Locks.connect(uri, LockOptions.builder().connectTimeout(CONNECT)
                .credentials(Credentials.of(LOCKER, LOCKER_PASSWORD)).build())) {
            client.lock("opts").tryAcquire(LEASE).orElseThrow().release();
        }
        AtomicInteger reads = new AtomicInteger();
        String[] current = {"stale-" + LOCKER_PASSWORD};
        LockOptions rotating = LockOptions.builder().connectTimeout(CONNECT).operationTimeout(CONNECT).credentials(() -> {
            reads.incrementAndGet();
            return Credentials.of(LOCKER, current[0]);
        }).build();
        assertThatThrownBy(() -> Locks.connect(uri, rotating).close()).isInstanceOf(AuthenticationException.class);
        int afterFirst = reads.get();
        assertThat(afterFirst).isPositive();
        current[0] = LOCKER_PASSWORD; // rotated: the next connect reads the new one
        try (LockClient client = Locks.connect(uri, rotating)) {
            assertThat(reads.get()).isGreaterThan(afterFirst);
            client.lock("supplied").tryAcquire(LEASE).orElseThrow().release();
        }
    }

    @Test
    void credentialsInTheUriAndInTheOptionsAtOnceAreRefused() {
        assertThatThrownBy(() -> Locks.connect(uri(etcd, LOCKER + ":" + LOCKER_PASSWORD, PREFIX, certs.trustStore()),
                LockOptions.builder().credentials(Credentials.of(LOCKER, LOCKER_PASSWORD)).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one place")
                .message().doesNotContain(LOCKER_PASSWORD);
        assertThatThrownBy(() -> Locks.connect(uri(etcd, null, PREFIX, certs.trustStore()),
                LockOptions.builder().credentials(Credentials.of(null, LOCKER_PASSWORD)).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no user name")
                .message().doesNotContain(LOCKER_PASSWORD);
    }

    @Test
    void badTlsOptionsAreIllegalArgumentsThatShowNoSecret() {
        KeyStoreFile trust = certs.trustStore();
        String hosts = etcd.endpoints();
        String user = "etcd://" + LOCKER + ":" + LOCKER_PASSWORD + "@" + hosts + PREFIX;
        assertThatThrownBy(() -> Locks.connect(user + "?" + storeQuery("trustStore", trust).substring(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls=true")
                .message().doesNotContain(LOCKER_PASSWORD, trust.password());
        assertThatThrownBy(() -> Locks.connect(user + "?tls=yes"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls must be true or false");
        String wrongStorePassword = "not-the-" + trust.password();
        assertThatThrownBy(() -> Locks.connect(user + "?tls=true&trustStore=" + encode(trust.path().toString())
                + "&trustStorePassword=" + encode(wrongStorePassword)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trustStore")
                .message().doesNotContain(LOCKER_PASSWORD, wrongStorePassword, trust.password());
        assertThatThrownBy(() -> Locks.connect(user + "?tls=true&trustStore=/no/such/store.p12"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/no/such/store.p12")
                .message().doesNotContain(LOCKER_PASSWORD);
        assertThatThrownBy(() -> Locks.connect(user + "?tls=true&keyStorePassword=" + encode(trust.password())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyStore")
                .message().doesNotContain(LOCKER_PASSWORD, trust.password());
    }

    @Test
    void anUntrustedServerCertificateIsAnAuthenticationExceptionWithinTheConnectTimeout() {
        try (TestCertificates other = TestCertificates.generate()) {
            long start = System.nanoTime();
            Throwable thrown = catchThrowable(() -> Locks.connect(uri(etcd, LOCKER + ":" + LOCKER_PASSWORD, PREFIX,
                    other.trustStore()), options()).close());
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(thrown).isInstanceOf(AuthenticationException.class)
                    .isNotInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("TLS handshake")
                    .hasMessageContaining("not trusted")
                    .hasMessageContaining(etcd.endpoints());
            assertThat(took).isLessThan(CONNECT.plusSeconds(1));
            assertNoSecret(thrown, LOCKER_PASSWORD, other.trustStore().password());
        }
    }

    /**
     * A member that accepts the connection and never answers (a frozen process): unavailable within
     * the connect timeout, and the message says which timeout ran out (it said "within 0 ms": what
     * the TLS check had left of it).
     */
    @Test
    void aMemberThatNeverAnswersTheTlsHandshakeIsUnavailableWithinTheConnectTimeout() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 16, java.net.InetAddress.getLoopbackAddress())) {
            String endpoint = "127.0.0.1:" + silent.getLocalPort();
            String uri = "etcd://" + LOCKER + ":" + LOCKER_PASSWORD + "@" + endpoint + PREFIX + "?tls=true"
                    + storeQuery("trustStore", certs.trustStore());
            long start = System.nanoTime();
            Throwable thrown = catchThrowable(() -> Locks.connect(uri, options()).close());
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(thrown).isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining(endpoint)
                    .hasMessageContaining("connect timeout of " + CONNECT.toMillis() + " ms");
            assertThat(((BackendUnavailableException) thrown).endpoint()).contains(endpoint);
            assertThat(took).isLessThan(CONNECT.plusSeconds(1));
            assertNoSecret(thrown, LOCKER_PASSWORD, certs.trustStore().password());
        }
    }

    @Test
    void theJvmDefaultTrustRefusesTheTestCa() {
        assertThatThrownBy(() -> Locks.connect(uri(etcd, LOCKER + ":" + LOCKER_PASSWORD, PREFIX, null), options()).close())
                .isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("TLS handshake");
    }

    /**
     * The member's certificate names 127.0.0.1 and localhost; reached as 127.0.0.2 (another loopback
     * address, forwarded to it) it is refused: the host name is verified.
     */
    @Test
    void aCertificateThatDoesNotNameTheHostIsRefused() throws Exception {
        try (java.net.ServerSocket forwarder = new java.net.ServerSocket(0, 16, java.net.InetAddress.getByName("127.0.0.2"))) {
            String target = etcd.endpoints();
            Thread acceptor = new Thread(() -> forward(forwarder, target), "test-forwarder");
            acceptor.setDaemon(true);
            acceptor.start();
            String uri = "etcd://" + LOCKER + ":" + LOCKER_PASSWORD + "@127.0.0.2:" + forwarder.getLocalPort() + PREFIX
                    + "?sessionTtl=4&tls=true" + storeQuery("trustStore", certs.trustStore());
            assertThatThrownBy(() -> Locks.connect(uri, options()).close())
                    .isInstanceOf(AuthenticationException.class)
                    .hasMessageContaining("does not name the host")
                    .hasMessageContaining("127.0.0.2:" + forwarder.getLocalPort());
        }
    }

    /** Accepts until the socket is closed; pipes each connection to {@code target} both ways. */
    private static void forward(java.net.ServerSocket listener, String target) {
        int colon = target.lastIndexOf(':');
        while (!listener.isClosed()) {
            try {
                java.net.Socket in = listener.accept();
                java.net.Socket out = new java.net.Socket(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1)));
                pipe(in, out);
                pipe(out, in);
            } catch (java.io.IOException e) {
                return;
            }
        }
    }

    private static void pipe(java.net.Socket from, java.net.Socket to) {
        Thread thread = new Thread(() -> {
            try (from; to) {
                from.getInputStream().transferTo(to.getOutputStream());
            } catch (java.io.IOException e) {
                // one side closed
            }
        }, "test-forwarder-pipe");
        thread.setDaemon(true);
        thread.start();
    }

    @Test
    void aClientCertificateIsPresentedWhenTheServerAsksForOne() {
        try (EtcdCluster mutual = EtcdCluster.withTls(1, certs, true)) {
            String uri = mutual.uri("/mtls?sessionTtl=4&tls=true" + storeQuery("trustStore", certs.trustStore()));
            try (LockClient client = Locks.connect(uri + storeQuery("keyStore", certs.client().keyStore()), options())) {
                client.lock("job").tryAcquire(LEASE).orElseThrow().release();
            }
            Throwable thrown = catchThrowable(() -> Locks.connect(uri, options()).close());
            assertThat(thrown).isInstanceOf(AuthenticationException.class)
                    .isNotInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("TLS");
            assertNoSecret(thrown, certs.trustStore().password(), certs.client().keyStore().password());
        }
    }

    static void assertNoSecret(Throwable thrown, String... secrets) {
        java.io.StringWriter trace = new java.io.StringWriter();
        thrown.printStackTrace(new java.io.PrintWriter(trace));
        for (String secret : secrets) {
            assertThat(trace.toString()).as("the stack trace shows no secret").doesNotContain(secret);
        }
    }
}
