/**
 * The ZooKeeper backend ({@code zookeeper://}): a CORRECTNESS lock whose fencing token is the lock
 * node's {@code czxid}. Its driver lives in the non-exported {@code io.distlock.zookeeper.internal}.
 *
 * <p>On a module path, ZooKeeper's two jars split packages ({@code zookeeper} and
 * {@code zookeeper-jute} both hold {@code org.apache.zookeeper.server.persistence} and
 * {@code ...quorum}): run with {@code --patch-module zookeeper=zookeeper-jute-<version>.jar} and
 * without the jute jar on the module path (see this module's README).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.zookeeper {
    requires io.distlock;
    requires curator.framework;
    requires curator.client;
    requires zookeeper;

    provides io.distlock.spi.LockBackend with io.distlock.zookeeper.ZooKeeperLockBackend;
}
