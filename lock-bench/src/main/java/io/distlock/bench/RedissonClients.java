package io.distlock.bench;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson clients for the bench: one server, Redisson's defaults otherwise (as a user starts it). */
final class RedissonClients {

    private RedissonClients() {
    }

    static RedissonClient connect(String host, int port) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + host + ":" + port);
        return Redisson.create(config);
    }

    /**
     * @param nodes the cluster's nodes ({@code host:port}), as seeds
     * @return a client in Redisson's cluster mode, its defaults otherwise
     */
    static RedissonClient connectCluster(java.util.List<String> nodes) {
        Config config = new Config();
        nodes.forEach(node -> config.useClusterServers().addNodeAddress("redis://" + node));
        return Redisson.create(config);
    }
}
