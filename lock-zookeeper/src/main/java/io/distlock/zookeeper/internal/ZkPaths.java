package io.distlock.zookeeper.internal;

import io.distlock.spi.LockNames;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where locks live: {@code <chroot>/<encoded name>/lock-<owner token>-<sequence>}.
 *
 * <p>A lock name may hold any character but controls (see {@code LockClient.lock}); a znode name
 * may not hold {@code /}, be {@code .} or {@code ..}, or hold some Unicode ranges. So every name is
 * <em>encoded</em>, never refused ({@link LockNames#pathSegment}).
 *
 * <p>The owner token in the node name lets an acquire whose create got no reply find its node
 * afterwards (Curator's "protected" mode does the same with a UUID).
 */
final class ZkPaths {

    static final String PREFIX = "lock-";
    private static final int SEQUENCE_DIGITS = 10;

    private ZkPaths() {
    }

    static String encode(String name) {
        return LockNames.pathSegment(name);
    }

    static String lockDir(String chroot, String name) {
        return chroot + "/" + encode(name);
    }

    /** The path handed to a sequential create; ZooKeeper appends the sequence. */
    static String nodePrefix(String dir, String ownerToken) {
        return dir + "/" + PREFIX + ownerToken + "-";
    }

    static boolean isLockNode(String child) {
        return child.startsWith(PREFIX) && child.length() > PREFIX.length() + SEQUENCE_DIGITS + 1
                && child.charAt(child.length() - SEQUENCE_DIGITS - 1) == '-';
    }

    static long sequence(String child) {
        return Long.parseLong(child.substring(child.length() - SEQUENCE_DIGITS));
    }

    static boolean ownedBy(String child, String ownerToken) {
        return isLockNode(child) && child.startsWith(PREFIX + ownerToken + "-")
                && child.length() == PREFIX.length() + ownerToken.length() + 1 + SEQUENCE_DIGITS;
    }

    static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The lock nodes among {@code children}, lowest sequence (first in line, the holder) first. */
    static List<String> queue(List<String> children) {
        List<String> queue = new ArrayList<>(children.size());
        for (String child : children) {
            if (isLockNode(child)) {
                queue.add(child);
            }
        }
        queue.sort(Comparator.comparingLong(ZkPaths::sequence));
        return queue;
    }
}
