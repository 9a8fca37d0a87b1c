package io.distlock.zookeeper.internal;

import java.util.List;

/**
 * Where a lock's nodes are, for tests that look at (or change) the tree as an operator would: the
 * driver's own path rules, opened to the tests of {@code io.distlock.zookeeper}.
 */
public final class LockNodes {

    private LockNodes() {
    }

    /**
     * @param chroot the client's chroot
     * @param name   the lock name
     * @return the lock's directory
     */
    public static String dir(String chroot, String name) {
        return ZkPaths.lockDir(chroot, name);
    }

    /**
     * @param chroot the client's chroot
     * @param name   a read-write lock's name
     * @return the read-write lock's directory
     */
    public static String readWriteDir(String chroot, String name) {
        return ZkPaths.dir(chroot, name, io.distlock.spi.Hold.READ);
    }

    /**
     * @param chroot the client's chroot
     * @param name   a semaphore's name
     * @return the semaphore's directory
     */
    public static String semaphoreDir(String chroot, String name) {
        return ZkPaths.dir(chroot, name, io.distlock.spi.Hold.permit(1));
    }

    /**
     * @param children a listing of a read-write lock's or a semaphore's directory
     * @return its request nodes, first in line first
     */
    public static List<String> holdLine(List<String> children) {
        List<String> line = new java.util.ArrayList<>(ZkPaths.queue(children, io.distlock.spi.Hold.READ));
        line.addAll(ZkPaths.queue(children, io.distlock.spi.Hold.permit(1)));
        line.sort(java.util.Comparator.comparingLong(ZkPaths::sequence));
        return line;
    }

    /**
     * @param child    a read-write lock's or a semaphore's node
     * @param dirCzxid its directory's czxid
     * @return the hold id the driver shows for it
     */
    public static String holdId(String child, long dirCzxid) {
        return ZkPaths.holdId(child, dirCzxid);
    }

    /**
     * @param children a listing of a lock's directory
     * @return its lock nodes, first in line (the holder) first
     */
    public static List<String> inLine(List<String> children) {
        return ZkPaths.queue(children);
    }

    /**
     * @param child a lock node's name
     * @return the owner token in it
     */
    public static String ownerToken(String child) {
        return ZkPaths.ownerToken(child);
    }

    /**
     * @param chroot     the client's chroot
     * @param ownerToken a revoked lease's owner token
     * @return its revocation record's path
     */
    public static String record(String chroot, String ownerToken) {
        return ZkPaths.record(chroot, ownerToken);
    }

    /**
     * @param chroot the client's chroot
     * @return where the revocation records are kept
     */
    public static String revokedDir(String chroot) {
        return ZkPaths.revokedDir(chroot);
    }

    /**
     * A driver that keeps revocation records only {@code retention} (instead of ten minutes), for a
     * test of the sweep.
     */
    public static ZkLockDriver driver(ZkEndpoint endpoint, io.distlock.LockOptions options, io.distlock.spi.DriverContext context,
                                      java.time.Duration retention) {
        return ZkLockDriver.connect(endpoint, options, context, retention);
    }
}
