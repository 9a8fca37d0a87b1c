package io.distlock.zookeeper;

import io.distlock.spi.LockRequest;
import io.distlock.zookeeper.internal.LockNodes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The lines of read-write locks and semaphores as an operator's plain client sees them, and the
 * small things the tests of those primitives share.
 */
final class HoldLines {

    private HoldLines() {
    }

    /** @return the request nodes in {@code dir}, first in line first, as the leader has them (a sync first); empty if there is no such directory */
    static List<String> line(ZooKeeper raw, String dir) {
        try {
            CompletableFuture<Void> synced = new CompletableFuture<>();
            raw.sync(dir, (rc, path, ctx) -> synced.complete(null), null);
            synced.get(10, TimeUnit.SECONDS);
            return LockNodes.holdLine(raw.getChildren(dir, false));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException("cannot list " + dir, e);
        }
    }

    /** Waits for one reply on {@code zk}'s session: everything the server sent it before has been processed. */
    static void roundTrip(ZooKeeper zk) throws Exception {
        CompletableFuture<Void> answered = new CompletableFuture<>();
        zk.exists("/", false, (rc, path, ctx, stat) -> answered.complete(null), null);
        answered.get(10, TimeUnit.SECONDS);
    }

    /** A request as the engine makes one, for tests that drive a driver directly. */
    static LockRequest request(String name, io.distlock.spi.Hold hold) {
        return new LockRequest(name, UUID.randomUUID().toString().replace("-", ""), Duration.ofSeconds(30),
                System.nanoTime() + TimeUnit.MINUTES.toNanos(1), hold);
    }

    static String unique(String name) {
        return name + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
