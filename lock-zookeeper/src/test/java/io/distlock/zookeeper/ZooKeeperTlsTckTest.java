package io.distlock.zookeeper;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.Security;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.TestCertificates;
import io.distlock.tck.fixtures.TestCertificates.KeyStoreFile;
import io.distlock.tck.fixtures.ZooKeeperProcess;
import io.distlock.zookeeper.internal.LockNodes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The TCK over {@code zookeeper://…?tls=true} with digest authentication: a TLS-only ZooKeeper (a
 * child JVM, secure client port only, client certificates required), the clients trusting the test
 * CA, presenting its client certificate and authenticating as the digest user {@code locker}, whose
 * nodes give ALL to {@code locker} and READ to the world.
 * It runs the safety and security groups only ({@link RuleSelection}), with rules 5.5, 5.8 and 5.9 (closed ports,
 * and servers that accept and never answer, so that the TLS handshake waits), and every security rule must pass;
 * the plain {@link ZooKeeperTckTest} runs every rule against an ensemble.
 *
 * <p>Security (group 6): a wrong password for {@code locker}; {@code mallory}, another digest user,
 * as the unprivileged principal (it may look, not queue, delete or rewrite); tampering with
 * ZooKeeper's own client as {@code mallory}; a client trusting an independent CA.
 */
@RuleSelection(value = "1,5.5,5.8,5.9,6", mustPass = "5.5,5.8,5.9,6")
@Isolated // see lock-zookeeper/pom.xml: alone, last
@Order(Integer.MAX_VALUE)
class ZooKeeperTlsTckTest extends LockVerification {

    static final String CHROOT = "/tck-tls";
    static final String WRONG_PASSWORD = "zk-Wrong-Pw-61d0";
    static final String MALLORY_PASSWORD = "zk-Mallory-Pw-2c4a";
    private static final TestCertificates CERTS = TestCertificates.shared();

    private static ZooKeeperProcess zk;
    /** An independent CA: its trust store does not trust the server. */
    private static TestCertificates otherCa;

    @BeforeAll
    static void startServer() {
        zk = ZooKeeperProcess.startWithTls(System.getProperty("java.class.path"), CERTS, true);
        otherCa = TestCertificates.generate();
        // The first client creates the chroot, with locker's ACL: from then on a wrong password for
        // locker shows in it.
        Locks.connect(URI.create(uri("locker:" + SECRET, CERTS.trustStore())), options()).close();
    }

    @AfterAll
    static void stopServer() {
        if (otherCa != null) {
            otherCa.close();
        }
        zk.close();
    }

    private static String uri(String userInfo, KeyStoreFile trust) {
        return ZooKeeperTlsTest.uri(zk.connectString(), userInfo, CHROOT, trust, CERTS.client().keyStore())
                + "&sessionTimeout=" + ZkServers.SESSION_TIMEOUT_MILLIS;
    }

    /** The connect and operation timeout of every client here: what a refusal must come well within. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** @return a plain ZooKeeper client of this server, over TLS, authenticated as {@code digest} (or not, if null) */
    static ZooKeeper rawClient(String digest) throws IOException, InterruptedException {
        return RawZk.connect(zk.connectString(), CERTS, digest);
    }

    private static LockOptions options() {
        return LockOptions.builder().connectTimeout(TIMEOUT).operationTimeout(TIMEOUT).build();
    }

    private static Supplier<LockClient> connector(String userInfo, KeyStoreFile trust) {
        return () -> Locks.connect(URI.create(uri(userInfo, trust)), options());
    }

    @Override
    protected LockClient newClient() {
        return connector("locker:" + SECRET, CERTS.trustStore()).get();
    }

    /**
     * Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does (its digest
     * password, trust store and client key store in the URI).
     */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(URI.create(uri("locker:" + SECRET, CERTS.trustStore())), options()));
    }

    /** Rule 5.8: a silent server listed first, over TLS, authenticated as locker. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.of(uri("locker:" + SECRET, CERTS.trustStore()).replaceFirst("@", "@" + silentEndpoint + ","));
    }

    /** Rules 5.5 and 5.9: two servers on free loopback ports, over TLS, with locker's digest password the TCK's. */
    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(ZooKeeperTlsTest.uri("127.0.0.1:" + FreePorts.find() + ",127.0.0.1:" + FreePorts.find(),
                "locker:" + SECRET, CHROOT, CERTS.trustStore(), CERTS.client().keyStore()));
    }

    /** The world may read: a plain TLS client without credentials lists the lock's line (after a sync). */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(ZooKeeperTlsTckTest::held);
    }

    private static Optional<Duration> held(String lockName) {
        try {
            ZooKeeper raw = RawZk.connect(zk.connectString(), CERTS, null);
            try {
                String dir = LockNodes.dir(CHROOT, lockName);
                CountDownLatch synced = new CountDownLatch(1);
                raw.sync(dir, (rc, path, ctx) -> synced.countDown(), null);
                if (!synced.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no answer to a sync of " + dir);
                }
                return LockNodes.inLine(raw.getChildren(dir, false)).isEmpty() ? Optional.empty()
                        : Optional.of(LockProbe.UNTIL_RELEASED);
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty();
            } finally {
                raw.close();
            }
        } catch (IOException | KeeperException e) {
            throw new IllegalStateException("cannot look at the lock '" + lockName + "'", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected Optional<Security> security() {
        return Optional.of(new Security() {
            @Override
            public List<String> secrets() {
                return List.of(SECRET, WRONG_PASSWORD, MALLORY_PASSWORD, CERTS.trustStore().password(),
                        CERTS.client().keyStore().password(), otherCa.trustStore().password());
            }

            @Override
            public Optional<Supplier<LockClient>> wrongPassword() {
                return Optional.of(connector("locker:" + WRONG_PASSWORD, CERTS.trustStore()));
            }

            @Override
            public Optional<Supplier<LockClient>> unprivilegedClient() {
                return Optional.of(connector("mallory:" + MALLORY_PASSWORD, CERTS.trustStore()));
            }

            @Override
            public Optional<Tamper> tamper() {
                return Optional.of(ZooKeeperTlsTckTest::tamper);
            }

            @Override
            public Optional<Supplier<LockClient>> untrustedServer() {
                return Optional.of(connector("locker:" + SECRET, otherCa.trustStore()));
            }
        });
    }

    /**
     * As {@code mallory}, with ZooKeeper's own client: delete every node of the lock's line and the
     * directory, rewrite them and their ACLs, queue a node of its own in the line. Each is refused
     * (NoAuth, swallowed); anything else is thrown.
     */
    static void tamper(String lockName) throws Exception {
        ZooKeeper raw = RawZk.connect(zk.connectString(), CERTS, "mallory:" + MALLORY_PASSWORD);
        try {
            String dir = LockNodes.dir(CHROOT, lockName);
            for (String child : raw.getChildren(dir, false)) {
                String node = dir + "/" + child;
                refused(() -> raw.delete(node, -1));
                refused(() -> raw.setData(node, "0".getBytes(java.nio.charset.StandardCharsets.US_ASCII), -1));
                refused(() -> raw.setACL(node, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1));
            }
            refused(() -> raw.create(dir + "/lock-mallory-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL));
            refused(() -> raw.setData(dir, new byte[0], -1));
            refused(() -> raw.setACL(dir, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1));
            refused(() -> raw.delete(dir, -1));
            refused(() -> raw.setACL(CHROOT, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1));
        } finally {
            raw.close();
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void refused(Call call) throws Exception {
        try {
            call.run();
        } catch (KeeperException.NoAuthException expected) {
            // the server refused: what the rule wants
        }
    }
}
