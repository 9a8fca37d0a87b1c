package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.FreePorts;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad input and ZooKeeper specifics, against one real server on a free loopback port. */
class ZooKeeperBackendTest {

    private static ZkServers server;

    @BeforeAll
    static void start() {
        server = ZkServers.single();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void anUnreachableEnsembleIsReportedWithinTheConnectTimeoutNamingItsHosts() {
        String hosts = "127.0.0.1:" + FreePorts.find() + ",127.0.0.1:" + FreePorts.find();
        LockOptions options = LockOptions.builder().connectTimeout(Duration.ofMillis(500)).build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Locks.connect(URI.create("zookeeper://" + hosts + "/app"), options))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining(hosts)
                .satisfies(e -> assertThat(((BackendUnavailableException) e).endpoint()).isEqualTo("zookeeper://" + hosts + "/app"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500 + 1_000));
    }

    @Test
    void aServerThatAcceptsButNeverAnswersIsReportedWithinTheConnectTimeoutNamingIt() throws Exception {
        // Connections are accepted and held; nothing is ever read or answered.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName(FreePorts.LOOPBACK))) {
            List<Socket> accepted = new CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            }, "silent-server");
            acceptor.setDaemon(true);
            acceptor.start();
            String hosts = FreePorts.LOOPBACK + ":" + silent.getLocalPort();
            String secret = "s3cret-pw";
            LockOptions options = LockOptions.builder().connectTimeout(Duration.ofMillis(500)).build();
            long start = System.nanoTime();
            try {
                assertThatThrownBy(() -> Locks.connect(URI.create("zookeeper://alice:" + secret + "@" + hosts + "/app"), options))
                        .isInstanceOf(BackendUnavailableException.class)
                        .hasMessageContaining(hosts)
                        .hasMessageNotContaining(secret)
                        .satisfies(e -> assertThat(((BackendUnavailableException) e).endpoint()).doesNotContain(secret));
                assertThat(accepted).as("the client did reach the silent server").isNotEmpty();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("connect against a silent server (session timeout 10 s)")
                        .isLessThan(Duration.ofMillis(500 + 1_000));
            } finally {
                for (Socket socket : accepted) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void aChrootWithoutPermissionIsAClearErrorAtTheFirstAcquire() throws Exception {
        ZooKeeper admin = ZkServers.connect(server.connectString(), Duration.ofSeconds(10));
        try {
            List<ACL> readOnly = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.READ, new Id("world", "anyone")))); // ZooKeeper asks contains(null)
            admin.create("/read-only", new byte[0], readOnly, CreateMode.PERSISTENT);
        } finally {
            admin.close();
        }
        try (LockClient client = Locks.connect(server.uri("/read-only"))) {
            assertThatThrownBy(() -> client.lock("job").tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(LockException.class)
                .isNotInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("no permission")
                .hasMessageContaining("/read-only");
        }
    }

    @Test
    void aChrootThatCannotBeReadIsAClearErrorAtConnect() throws Exception {
        ZooKeeper admin = ZkServers.connect(server.connectString(), Duration.ofSeconds(10));
        try {
            List<ACL> createOnly = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.CREATE, new Id("world", "anyone"))));
            admin.create("/unreadable", new byte[0], createOnly, CreateMode.PERSISTENT);
        } finally {
            admin.close();
        }
        assertThatThrownBy(() -> Locks.connect(server.uri("/unreadable")))
                .isInstanceOf(LockException.class)
                .isNotInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("no permission")
                .hasMessageContaining("/unreadable");
    }

    @Test
    void aMissingChrootIsCreated() {
        try (LockClient client = Locks.connect(server.uri("/new/app/locks"))) {
            Lease lease = client.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(lease.fencingToken()).isPresent();
            lease.release();
        }
    }

    @Test
    void namesThatAreNotZnodeNamesAreEncodedNotRefused() throws Exception {
        try (LockClient a = Locks.connect(server.uri("/names")); LockClient b = Locks.connect(server.uri("/names"))) {
            for (String name : List.of("a/b", "..", ".", "zookeeper", "x\u00f1\u6f22\ud83d\ude00", "/", "100%")) {
                Lease lease = a.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
                assertThat(b.lock(name).tryAcquire(Duration.ofSeconds(5))).as(name + " is held").isEmpty();
                lease.release();
            }
        }
        ZooKeeper admin = ZkServers.connect(server.connectString(), Duration.ofSeconds(10));
        try {
            assertThat(admin.getChildren("/names", false)).contains("a%2Fb", "%2E%2E", "%2E", "zookeeper", "100%25");
        } finally {
            admin.close();
        }
    }

    @Test
    void aFencingTokenIsTheLockNodesCzxid() throws Exception {
        try (LockClient client = Locks.connect(server.uri("/czxid"))) {
            Lease lease = client.lock("job").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            ZooKeeper admin = ZkServers.connect(server.connectString(), Duration.ofSeconds(10));
            try {
                String node = admin.getChildren("/czxid/job", false).get(0);
                assertThat(lease.fencingToken()).hasValue(admin.exists("/czxid/job/" + node, false).getCzxid());
            } finally {
                admin.close();
            }
            lease.release();
        }
    }
}
