package io.distlock.cli;

import io.distlock.tck.fixtures.EveryBackend;
import io.distlock.tck.fixtures.RedisCluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One real server of every backend, started once for all of lock-cli's test classes (they run in one
 * JVM) and stopped when it exits: lock-tck-fixtures' {@link EveryBackend}, and beside it a
 * {@link RedisCluster} of three primaries without replicas for {@code redis-cluster://} (the commands
 * need a cluster's routing, not its failovers), started at the same time.
 */
public final class Servers {

    private static List<String> uris;

    private Servers() {
    }

    /** @return a URI of every backend: redis, redlock, redis-wait, tair, zookeeper, etcd, redis-cluster */
    public static synchronized List<String> uris() {
        if (uris == null) {
            CompletableFuture<RedisCluster> cluster = CompletableFuture.supplyAsync(() -> stopAtExit(RedisCluster.start(3, 0)));
            EveryBackend servers = stopAtExit(EveryBackend.start(System.getProperty("java.class.path")));
            List<String> all = new ArrayList<>(servers.uris());
            try {
                all.add("redis-cluster://" + String.join(",", cluster.join().seedEndpoints()));
            } catch (CompletionException e) {
                throw new IllegalStateException("the Redis Cluster did not start", e.getCause());
            }
            uris = List.copyOf(all);
        }
        return uris;
    }

    /** @return the URI of the backend with this scheme */
    public static String uri(String scheme) {
        return uris().stream().filter(u -> u.startsWith(scheme + "://")).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no server for " + scheme));
    }

    private static <T extends AutoCloseable> T stopAtExit(T servers) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                servers.close();
            } catch (Exception e) {
                // the fixtures' own shutdown hooks end what is left
            }
        }, "distlock-cli-test-servers"));
        return servers;
    }
}
