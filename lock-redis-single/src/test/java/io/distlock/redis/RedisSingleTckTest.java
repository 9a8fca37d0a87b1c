package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.RedisReplicaSet;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK against one real {@code redis-server} on a free loopback port; for rule 4.5 (failover),
 * also against a Sentinel-managed primary with two replicas ({@link RedisReplicaSet}, started for
 * that rule only), which a {@code redis://} client reaches at its primary's address: what users of
 * a single Redis with replicas for high availability run.
 */
class RedisSingleTckTest extends LockVerification {

    private static RedisServer redis;
    private static RedisReplicaSet replicated;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
        if (replicated != null) {
            replicated.close();
        }
    }

    /** The server's clock jumps: every TTL ends that much earlier ({@link RedisServer#shiftClock}). */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(ClockJump.of(1, (node, delta) -> redis.shiftClock(delta)));
    }

    /** A client made after a failover connects to the new primary, as one behind a virtual address would. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        if (replicated == null) {
            replicated = RedisReplicaSet.start(2, 3);
        }
        return Optional.of(replicated.replicaFailover(() -> Locks.connect("redis://" + replicated.primaryEndpoint())));
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(redis.uri());
    }

    /** Rules 1.4, 1.7 and 4.15: a client in a child JVM connects as {@link #newClient()} does. */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(redis.uri()));
    }

    @Override
    protected List<String> malformedUris() {
        String base = "redis://alice:" + SECRET + "@127.0.0.1:" + redis.port();
        return List.of(
                "redis://alice:" + SECRET + "@",
                "redis://alice:" + SECRET + "@127.0.0.1:notaport",
                base + "/notadb",
                base + "?noSuchOption=" + SECRET,
                base + "?poolSize=0");
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of("redis://alice:" + SECRET + "@127.0.0.1:" + FreePorts.find());
    }

    /** Rules 4.8 and 4.13: the server drops the lock key, as an eviction or an operator would; the holder learns on renewal. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> redis.call("DEL", LockScripts.lockKey(lockName)));
    }

    /** The partitioned clients' timeouts: short, so that the partition rules do not wait out 2 s defaults; scaled. */
    private static final LockOptions PARTITIONED = LockOptions.builder()
            .connectTimeout(scaled(Duration.ofMillis(500))).operationTimeout(scaled(Duration.ofMillis(500))).build();

    private static Duration scaled(Duration d) {
        return Duration.ofMillis(Math.round(d.toMillis() * new TestEnvironment().timeoutFactor()));
    }

    /** Rules 4.9–4.12, 4.14, 4.16 and 4.17: each client reaches the server through a fault proxy of its own. */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(ClientPartition.of(() -> FaultProxy.partitionedClient(List.of(redis.endpoint()),
                proxies -> Locks.connect(URI.create("redis://" + proxies.get(0).endpoint()), PARTITIONED)),
                PARTITIONED.operationTimeout(), Duration.ZERO));
    }

    /** Rule 1.10: the lock key's PTTL ({@code -1}, no expiry: held until released). */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(lockName -> {
            long pttl = (Long) redis.call("PTTL", LockScripts.lockKey(lockName));
            return pttl == -2 ? Optional.empty()
                    : Optional.of(pttl == -1 ? LockProbe.UNTIL_RELEASED : Duration.ofMillis(pttl));
        });
    }

    /** Rule 4.15: the server is killed and comes back empty (no persistence): its fence counter starts over. */
    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(() -> {
            redis.kill();
            redis.restart();
        });
    }
}
