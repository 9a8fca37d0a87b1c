package io.distlock.redlock;

import io.distlock.tck.NodeFaults;
import io.distlock.tck.fixtures.RedisNodes;
import io.distlock.tck.fixtures.RedisServer;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * Every {@link NodeFaults} fault on real {@code redis-server} processes: the minority is the first
 * {@code (N - 1) / 2} nodes; a stopped node comes back empty (no persistence), as in the Redlock
 * write-ups' restart scenario.
 */
final class RedisNodeFaults implements NodeFaults {

    private final RedisNodes nodes;
    private final int minority;

    RedisNodeFaults(RedisNodes nodes) {
        this.nodes = nodes;
        this.minority = (nodes.size() - 1) / 2;
    }

    @Override
    public Set<Kind> offered() {
        return EnumSet.allOf(Kind.class);
    }

    @Override
    public Fault stopMinority() {
        for (int i = 0; i < minority; i++) {
            nodes.server(i).kill();
        }
        return once(() -> {
            for (int i = 0; i < minority; i++) {
                nodes.server(i).restart();
            }
        });
    }

    /** Kills the first node outside the minority (one that was up through stopMinority) and restarts it empty. */
    @Override
    public void restartOneWithoutPersistence() {
        RedisServer server = nodes.server(minority);
        server.kill();
        server.restart();
    }

    @Override
    public Fault pauseMinority() {
        for (int i = 0; i < minority; i++) {
            nodes.server(i).pause();
        }
        return once(() -> {
            for (int i = 0; i < minority; i++) {
                nodes.server(i).resume();
            }
        });
    }

    @Override
    public Fault slowMinority(Duration latency) {
        for (int i = 0; i < minority; i++) {
            nodes.proxy(i).latency(latency);
        }
        return once(this::healProxies);
    }

    @Override
    public Fault partitionMinority() {
        for (int i = 0; i < minority; i++) {
            nodes.proxy(i).blackhole();
        }
        return once(this::healProxies);
    }

    private void healProxies() {
        for (int i = 0; i < minority; i++) {
            nodes.proxy(i).heal();
        }
    }

    private static Fault once(Runnable end) {
        boolean[] ended = {false};
        return () -> {
            synchronized (ended) {
                if (!ended[0]) {
                    ended[0] = true;
                    end.run();
                }
            }
        };
    }
}
