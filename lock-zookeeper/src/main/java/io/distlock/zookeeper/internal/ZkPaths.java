package io.distlock.zookeeper.internal;

import io.distlock.spi.LockNames;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where locks live: {@code <chroot>/<encoded name>/lock-<owner token>-<sequence>}, and where the
 * records of revocations are kept: {@code <chroot>/.revoked/<owner token>} (a name that starts with
 * {@code .} is never an encoded lock name).
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

    /** The child of the chroot that keeps the revocation records. */
    static final String REVOKED = ".revoked";

    static String encode(String name) {
        return LockNames.pathSegment(name);
    }

    /**
     * The lock name a child of the chroot stands for, or null if it is not an encoded lock name (the
     * revocation records' node, or anything else an operator put there).
     */
    static String decode(String segment) {
        return LockNames.nameOf(segment).orElse(null);
    }

    static String revokedDir(String chroot) {
        return chroot + "/" + REVOKED;
    }

    /** The revocation record of the lease whose owner token is {@code ownerToken}. */
    static String record(String chroot, String ownerToken) {
        return revokedDir(chroot) + "/" + ownerToken;
    }

    /** The owner token a lock node's name carries. */
    static String ownerToken(String child) {
        return child.substring(PREFIX.length(), child.length() - SEQUENCE_DIGITS - 1);
    }

    /**
     * A lock node's path for people to read: the owner token in its name is left out (it is not a
     * secret on ZooKeeper, whose ACLs guard the node, but a {@code LockInfo} never shows one); the
     * sequence finds the node in a listing.
     */
    static String shown(String dir, String child) {
        return dir + "/" + PREFIX + "*-" + child.substring(child.length() - SEQUENCE_DIGITS);
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
