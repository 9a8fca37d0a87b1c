package io.distlock.cli;

import io.distlock.tck.fixtures.EveryBackend;

import java.util.List;

/**
 * One real server of every backend, started once for all of lock-cli's test classes (they run in one
 * JVM) and stopped when it exits: lock-tck-fixtures' {@link EveryBackend} (its Redis Cluster has
 * three primaries without replicas: the commands need a cluster's routing, not its failovers).
 */
public final class Servers {

    private static List<String> uris;

    private Servers() {
    }

    /** @return a URI of every backend: redis, redlock, redis-wait, tair, zookeeper, etcd, redis-cluster */
    public static synchronized List<String> uris() {
        if (uris == null) {
            uris = stopAtExit(EveryBackend.start(System.getProperty("java.class.path"))).uris();
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
