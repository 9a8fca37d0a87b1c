package io.distlock.shedlock;

import io.distlock.tck.fixtures.ZooKeeperProcess;

import java.time.Duration;

/**
 * ShedLock's provider suite on a stand-alone ZooKeeper server ({@code zookeeper://}), run in a JVM
 * of its own from this test's class path (which holds the server's jars: see the pom).
 */
class ZooKeeperShedLockTest extends ShedLockSuite {

    @Override
    protected Started start() {
        ZooKeeperProcess server = ZooKeeperProcess.start(System.getProperty("java.class.path"));
        return new Started("zookeeper://" + server.connectString(), server);
    }

    /**
     * 250 ms: an acquire here is a write to the ensemble's fsync'd transaction log, like etcd's
     * (where a 50 ms lease was seen spent before its grant arrived on a loaded machine); the same
     * margin keeps the two consensus backends' short-lease tests out of that race.
     */
    @Override
    protected Duration shortestLockAtMostFor() {
        return Duration.ofMillis(250);
    }
}
