package io.distlock.zookeeper;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.zookeeper.internal.LockNodes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Digest authentication and the ACLs of the nodes, against one real (plain) server: what the
 * nodes are created with, who may touch them, how a wrong password and another user are told
 * apart, credentials from the options and a supplier read again for a new session, bad options.
 */
@Isolated // see lock-zookeeper/pom.xml: alone, last
@Order(Integer.MAX_VALUE)
class ZooKeeperSecurityTest {

    private static final String PASSWORD = "alice-Pw-71c3";
    private static final String WRONG = "alice-Wrong-88a2";
    private static final String BOB_PASSWORD = "bob-Pw-5d0e";

    private static ZkServers server;

    @BeforeAll
    static void start() {
        server = ZkServers.single();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String digest(String userPassword) throws Exception {
        return DigestAuthenticationProvider.generateDigest(userPassword);
    }

    private static List<ACL> expectedAcl(String userPassword) throws Exception {
        return List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest(userPassword))),
                new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
    }

    @Test
    void everyNodeGivesAllToTheCreatorsDigestAndReadToTheWorld() throws Exception {
        try (LockClient alice = Locks.connect(server.uri("/acl/app").replace("zookeeper://", "zookeeper://alice:" + PASSWORD + "@"))) {
            Lease lease = alice.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            ZooKeeper asAlice = RawZk.connect(server.connectString(), null, "alice:" + PASSWORD);
            ZooKeeper asBob = RawZk.connect(server.connectString(), null, "bob:" + BOB_PASSWORD);
            try {
                String dir = LockNodes.dir("/acl/app", "job");
                String node = dir + "/" + LockNodes.inLine(asBob.getChildren(dir, false)).get(0); // the world may look
                for (String path : List.of("/acl", "/acl/app", dir, node)) {
                    assertThat(asAlice.getACL(path, null)).as(path).containsExactlyElementsOf(expectedAcl("alice:" + PASSWORD));
                }
                assertThatThrownBy(() -> asBob.delete(node, -1)).isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> asBob.setData(node, new byte[] {1}, -1)).isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> asBob.create(dir + "/lock-x-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.EPHEMERAL_SEQUENTIAL)).isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> asBob.setACL(node, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThat(lease.isValid()).isTrue();
                assertThat(asBob.exists(node, false)).as("the holder's node").isNotNull();
            } finally {
                asAlice.close();
                asBob.close();
            }
            lease.release();
        }
    }

    @Test
    void theNodesOfReadWriteLocksAndSemaphoresCarryTheAclOfALocks() throws Exception {
        String chroot = "/acl-holds";
        try (LockClient alice = Locks.connect(server.uri(chroot).replace("zookeeper://", "zookeeper://alice:" + PASSWORD + "@"))) {
            Lease read = alice.readWriteLock("job").readLock().tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            Lease permit = alice.semaphore("job", 2).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            ZooKeeper asAlice = RawZk.connect(server.connectString(), null, "alice:" + PASSWORD);
            ZooKeeper asBob = RawZk.connect(server.connectString(), null, "bob:" + BOB_PASSWORD);
            try {
                for (String dir : List.of(LockNodes.readWriteDir(chroot, "job"), LockNodes.semaphoreDir(chroot, "job"))) {
                    String node = dir + "/" + HoldLines.line(asBob, dir).get(0); // the world may look
                    String parent = dir.substring(0, dir.lastIndexOf('/'));
                    for (String path : List.of(parent, dir, node)) {
                        assertThat(asAlice.getACL(path, null)).as(path).containsExactlyElementsOf(expectedAcl("alice:" + PASSWORD));
                    }
                    assertThatThrownBy(() -> asBob.delete(node, -1)).isInstanceOf(KeeperException.NoAuthException.class);
                    assertThatThrownBy(() -> asBob.create(dir + "/write-x-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                            CreateMode.EPHEMERAL_SEQUENTIAL)).isInstanceOf(KeeperException.NoAuthException.class);
                }
            } finally {
                asAlice.close();
                asBob.close();
            }
            assertThat(read.isValid()).isTrue();
            assertThat(permit.isValid()).isTrue();
            read.release();
            permit.release();
        }
    }

    @Test
    void withoutCredentialsTheNodesStayOpenAsBefore() throws Exception {
        try (LockClient client = Locks.connect(server.uri("/open"))) {
            Lease lease = client.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            ZooKeeper admin = RawZk.connect(server.connectString(), null, null);
            try {
                String dir = LockNodes.dir("/open", "job");
                String node = dir + "/" + LockNodes.inLine(admin.getChildren(dir, false)).get(0);
                for (String path : List.of("/open", dir, node)) {
                    assertThat(admin.getACL(path, null)).as(path).containsExactlyElementsOf(ZooDefs.Ids.OPEN_ACL_UNSAFE);
                }
            } finally {
                admin.close();
            }
            lease.release();
        }
    }

    @Test
    void aWrongPasswordIsAnAuthenticationErrorAtConnectNamingTheUserNotThePassword() {
        String uri = server.uri("/wrong");
        Locks.connect(uri.replace("zookeeper://", "zookeeper://alice:" + PASSWORD + "@")).close(); // creates /wrong as alice
        long start = System.nanoTime();
        assertThatThrownBy(() -> Locks.connect(uri.replace("zookeeper://", "zookeeper://alice:" + WRONG + "@")))
                .isInstanceOf(AuthenticationException.class)
                .isNotInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("wrong password for user 'alice'")
                .hasMessageContaining("/wrong")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(WRONG, PASSWORD, digest("alice:" + PASSWORD).split(":")[1]))
                .satisfies(e -> assertThat(((AuthenticationException) e).endpoint()).isEqualTo(server.uri("/wrong")));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        // through the options too
        LockOptions options = LockOptions.builder().credentials(Credentials.of("alice", WRONG)).build();
        assertThatThrownBy(() -> Locks.connect(URI.create(uri), options)).isInstanceOf(AuthenticationException.class);
    }

    @Test
    void anotherUserIsDeniedAtItsFirstAcquireAtOnceNotRetriedNotBusy() {
        String uri = server.uri("/denied");
        try (LockClient alice = Locks.connect(uri.replace("zookeeper://", "zookeeper://alice:" + PASSWORD + "@"));
             LockClient bob = Locks.connect(uri.replace("zookeeper://", "zookeeper://bob:" + BOB_PASSWORD + "@"))) {
            Lease held = alice.lock("held").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            for (String name : List.of("held", "free")) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> bob.lock(name).tryAcquire(Duration.ofSeconds(20)))
                        .as(name)
                        .isInstanceOf(AccessDeniedException.class)
                        .hasMessageContaining("user 'bob'")
                        .hasMessageContaining("/denied")
                        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(BOB_PASSWORD))
                        .satisfies(e -> assertThat(((AccessDeniedException) e).endpoint()).isEqualTo(uri));
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not retried until the wait ends").isLessThan(Duration.ofSeconds(3));
            }
            assertThat(held.isValid()).isTrue();
            held.release();
        }
    }

    @Test
    void aSupplierIsReadAgainForANewSessionAndItsNodesCarryTheNewIdentity() throws Exception {
        // The operator's rotation: the chroot admits the old and the new identity of the user.
        ZooKeeper admin = RawZk.connect(server.connectString(), null, null);
        try {
            List<ACL> both = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest("alice:" + PASSWORD))),
                    new ACL(ZooDefs.Perms.ALL, new Id("digest", digest("alice:" + WRONG))),
                    new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
            admin.create("/rotate", new byte[0], both, CreateMode.PERSISTENT);
        } finally {
            admin.close();
        }
        AtomicReference<Credentials> current = new AtomicReference<>(Credentials.of("alice", PASSWORD));
        AtomicInteger reads = new AtomicInteger();
        LockOptions options = LockOptions.builder().credentials(() -> {
            reads.incrementAndGet();
            return current.get();
        }).build();
        try (LockClient client = Locks.connect(URI.create(server.uri("/rotate")), options)) {
            assertThat(reads).as("read once at connect").hasValue(1);
            Lease first = client.lock("r1").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(nodeAcl("/rotate", "r1")).containsExactlyElementsOf(expectedAcl("alice:" + PASSWORD));
            current.set(Credentials.of("alice", WRONG)); // the rotated secret
            server.expireSession(client);
            await().atMost(Duration.ofSeconds(20)).until(() -> !first.isValid());
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> client.lock("r2").tryAcquire(Duration.ofSeconds(2)).map(lease -> true).orElse(false));
            assertThat(reads.get()).as("read again for the new session").isGreaterThanOrEqualTo(2);
            assertThat(nodeAcl("/rotate", "r2")).containsExactlyElementsOf(expectedAcl("alice:" + WRONG));
            assertThat(first.lost()).isCompleted();
        }
    }

    private static List<ACL> nodeAcl(String chroot, String lock) throws Exception {
        ZooKeeper asAdmin = RawZk.connect(server.connectString(), null, "alice:" + PASSWORD);
        try {
            asAdmin.addAuthInfo("digest", ("alice:" + WRONG).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            String dir = LockNodes.dir(chroot, lock);
            return asAdmin.getACL(dir + "/" + LockNodes.inLine(asAdmin.getChildren(dir, false)).get(0), null);
        } finally {
            asAdmin.close();
        }
    }

    @Test
    void aPreCreatedChrootGrantingOnlyCreateAndReadIsEnough() throws Exception {
        ZooKeeper admin = RawZk.connect(server.connectString(), null, null);
        try {
            admin.create("/least", new byte[0], new ArrayList<>(List.of(
                    new ACL(ZooDefs.Perms.CREATE | ZooDefs.Perms.READ, new Id("digest", digest("alice:" + PASSWORD))),
                    new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE))), CreateMode.PERSISTENT);
        } finally {
            admin.close();
        }
        String uri = server.uri("/least").replace("zookeeper://", "zookeeper://alice:" + PASSWORD + "@");
        try (LockClient a = Locks.connect(uri); LockClient b = Locks.connect(uri)) {
            Lease lease = a.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
            assertThat(b.lock("job").tryAcquire(Duration.ofMillis(200))).isEmpty();
            lease.release();
            b.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow().release();
        }
        // Without ADMIN every digest shows as alice:x, to the right password and to a wrong one alike:
        // the connect cannot tell, and the first acquire is denied.
        try (LockClient wrong = Locks.connect(server.uri("/least").replace("zookeeper://", "zookeeper://alice:" + WRONG + "@"))) {
            assertThatThrownBy(() -> wrong.lock("job").tryAcquire(Duration.ofSeconds(5))).isInstanceOf(AccessDeniedException.class);
        }
    }

    @Test
    void aJvmWideSecureClientPropertyDoesNotTurnTlsOnForAPlainUri() {
        System.setProperty("zookeeper.client.secure", "true");
        System.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
        try (LockClient client = Locks.connect(URI.create(server.uri("/plain")),
                LockOptions.builder().connectTimeout(Duration.ofSeconds(5)).build())) {
            client.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow().release();
        } finally {
            System.clearProperty("zookeeper.client.secure");
            System.clearProperty("zookeeper.clientCnxnSocket");
        }
    }

    @Test
    void badCredentialsAreIllegalArgumentsThatShowNoSecret() {
        String uri = server.uri("/bad");
        String withUser = uri.replace("zookeeper://", "zookeeper://alice:" + PASSWORD + "@");
        LockOptions noUser = LockOptions.builder().credentials(Credentials.of(null, PASSWORD)).build();
        LockOptions colonUser = LockOptions.builder().credentials(Credentials.of("a:b", PASSWORD)).build();
        LockOptions alsoAlice = LockOptions.builder().credentials(Credentials.of("alice", PASSWORD)).build();
        assertThatThrownBy(() -> Locks.connect(URI.create(uri), noUser)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user name").satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
        assertThatThrownBy(() -> Locks.connect(URI.create(uri), colonUser)).isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
        assertThatThrownBy(() -> Locks.connect(URI.create(withUser), alsoAlice)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one place").satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
        for (String query : List.of("?tls=maybe", "?trustStore=/etc/hostname", "?tls=true&trustStore=/nonexistent&trustStorePassword=" + PASSWORD,
                "?tls=true&keyStorePassword=" + PASSWORD)) {
            assertThatThrownBy(() -> Locks.connect(withUser + query)).as(query).isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
        }
    }
}
