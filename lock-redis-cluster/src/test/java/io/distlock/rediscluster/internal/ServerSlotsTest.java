package io.distlock.rediscluster.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.rediscluster.SharedCluster;
import io.distlock.tck.fixtures.RedisCluster;

import java.util.List;

import org.junit.jupiter.api.Test;

/** {@link Slots} against the server's own answer ({@code CLUSTER KEYSLOT}), on the module's shared cluster. */
class ServerSlotsTest {

    @Test
    void everySlotIsTheOneTheServerComputes() {
        RedisCluster cluster = SharedCluster.get();
        for (String key : List.of("foo", "distlock:{orders}", "distlock:{a{b}c}:fence", "distlock:{{}}", "distlock:rw:{ünï}:readers",
                "distlock:released:{x}y}", "{}", "{", "plain key with spaces")) {
            assertThat(Slots.slot(key)).as(key).isEqualTo(cluster.slot(key));
        }
    }
}
