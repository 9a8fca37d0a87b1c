package io.distlock.zookeeper.internal;

import io.distlock.LockOptions;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A delete in a directory of another identity (after rotated credentials, the lock's directory is
 * still the old identity's): ZooKeeper refuses it before it looks whether the node is there. A node
 * that is gone counts as deleted, so the engine's cleanup of a lease that went with an expired
 * session ends; a node that is still there stays refused.
 */
class ZkSessionDeleteTest {

    @Test
    void aRefusedDeleteOfANodeThatIsGoneIsConfirmedAndOfOneThatIsThereIsRefused(@TempDir Path root) throws Exception {
        // Under the test's own directory: the server writes its configuration file beside its data.
        InstanceSpec spec = new InstanceSpec(Files.createDirectories(root.resolve("data")).toFile(), -1, -1, -1, true, -1);
        try (TestingServer server = new TestingServer(spec, true)) {
            ZooKeeper old = new ZooKeeper(server.getConnectString(), 10_000, event -> { });
            old.addAuthInfo("digest", "alice:old-pw".getBytes(StandardCharsets.UTF_8));
            List<ACL> oldOnly = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL,
                    new Id("digest", DigestAuthenticationProvider.generateDigest("alice:old-pw"))),
                    new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
            List<ACL> both = new ArrayList<>(oldOnly);
            both.add(new ACL(ZooDefs.Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest("alice:new-pw"))));
            old.create("/locks", new byte[0], both, CreateMode.PERSISTENT);
            old.create("/locks/job", new byte[0], oldOnly, CreateMode.PERSISTENT);
            old.create("/locks/job/held", new byte[0], oldOnly, CreateMode.PERSISTENT);
            ZkSession rotated = ZkSession.open(ZkEndpoint.parse(URI.create("zookeeper://alice:new-pw@" + server.getConnectString() + "/locks")),
                    LockOptions.defaults(), state -> { }, ended -> { });
            try {
                assertThat(rotated.delete("/locks/job/gone", "release")).as("gone: confirmed, not deleted").isFalse();
                assertThatThrownBy(() -> rotated.delete("/locks/job/held", "release")).isInstanceOf(KeeperException.NoAuthException.class);
            } finally {
                rotated.close();
                old.close();
            }
        }
    }
}
