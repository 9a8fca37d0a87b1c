package io.distlock.shedlock;

import io.distlock.tck.fixtures.EtcdCluster;

import java.time.Duration;

/** ShedLock's provider suite on a single etcd member ({@code etcd://}). */
class EtcdShedLockTest extends ShedLockSuite {

    @Override
    protected Started start() {
        EtcdCluster cluster = EtcdCluster.single();
        return new Started(cluster.uri(""), cluster);
    }

    /**
     * 250 ms: an acquire here is a Raft commit with a WAL fsync; on a loaded 2-core machine one
     * took longer than a 50 ms lease's validity, and a grant that arrives with no validity left
     * is dropped (an empty result), which fails the suite's {@code isNotEmpty}.
     */
    @Override
    protected Duration shortestLockAtMostFor() {
        return Duration.ofMillis(250);
    }
}
