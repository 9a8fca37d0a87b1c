package example.modulepath;

import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.HazelcastCluster;
import io.distlock.tck.fixtures.PostgresServer;
import io.distlock.tck.fixtures.RedisCluster;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.ZooKeeperProcess;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The servers the consumers run against, each started on first use and shared by every test of
 * the run: Redis, Redis with a password, three Redis nodes, a primary with its replica, a Redis
 * Cluster of three primaries, ZooKeeper and PostgreSQL from the TCK's fixtures, and two that
 * READMEs start themselves — Tair's module built from the published {@code lock-tck-fixtures} jar
 * and loaded into {@code redis-server} (lock-tair's README), and the 3-member etcd cluster
 * (lock-etcd's) — by their own commands, on free ports instead of theirs.
 */
final class Servers implements AutoCloseable {

    /** The password of the password-protected Redis, as lock-redis-single's README writes it. */
    static final String REDIS_PASSWORD = "s3cret";

    private static final Duration START = Duration.ofSeconds(120);

    private final List<AutoCloseable> started = new ArrayList<>();
    private final ConcurrentMap<String, FutureTask<Object>> servers = new ConcurrentHashMap<>();

    /** @return a plain {@code redis-server} */
    RedisServer redis() {
        return get("redis", () -> track(RedisServer.start()));
    }

    /** @return a {@code redis-server} that requires {@value #REDIS_PASSWORD} */
    RedisServer redisWithPassword() {
        return get("redis-password", () -> track(RedisServer.builder().password(REDIS_PASSWORD).start()));
    }

    /** @return three independent {@code redis-server}s, for Redlock */
    List<RedisServer> redlockNodes() {
        return get("redlock", () -> List.of(track(RedisServer.start()), track(RedisServer.start()), track(RedisServer.start())));
    }

    /** @return a primary whose replica is in sync, for Redis + {@code WAIT} */
    RedisServer primaryWithReplica() {
        return get("redis-wait", () -> {
            RedisServer primary = track(RedisServer.start());
            RedisServer replica = track(RedisServer.start());
            replica.call("REPLICAOF", primary.host(), Integer.toString(primary.port()));
            await("the replica syncs", () -> String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up"));
            return primary;
        });
    }

    /** @return a Redis Cluster of three primaries without replicas (all the run-once job needs), for {@code redis-cluster://} */
    RedisCluster redisCluster() {
        return get("redis-cluster", () -> track(RedisCluster.start(3, 0)));
    }

    /** @return one Hazelcast 5.7.0 Community member (a JVM of its own), for {@code hazelcast-map://} */
    HazelcastCluster hazelcast() {
        return get("hazelcast", () -> track(HazelcastCluster.start(HazelcastCluster.memberJar("5.7.0"), 1, false)));
    }

    /** @return {@code host:port} of a stand-alone ZooKeeper (a JVM of its own on this test's class path) */
    String zooKeeper() {
        return get("zookeeper", () -> track(ZooKeeperProcess.start(System.getProperty("java.class.path"))).connectString());
    }

    /** @return a PostgreSQL server */
    PostgresServer postgres() {
        return get("postgres", () -> track(PostgresServer.start()));
    }

    /**
     * lock-tair's README's commands, run as written but for the port and the directory: the
     * CAS/CAD module unpacked from the published {@code lock-tck-fixtures} jar with Maven, compiled with
     * {@code cc}, loaded into a {@code redis-server} in the foreground.
     *
     * @return {@code 127.0.0.1:<port>} of that server, once it answers
     */
    String tair() {
        return get("tair", () -> {
            Path directory = temporaryDirectory("distlock-readme-tair");
            int port = FreePorts.find();
            String script = Readme.replace(Readme.block("lock-tair/README.md", "server/tair"),
                    Map.of("/tmp/", directory + "/", "7200", Integer.toString(port)));
            Shell.Started server = track(Shell.start(directory, script));
            await("the README's Tair server answers PING:\n" + script, server, () -> answersPing(port));
            return "127.0.0.1:" + port;
        });
    }

    /**
     * lock-etcd's README's 3-member cluster, run as written but for its ports and directories.
     *
     * @return each port the README names (client and peer ports) and the free port it became
     */
    Map<String, String> etcdCluster() {
        return get("etcd", () -> {
            Path directory = temporaryDirectory("distlock-readme-etcd");
            Map<String, String> ports = new LinkedHashMap<>();
            for (int readmePort = 2389; readmePort <= 2394; readmePort++) {
                ports.put(Integer.toString(readmePort), Integer.toString(FreePorts.find()));
            }
            Map<String, String> replacements = new LinkedHashMap<>(ports);
            replacements.put("/tmp/", directory + "/");
            String script = Readme.replace(Readme.block("lock-etcd/README.md", "server/etcd-cluster"), replacements);
            Shell.Started cluster = track(Shell.start(directory, script));
            for (String client : List.of("2389", "2391", "2393")) {
                int port = Integer.parseInt(ports.get(client));
                await("etcd member on " + client + " of the README's cluster is healthy and grants a lease:\n" + script, cluster,
                        () -> answers(port, "/health", "\"health\":\"true\"") && answers(port, "/v3/lease/grant", "\"ID\""));
            }
            return Map.copyOf(ports);
        });
    }

    /**
     * Starts every server side by side and returns once all have started or failed; a server that
     * failed fails the tests that use it, with its cause, not the others.
     */
    void startAll() {
        List<Runnable> starts = List.of(this::redis, this::redisWithPassword, this::redlockNodes, this::primaryWithReplica,
                this::redisCluster, this::hazelcast, this::zooKeeper, this::postgres, this::tair, this::etcdCluster);
        ExecutorService pool = Executors.newFixedThreadPool(starts.size());
        try {
            List<Future<?>> started = starts.stream().<Future<?>>map(pool::submit).toList();
            for (Future<?> start : started) {
                try {
                    start.get();
                } catch (ExecutionException failed) {
                    // reported again, with its cause, to each test that asks for that server
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            pool.shutdown();
        }
    }

    @Override
    public synchronized void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                // the others still stop; the fixtures' shutdown hooks end what is left
            }
        }
        started.clear();
    }

    /** Starts a server once, on the first call for its name; callers for other servers do not wait for it. */
    @SuppressWarnings("unchecked")
    private <T> T get(String name, Supplier<T> start) {
        FutureTask<Object> task = new FutureTask<>(start::get);
        FutureTask<Object> first = servers.putIfAbsent(name, task);
        if (first == null) {
            task.run();
            first = task;
        }
        try {
            return (T) first.get();
        } catch (ExecutionException e) {
            throw new AssertionError("the server '" + name + "' did not start", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while '" + name + "' started", e);
        }
    }

    private synchronized <T extends AutoCloseable> T track(T server) {
        started.add(server);
        return server;
    }

    private static Path temporaryDirectory(String prefix) {
        try {
            return Files.createTempDirectory(Path.of("target").toAbsolutePath(), prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void await(String what, Shell.Started script, BooleanSupplier ready) {
        await(what, () -> {
            if (!script.isAlive()) {
                throw new AssertionError("ended before: " + what + "\n" + script.result(-1).describe());
            }
            return ready.getAsBoolean();
        });
    }

    private static void await(String what, BooleanSupplier ready) {
        long deadline = System.nanoTime() + Shell.scaled(START).toNanos();
        while (!ready.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + Shell.scaled(START) + ": " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    private static boolean answersPing(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = in.readNBytes(7);
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * @return true if the etcd member on {@code clientPort} answers a GET of {@code path} (a POST with a
     * 5 s lease's TTL for the lease API) with 200 and a body that contains {@code expected}
     */
    private static boolean answers(int clientPort, String path, String expected) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + clientPort + path))
                .timeout(Duration.ofSeconds(2));
        if (path.startsWith("/v3/")) {
            request.POST(HttpRequest.BodyPublishers.ofString("{\"TTL\":\"5\"}"));
        }
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().contains(expected);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
