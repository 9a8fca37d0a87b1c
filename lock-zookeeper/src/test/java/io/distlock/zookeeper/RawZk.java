package io.distlock.zookeeper;

import io.distlock.tck.fixtures.TestCertificates;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A plain ZooKeeper client, as an operator or another program has one: over TLS (trusting the test
 * CA and presenting its client certificate) or not, authenticated with a digest or not.
 */
final class RawZk {

    private RawZk() {
    }

    /**
     * @param connectString the servers
     * @param certificates  the test CA for a TLS server, or null for a plain one
     * @param digest        {@code user:password} to authenticate with, or null
     * @return a connected client; the caller closes it
     */
    static ZooKeeper connect(String connectString, TestCertificates certificates, String digest) throws IOException, InterruptedException {
        ZKClientConfig config = new ZKClientConfig();
        if (certificates != null) {
            config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
            config.setProperty("zookeeper.ssl.trustStore.location", certificates.trustStore().path().toString());
            config.setProperty("zookeeper.ssl.trustStore.password", certificates.trustStore().password());
            config.setProperty("zookeeper.ssl.trustStore.type", certificates.trustStore().type());
            config.setProperty("zookeeper.ssl.keyStore.location", certificates.client().keyStore().path().toString());
            config.setProperty("zookeeper.ssl.keyStore.password", certificates.client().keyStore().password());
            config.setProperty("zookeeper.ssl.keyStore.type", certificates.client().keyStore().type());
        }
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, config);
        Duration timeout = Duration.ofSeconds(20);
        if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            zk.close();
            throw new IOException("no connection to " + connectString + " within " + timeout);
        }
        if (digest != null) {
            // After the connect, as the driver does (ZkSession): sent with it, a TLS server may answer
            // it first and the client drop the connection. It precedes the caller's requests.
            zk.addAuthInfo("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        return zk;
    }
}
