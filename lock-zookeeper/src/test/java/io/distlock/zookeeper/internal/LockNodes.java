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
