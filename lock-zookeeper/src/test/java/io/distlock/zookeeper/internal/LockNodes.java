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
}
