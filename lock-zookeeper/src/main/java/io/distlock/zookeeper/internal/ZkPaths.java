package io.distlock.zookeeper.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where locks live: {@code <chroot>/<encoded name>/lock-<owner token>-<sequence>}.
 *
 * <p>A lock name may hold any character but controls (see {@code LockClient.lock}); a znode name
 * may not hold {@code /}, be {@code .} or {@code ..}, or hold some Unicode ranges. So every name is
 * <em>encoded</em>, never refused: each UTF-8 byte outside {@code [A-Za-z0-9_-]} becomes
 * {@code %XX}. The encoding is injective (distinct names, including names differing only in case
 * or in a non-ASCII letter, get distinct directories) and readable for plain names.
 *
 * <p>The owner token in the node name lets an acquire whose create got no reply find its node
 * afterwards (Curator's "protected" mode does the same with a UUID).
 */
final class ZkPaths {

    static final String PREFIX = "lock-";
    private static final int SEQUENCE_DIGITS = 10;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private ZkPaths() {
    }

    static String encode(String name) {
        StringBuilder b = new StringBuilder(name.length() + 16);
        for (byte raw : name.getBytes(StandardCharsets.UTF_8)) {
            int c = raw & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
                b.append((char) c);
            } else {
                b.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return b.toString();
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
