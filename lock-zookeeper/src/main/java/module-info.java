/**
 * The ZooKeeper backend ({@code zookeeper://}): a CORRECTNESS lock whose fencing token is the lock
 * node's {@code czxid}. Its driver lives in the non-exported {@code io.distlock.zookeeper.internal}.
 *
 * <p>On a module path, ZooKeeper's two jars split packages ({@code zookeeper} and
 * {@code zookeeper-jute} both hold {@code org.apache.zookeeper.server.persistence} and
 * {@code ...quorum}): run with {@code --patch-module zookeeper=zookeeper-jute-<version>.jar} and
 * without the jute jar on the module path (see this module's README).
 *
 * <p>{@code tls=true} uses ZooKeeper's Netty socket. Netty's jars are named modules, which a module
 * path resolves only when something requires them, and ZooKeeper (an automatic module) cannot: this
 * module requires the TLS handler and the epoll classes (which ZooKeeper loads for every Netty
 * socket) on its behalf, though its own code names neither.
 *
 * <p>For the same reason it requires {@code org.slf4j}, an explicit module that Curator and ZooKeeper
 * log through: without it, a module path holding this backend alone fails at the first connect with
 * {@code NoClassDefFoundError: org/slf4j/LoggerFactory}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.zookeeper {
    requires io.distlock;
    requires curator.framework;
    requires curator.client;
    requires zookeeper;
    requires io.netty.handler;
    requires io.netty.transport.classes.epoll;
    requires org.slf4j;

    provides io.distlock.spi.LockBackend with io.distlock.zookeeper.ZooKeeperLockBackend;
}
