package io.distlock.rediscluster;

import io.distlock.tck.fixtures.RedisCluster;

/**
 * One Redis Cluster for every test class of this module (Surefire runs them in one JVM): 3
 * primaries with 2 replicas each — rule 4.5 fails a primary over to either of two replicas. A test
 * that moves slots or fails primaries over leaves the cluster settled, every slot served; the
 * processes end with the JVM (RedisServer's shutdown hook), or when a test closes them.
 */
public final class SharedCluster {

    private static RedisCluster cluster;

    private SharedCluster() {
    }

    /** @return the module's cluster, started on first use */
    public static synchronized RedisCluster get() {
        if (cluster == null) {
            cluster = RedisCluster.start(3, 2);
        }
        return cluster;
    }

    /** @return a URI with every primary as a seed, and {@code query} ({@code ""} or {@code "?..."}) */
    public static String uri(String query) {
        return "redis-cluster://" + String.join(",", get().seedEndpoints()) + query;
    }
}
