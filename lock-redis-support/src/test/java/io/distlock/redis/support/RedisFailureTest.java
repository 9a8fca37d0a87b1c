package io.distlock.redis.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.RedisServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * {@link RedisFailure}: one case per failure, each produced by the real Jedis against a real
 * server (or a socket that behaves like a broken one), so that a Jedis upgrade that changes how it
 * reports one of them fails here, by name, rather than changing what the lock reports.
 */
class RedisFailureTest {

    private static final JedisClientConfig QUICK = DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(200).socketTimeoutMillis(200)
            .autoNegotiateProtocol(false).clientSetInfoConfig(ClientSetInfoConfig.DISABLED).build();

    private RedisServer redis;
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeEach
    void start() {
        redis = RedisServer.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closeAfter) {
            try {
                c.close();
            } catch (RuntimeException alreadyBroken) {
                // closing a broken connection may fail: it is gone either way
            }
        }
        redis.close();
    }

    private static RuntimeException thrown(Runnable action) {
        Throwable t = catchThrowable(action::run);
        assertThat(t).as("the action must fail").isInstanceOf(RuntimeException.class);
        return (RuntimeException) t;
    }

    private Jedis jedis(int port) {
        Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", port), QUICK);
        closeAfter.add(jedis);
        return jedis;
    }

    @Test
    void aRefusedConnectIsAConnectionLostAndTheNodeIsDown() {
        // Jedis 8: JedisConnectionException("Failed to connect"), the ConnectException only suppressed.
        RuntimeException e = thrown(() -> jedis(FreePorts.find()).ping());
        assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.CONNECTION_LOST);
        assertThat(RedisFailure.of(e).down()).isTrue();
        assertThat(RedisFailure.of(e).outcomeUnknown()).isTrue();
    }

    @Test
    void aConnectTimeoutIsATimeoutNotADownNode() throws IOException {
        // A listener that never accepts, its backlog full: further connects hang in SYN. Jedis 8 keeps
        // the SocketTimeoutException as a suppressed exception (no cause): following causes misses it.
        ServerSocket hanging = new ServerSocket(0, 1, InetAddress.getByName(FreePorts.LOOPBACK));
        closeAfter.add(hanging);
        for (int i = 0; i < 4; i++) {
            Socket filler = new Socket();
            closeAfter.add(filler);
            try {
                filler.connect(new InetSocketAddress(FreePorts.LOOPBACK, hanging.getLocalPort()), 100);
            } catch (IOException queueFull) {
                // what we want: the queue is full
            }
        }
        RuntimeException e = thrown(() -> jedis(hanging.getLocalPort()).ping());
        assertThat(e.getCause()).as("the shape this classification exists for").isNull();
        assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.TIMEOUT);
        assertThat(RedisFailure.of(e).down()).isFalse();
    }

    /** What a PING on a working connection through a proxy throws once {@code fault} hit the proxy. */
    private RuntimeException pingAfter(java.util.function.Consumer<FaultProxy> fault) {
        FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
        closeAfter.add(proxy);
        Jedis jedis = jedis(proxy.port());
        jedis.ping();
        fault.accept(proxy);
        return thrown(jedis::ping);
    }

    @Test
    void aReadTimeoutIsATimeout() {
        RuntimeException e = pingAfter(FaultProxy::blackhole);
        assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.TIMEOUT);
        assertThat(RedisFailure.of(e).outcomeUnknown()).isTrue();
    }

    @Test
    void theServerClosingTheConnectionIsAConnectionLost() {
        Jedis jedis = jedis(redis.port());
        jedis.ping();
        redis.kill(); // "Unexpected end of stream" (or a reset, depending on timing): both lost
        RuntimeException e = thrown(jedis::ping);
        assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.CONNECTION_LOST);
    }

    @Test
    void aResetConnectionIsAConnectionLost() {
        assertThat(RedisFailure.of(pingAfter(FaultProxy::resetConnections))).isEqualTo(RedisFailure.CONNECTION_LOST);
    }

    @Test
    void aBrokenConnectionThatThePoolCannotReplaceIsAConnectionLost() {
        // Returning a broken connection makes the pool open another at once; with the server gone
        // that fails, wrapped as "Could not return the broken resource to the pool".
        GenericObjectPoolConfig<Connection> config = new GenericObjectPoolConfig<>();
        config.setMaxTotal(1);
        ConnectionPool pool = new ConnectionPool(new HostAndPort(redis.host(), redis.port()), QUICK, config);
        closeAfter.add(pool);
        Connection connection = pool.getResource();
        Jedis jedis = new Jedis(connection);
        jedis.ping();
        redis.kill();
        RedisFailure used = RedisFailure.of(thrown(jedis::ping));
        RuntimeException returned = thrown(jedis::close);
        assertThat(used).isEqualTo(RedisFailure.CONNECTION_LOST);
        assertThat(RedisFailure.of(returned)).isEqualTo(RedisFailure.CONNECTION_LOST);
    }

    @Test
    void noFreePooledConnectionIsPoolExhausted() {
        RedisNode node = RedisNode.connect(RedisEndpoint.parse(URI.create(redis.uri()), RedisEndpoint.OPTIONS),
                Duration.ofMillis(200), Duration.ofMillis(200), 1);
        closeAfter.add(node);
        RuntimeException e = thrown(() -> node.withConnection("outer", outer -> node.withConnection("inner", Jedis::ping)));
        // withConnection has translated it already; the kind survives in the cause.
        assertThat(RedisFailure.of(e.getCause())).isEqualTo(RedisFailure.POOL_EXHAUSTED);
        assertThat(e).isInstanceOf(io.distlock.BackendUnavailableException.class).hasMessageContaining("poolSize");
    }

    @Test
    void aWrongTypeIsAServerErrorADefiniteAnswer() {
        Jedis jedis = jedis(redis.port());
        jedis.hset("h", "f", "v");
        RuntimeException e = thrown(() -> jedis.incr("h"));
        assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.SERVER_ERROR);
        assertThat(RedisFailure.of(e).outcomeUnknown()).isFalse();
    }

    @Test
    void anUnknownScriptIsNoScriptAlsoInAPipeline() {
        Jedis jedis = jedis(redis.port());
        String sha = LockScripts.RELEASE.sha1();
        assertThat(RedisFailure.of(thrown(() -> jedis.evalsha(sha, List.of("k"), List.of("t", "c")))))
                .isEqualTo(RedisFailure.NO_SCRIPT);
        Response<Object> reply;
        try (Pipeline pipeline = jedis.pipelined()) {
            reply = pipeline.evalsha(sha, List.of("k"), List.of("t", "c"));
            pipeline.sync();
        }
        assertThat(RedisFailure.of(thrown(reply::get))).isEqualTo(RedisFailure.NO_SCRIPT);
    }

    @Test
    void refusedCredentialsAreAnAuthenticationRefusal() {
        try (RedisServer secured = RedisServer.builder().password("right").start()) {
            Jedis noPassword = jedis(secured.port());
            assertThat(RedisFailure.of(thrown(noPassword::ping))).as("NOAUTH").isEqualTo(RedisFailure.AUTHENTICATION_REFUSED);
            Jedis wrong = jedis(secured.port());
            assertThat(RedisFailure.of(thrown(() -> wrong.auth("wrong")))).as("WRONGPASS")
                    .isEqualTo(RedisFailure.AUTHENTICATION_REFUSED);
            assertThat(RedisFailure.AUTHENTICATION_REFUSED.outcomeUnknown()).isFalse();
        }
    }

    @Test
    void anAclRefusalIsAccessDeniedDirectPipelinedAndFromAScript() {
        try (RedisServer secured = RedisServer.builder().aclUser("other", "pw-other", "~other:*", "+@all").start()) {
            Jedis other = jedis(secured.port());
            other.auth("other", "pw-other");
            assertThat(RedisFailure.of(thrown(() -> other.set("distlock:{x}", "v")))).as("a key outside ~other:*")
                    .isEqualTo(RedisFailure.ACCESS_DENIED);
            Response<String> reply;
            try (Pipeline pipeline = other.pipelined()) {
                reply = pipeline.set("distlock:{x}", "v");
                pipeline.sync();
            }
            assertThat(RedisFailure.of(thrown(reply::get))).as("pipelined").isEqualTo(RedisFailure.ACCESS_DENIED);
            assertThat(RedisFailure.of(thrown(() -> other.eval("return redis.call('SET', KEYS[1], 'v')",
                    List.of("distlock:{x}"), List.of())))).as("a script's declared key").isEqualTo(RedisFailure.ACCESS_DENIED);
            RuntimeException inner = thrown(() -> other.eval("return redis.call('SET', 'distlock:{y}', 'v')",
                    List.of("other:k"), List.of()));
            // Redis 7.0 reports a refusal inside a script as a script error (code ERR), in its own words.
            assertThat(RedisFailure.of(inner)).as("a key only the script names").isEqualTo(RedisFailure.ACCESS_DENIED);
            assertThat(RedisFailure.ACCESS_DENIED.outcomeUnknown()).isFalse();
        }
    }

    @Test
    void aServerRunningALongScriptIsUnavailableNotARefusal() throws Exception {
        Jedis admin = jedis(redis.port());
        admin.configSet("busy-reply-threshold", "20");
        Jedis looping = new Jedis(new HostAndPort("127.0.0.1", redis.port()), DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(10_000).build());
        closeAfter.add(looping);
        CompletableFuture<Object> loop = CompletableFuture.supplyAsync(() -> {
            try {
                return looping.eval("while true do end");
            } catch (RuntimeException killed) {
                return killed;
            }
        });
        RuntimeException e = thrown(() -> {
            for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); System.nanoTime() < until; ) {
                admin.ping(); // PONG until the script has run longer than the threshold, then BUSY
            }
        });
        assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.SERVER_UNAVAILABLE);
        assertThat(RedisFailure.of(e).outcomeUnknown()).isTrue();
        admin.scriptKill();
        loop.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aReplicaRefusingWritesIsUnavailableNotARefusal() {
        try (RedisServer replica = RedisServer.start()) {
            Jedis jedis = jedis(replica.port());
            jedis.replicaof(redis.host(), redis.port());
            RuntimeException e = thrown(() -> jedis.set("k", "v"));
            assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.SERVER_UNAVAILABLE);
        }
    }

    @Test
    void aPrimaryWithTooFewGoodReplicasRefusingWritesIsUnavailableNotARefusal() {
        Jedis jedis = jedis(redis.port());
        jedis.configSet("min-replicas-to-write", "1"); // and no replica: NOREPLICAS until one connects
        RuntimeException e = thrown(() -> jedis.set("k", "v"));
        assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.SERVER_UNAVAILABLE);
    }

    @Test
    void aClosedNodeIsClosed() {
        RedisNode node = RedisNode.open(RedisEndpoint.parse(URI.create(redis.uri()), RedisEndpoint.OPTIONS),
                Duration.ofMillis(200), Duration.ofMillis(200), 1);
        node.close();
        RuntimeException e = thrown(() -> node.withConnection("closed", Jedis::ping));
        assertThat(RedisFailure.of(e)).isEqualTo(RedisFailure.CLOSED);
        assertThat(e).isInstanceOf(IllegalStateException.class);
    }
}
