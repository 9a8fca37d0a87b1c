package io.distlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockOptions;
import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisNode;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Batches of thousands of leases on every node: one pipeline per node, also when the nodes lost their scripts. */
class RedlockBatchTest {

    private static final int LEASES = 10_000;
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final List<RedisServer> servers = new ArrayList<>();
    private RedlockDriver driver;

    @BeforeEach
    void start() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start());
        }
        String nodes = servers.stream().map(RedisServer::endpoint).collect(Collectors.joining(","));
        driver = RedlockDriver.connect(RedlockSettings.parse(URI.create("redlock://" + nodes + "?nodeTimeout=200")),
                LockOptions.defaults(), new io.distlock.spi.DriverContext() {
                    @Override
                    public void leaseLost(io.distlock.spi.Grant grant, io.distlock.Lease.LossReason reason) {
                    }

                    @Override
                    public void connectionSuspended() {
                    }

                    @Override
                    public void connectionRestored() {
                    }
                });
    }

    @AfterEach
    void stop() {
        driver.close();
        servers.forEach(RedisServer::close);
    }

    private long calls(int node, String command) {
        String stats = (String) servers.get(node).call("INFO", "commandstats");
        return stats.lines().filter(line -> line.startsWith("cmdstat_" + command + ":")).findFirst()
                .map(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))).orElse(0L);
    }

    private List<Renewal> holdLeases() {
        List<Renewal> renewals = new ArrayList<>(LEASES);
        List<PendingReply.Call> sets = new ArrayList<>(LEASES);
        for (int i = 0; i < LEASES; i++) {
            LockRequest request = new LockRequest("batch-" + i, "owner-" + i, LEASE);
            sets.add(new PendingReply.CommandCall("SET", List.of(LockScripts.lockKey(request.name()), request.ownerToken(),
                    "PX", Long.toString(LEASE.toMillis()))));
            renewals.add(new Renewal(new Grant(request, OptionalLong.empty(), null), Duration.ofSeconds(90)));
        }
        List<RedlockNode> setup = new ArrayList<>();
        for (RedisServer server : servers) {
            setup.add(new RedlockNode(RedisNode.open(RedisEndpoint.parse(URI.create(server.uri()), RedisEndpoint.OPTIONS),
                    Duration.ofSeconds(1), Duration.ofSeconds(10), 1), Duration.ZERO));
        }
        try {
            List<FanOut.Answer> set = FanOut.run(setup, "set up", sets, System.nanoTime() + Duration.ofSeconds(10).toNanos());
            assertThat(set).allMatch(FanOut.Answer::answered);
        } finally {
            setup.forEach(node -> node.redis.close());
        }
        return renewals;
    }

    @Test
    void noScriptRecoveryOfTenThousandRenewalsSendsEachScriptOncePerNode() {
        List<Renewal> renewals = holdLeases();
        assertThat(driver.extendAll(renewals.subList(0, 1))).containsExactly(ExtendOutcome.extended()); // scripts known
        long[] evalBefore = new long[3];
        for (int i = 0; i < 3; i++) {
            servers.get(i).call("SCRIPT", "FLUSH"); // as a restart with persistence, or an operator, would
            evalBefore[i] = calls(i, "eval");
        }

        List<ExtendOutcome> outcomes = driver.extendAll(renewals);

        assertThat(outcomes).hasSize(LEASES).allMatch(ExtendOutcome::isExtended);
        for (int i = 0; i < 3; i++) {
            // The renewals that met NOSCRIPT go again in one pipeline: the first as EVAL (which loads
            // the script), the rest as EVALSHA — not one EVAL round trip per lease.
            assertThat(calls(i, "eval") - evalBefore[i]).as("EVALs on node %d", i).isEqualTo(1);
            assertThat((Long) servers.get(i).call("PTTL", "distlock:{batch-9999}")).isGreaterThan(60_000L);
        }
    }
}
