package io.distlock.cli;

import io.distlock.tck.fixtures.EveryBackend;

import java.util.List;

/**
 * One real server of every backend (lock-tck-fixtures' {@link EveryBackend}), started once for all of
 * lock-cli's test classes (they run in one JVM) and stopped when it exits.
 */
public final class Servers {

    private static EveryBackend servers;

    private Servers() {
    }

    /** @return a URI of every backend: redis, redlock, redis-wait, tair, zookeeper, etcd */
    public static synchronized List<String> uris() {
        if (servers == null) {
            servers = EveryBackend.start(System.getProperty("java.class.path"));
            EveryBackend started = servers;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "distlock-cli-test-servers"));
        }
        return servers.uris();
    }

    /** @return the URI of the backend with this scheme */
    public static String uri(String scheme) {
        return uris().stream().filter(u -> u.startsWith(scheme + "://")).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no server for " + scheme));
    }
}
