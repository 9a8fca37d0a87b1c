package io.distlock.redlock;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockVerification;
import io.distlock.tck.NodeFaults;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.RedisNodes;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK against three real, independent {@code redis-server} processes, each behind a fault
 * proxy, with every node fault: kill, restart without persistence, pause, latency, partition.
 * Without a restart delay, rule 4.3 finds the expected double grant (see the verdict).
 */
class RedlockTckTest extends LockVerification {

    private static RedisNodes nodes;

    @BeforeAll
    static void startServers() {
        nodes = RedisNodes.start(3);
    }

    @AfterAll
    static void stopServers() {
        nodes.close();
    }

    /** The default per-node timeout (50 ms), scaled like every TCK timing on a slow machine. */
    private static final long NODE_TIMEOUT_MILLIS = Math.round(50 * new TestEnvironment().timeoutFactor());

    @Override
    protected LockClient newClient() {
        return Locks.connect(nodes.uri("redlock") + "?nodeTimeout=" + NODE_TIMEOUT_MILLIS);
    }

    @Override
    protected List<String> malformedUris() {
        String auth = "redlock://alice:" + SECRET + "@";
        String three = "127.0.0.1:" + nodes.proxy(0).port() + ",127.0.0.1:" + nodes.proxy(1).port() + ",127.0.0.1:"
                + nodes.proxy(2).port();
        return List.of(
                auth + "127.0.0.1:" + nodes.proxy(0).port() + ",127.0.0.1:" + nodes.proxy(1).port(),
                auth + three + ",127.0.0.1:" + nodes.proxy(0).port(),
                auth + three + ",",
                auth + "127.0.0.1:notaport," + three,
                auth + three + "?nodeTimeout=0",
                auth + three + "?restartDelay=-1",
                auth + three + "?noSuchOption=" + SECRET);
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("redlock://alice:" + SECRET + "@127.0.0.1:" + FreePorts.find() + ",127.0.0.1:"
                + FreePorts.find() + ",127.0.0.1:" + FreePorts.find());
    }

    /** Rule 4.8: the lock key is deleted on every node, as an operator or an eviction would. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> {
            for (int i = 0; i < nodes.size(); i++) {
                nodes.server(i).call("DEL", "distlock:{" + lockName + "}");
            }
        });
    }

    @Override
    protected Optional<NodeFaults> nodeFaults() {
        return Optional.of(new RedisNodeFaults(nodes));
    }
}
