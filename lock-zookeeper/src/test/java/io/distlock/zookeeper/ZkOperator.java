package io.distlock.zookeeper;

import io.distlock.zookeeper.internal.LockNodes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What an operator does with a plain ZooKeeper client: look at a lock's line, delete its holder's
 * node. Connected lazily, and again if its session ended (a fault rule may have cut it off).
 */
final class ZkOperator implements AutoCloseable {

    private final String connectString;
    private ZooKeeper zk;

    /** @param connectString the servers, as clients reach them */
    ZkOperator(String connectString) {
        this.connectString = connectString;
    }

    private synchronized ZooKeeper zk() {
        try {
            if (zk == null || !zk.getState().isAlive()) {
                zk = ZkServers.connect(connectString, Duration.ofSeconds(30));
            }
            return zk;
        } catch (IOException e) {
            throw new IllegalStateException("no operator connection to " + connectString, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * @return the nodes in line for {@code lockName} under {@code chroot}, first (the holder)
     *         first, as the leader has them (a sync before the listing)
     */
    List<String> inLine(String chroot, String lockName) {
        String dir = LockNodes.dir(chroot, lockName);
        ZooKeeper client = zk();
        try {
            CountDownLatch synced = new CountDownLatch(1);
            client.sync(dir, (rc, path, ctx) -> synced.countDown(), null);
            if (!synced.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no answer to a sync of " + dir);
            }
            return LockNodes.inLine(client.getChildren(dir, false));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (KeeperException e) {
            throw new IllegalStateException("cannot list " + dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Deletes the node first in line for {@code lockName} (its holder's); returns once the
     * ensemble has. The holder is not told: its session lives on.
     */
    void deleteHolderNode(String chroot, String lockName) {
        List<String> line = inLine(chroot, lockName);
        if (line.isEmpty()) {
            throw new IllegalStateException("nobody holds '" + lockName + "' under " + chroot);
        }
        String node = LockNodes.dir(chroot, lockName) + "/" + line.get(0);
        try {
            zk().delete(node, -1);
        } catch (KeeperException e) {
            throw new IllegalStateException("cannot delete " + node, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() {
        if (zk != null) {
            try {
                zk.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
