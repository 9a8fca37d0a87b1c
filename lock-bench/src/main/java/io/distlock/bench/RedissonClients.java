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
}
