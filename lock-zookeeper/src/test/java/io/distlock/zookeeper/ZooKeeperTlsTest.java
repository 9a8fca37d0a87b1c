package io.distlock.zookeeper;

import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.TestCertificates;
import io.distlock.tck.fixtures.TestCertificates.KeyStoreFile;
import io.distlock.tck.fixtures.ZooKeeperProcess;
import io.distlock.zookeeper.internal.LockNodes;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.time.Duration;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code tls=true} against a TLS-only ZooKeeper (a child JVM, secure client port only, client
 * certificates required): the client's own trust and key stores in a per-client config, and every
 * kind of refused handshake reported as an {@link AuthenticationException} within the connect
 * timeout, not as an outage after a loop of reconnects.
 */
@Isolated // see lock-zookeeper/pom.xml: alone, last
@Order(Integer.MAX_VALUE)
class ZooKeeperTlsTest {

    static final String LOCKER_PASSWORD = "locker-Tls-Pw-3b8e";
    private static final TestCertificates CERTS = TestCertificates.shared();
    private static final Duration CONNECT = Duration.ofSeconds(5);

    private static ZooKeeperProcess zk;

    @BeforeAll
    static void start() {
        zk = ZooKeeperProcess.startWithTls(System.getProperty("java.class.path"), CERTS, true);
    }

    @AfterAll
    static void stop() {
        zk.close();
    }

    static String storeQuery(String option, KeyStoreFile store) {
        return option + "=" + URLEncoder.encode(store.path().toString(), UTF_8) + "&" + option + "Type=" + store.type()
                + "&" + option + "Password=" + URLEncoder.encode(store.password(), UTF_8);
    }

    /** The URI of a client trusting {@code trust} and presenting {@code keys} (either may be null). */
    static String uri(String connectString, String userInfo, String chroot, KeyStoreFile trust, KeyStoreFile keys) {
        return "zookeeper://" + (userInfo == null ? "" : userInfo + "@") + connectString + chroot + "?tls=true"
                + (trust == null ? "" : "&" + storeQuery("trustStore", trust))
                + (keys == null ? "" : "&" + storeQuery("keyStore", keys));
    }

    private static LockOptions options() {
        return LockOptions.builder().connectTimeout(CONNECT).build();
    }

    @Test
    void aClientTrustingTheCaWithItsCertificateAndADigestLocksOverTls() throws Exception {
        String uri = uri(zk.connectString(), "locker:" + LOCKER_PASSWORD, "/tls", CERTS.trustStore(), CERTS.client().keyStore());
        try (LockClient a = Locks.connect(URI.create(uri), options()); LockClient b = Locks.connect(URI.create(uri), options())) {
            Lease lease = a.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(b.lock("job").tryAcquire(Duration.ofSeconds(1))).isEmpty();
            ZooKeeper raw = RawZk.connect(zk.connectString(), CERTS, "locker:" + LOCKER_PASSWORD);
            try {
                String dir = LockNodes.dir("/tls", "job");
                String node = dir + "/" + LockNodes.inLine(raw.getChildren(dir, false)).get(0);
                assertThat(raw.getACL(node, null)).hasSize(2)
                        .anySatisfy(acl -> assertThat(acl.getPerms()).isEqualTo(ZooDefs.Perms.READ))
                        .anySatisfy(acl -> assertThat(acl.getId().getId()).startsWith("locker:"));
            } finally {
                raw.close();
            }
            lease.release();
            assertThat(a.toString()).doesNotContain(LOCKER_PASSWORD, CERTS.trustStore().password(), CERTS.client().keyStore().password());
        }
    }

    /**
     * A server that accepts connections and never answers, listed first: the TLS probe (which goes
     * through the hosts in the order listed) gives it half the connect timeout and moves on, as the
     * client itself does; before, it waited on it for the whole connect timeout and the connect failed.
     */
    @Test
    void aFrozenServerListedFirstKeepsNeitherTheTlsProbeNorTheClientFromTheLiveOne() throws Exception {
        try (ServerSocket frozen = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
            String uri = uri("127.0.0.1:" + frozen.getLocalPort() + "," + zk.connectString(), "locker:" + LOCKER_PASSWORD, "/tls",
                    CERTS.trustStore(), CERTS.client().keyStore());
            try (LockClient client = Locks.connect(URI.create(uri), options()); LockClient other = Locks.connect(URI.create(
                    uri(zk.connectString(), "locker:" + LOCKER_PASSWORD, "/tls", CERTS.trustStore(), CERTS.client().keyStore())),
                    options())) {
                Lease lease = client.lock("frozen-first").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
                assertThat(other.lock("frozen-first").tryAcquire(Duration.ofSeconds(1))).isEmpty();
                lease.release();
                assertThat(other.lock("frozen-first").tryAcquire(Duration.ofSeconds(1))).isPresent();
            }
        }
    }

    @Test
    void aServerCertificateFromAnotherCaIsAnAuthenticationErrorAtConnectWithinTheTimeout() {
        try (TestCertificates other = TestCertificates.generate()) {
            String uri = uri(zk.connectString(), "locker:" + LOCKER_PASSWORD, "/tls", other.trustStore(), CERTS.client().keyStore());
            assertRefusedQuickly(uri, other.trustStore().password());
        }
    }

    @Test
    void tlsWithoutATrustStoreUsesTheJvmsTrustWhichDoesNotKnowTheTestCa() {
        assertRefusedQuickly(uri(zk.connectString(), "locker:" + LOCKER_PASSWORD, "/tls", null, CERTS.client().keyStore()), null);
    }

    @Test
    void withoutAClientCertificateTheServersRefusalIsAnAuthenticationError() {
        assertRefusedQuickly(uri(zk.connectString(), "locker:" + LOCKER_PASSWORD, "/tls", CERTS.trustStore(), null), null);
    }

    @Test
    void aPlainClientAgainstTheTlsPortIsUnavailableNotRefused() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> Locks.connect(URI.create("zookeeper://" + zk.connectString() + "/tls"),
                LockOptions.builder().connectTimeout(Duration.ofSeconds(2)).build()))
                .isInstanceOf(BackendUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    }

    @Test
    void jvmWideZooKeeperTlsPropertiesDoNotApplyToAClient() {
        // An application may configure other ZooKeeper clients through system properties; the URI
        // alone decides for distlock's (ZKClientConfig would otherwise copy these into every config).
        java.util.Map<String, String> jvmWide = java.util.Map.of(
                "zookeeper.ssl.trustStore.password", "jvm-Wide-Pw-0a1b",
                "zookeeper.ssl.enabledProtocols", "TLSv1",
                "zookeeper.ssl.ciphersuites", "TLS_NO_SUCH_SUITE",
                "zookeeper.client.secure", "false");
        jvmWide.forEach(System::setProperty);
        try {
            String uri = uri(zk.connectString(), "locker:" + LOCKER_PASSWORD, "/jvm-wide", CERTS.trustStore(), CERTS.client().keyStore());
            try (LockClient client = Locks.connect(URI.create(uri), options())) {
                client.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow().release();
            }
        } finally {
            jvmWide.keySet().forEach(System::clearProperty);
        }
    }

    private static void assertRefusedQuickly(String uri, String otherSecret) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> Locks.connect(URI.create(uri), options()))
                .isInstanceOf(AuthenticationException.class)
                .isNotInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("TLS handshake")
                .hasMessageContaining(zk.connectString())
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(LOCKER_PASSWORD, CERTS.trustStore().password(),
                        CERTS.client().keyStore().password(), otherSecret == null ? LOCKER_PASSWORD : otherSecret));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("well within the connect timeout").isLessThan(CONNECT.minusSeconds(2));
    }
}
