package io.distlock.zookeeper.internal;

import io.distlock.spi.Hold;
import io.distlock.spi.LockNames;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where locks live: {@code <chroot>/<encoded name>/lock-<owner token>-<sequence>}, and where the
 * records of revocations are kept: {@code <chroot>/.revoked/<owner token>} (a name that starts with
 * {@code .} is never an encoded lock name).
 *
 * <p>A name's read-write lock and semaphore are objects of their own, in name spaces of their own
 * that no lock name can reach (a {@code .} is always encoded): {@code <chroot>/.rw/<encoded name>/}
 * holds {@code read-<owner token>-<sequence>} and {@code write-<owner token>-<sequence>} nodes in one
 * line (one sequence counter: one order for readers and writers), {@code <chroot>/.semaphore/<encoded
 * name>/} holds {@code permit-<count>-<owner token>-<sequence>} nodes, whose names carry the
 * semaphore's permit count (so that one listing shows every live node's count).
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

    /** The owner token a request's node's name carries (a lock's, a read-write lock's or a semaphore's). */
    static String ownerToken(String child) {
        String prefix = prefixOf(child);
        return child.substring(prefix == null ? PREFIX.length() : prefix.length(), child.length() - SEQUENCE_DIGITS - 1);
    }

    /**
     * A lock node's path for people to read: the owner token in its name is left out (it is not a
     * secret on ZooKeeper, whose ACLs guard the node, but a {@code LockInfo} never shows one); the
     * sequence finds the node in a listing.
     */
    static String shown(String dir, String child) {
        return dir + "/" + PREFIX + "*-" + child.substring(child.length() - SEQUENCE_DIGITS);
    }

    /**
     * A read-write lock's or a semaphore's request node's path for people to read, as {@link
     * #shown(String, String)}: {@code <dir>/permit-3-*-<sequence>}, the owner token left out.
     */
    static String shownHold(String dir, String child) {
        String prefix = prefixOf(child);
        return dir + "/" + (prefix == null ? "" : prefix) + "*-" + child.substring(child.length() - SEQUENCE_DIGITS);
    }

    /**
     * The hold id of a read-write lock's or a semaphore's node: its sequence, the 10 digits ZooKeeper
     * appended to its name, then a dash and its directory's {@code czxid} in hex — never the owner
     * token, which the name carries too and which would let whoever knows it release the hold.
     *
     * <p>The sequence alone names one node only for one life of the directory: a container node is
     * removed once empty, and the one created in its place counts from 0 again, so a hold id kept
     * from an earlier listing could name another client's hold. The directory's {@code czxid} (the
     * transaction that created it) is never the same twice, and the listing that finds the node
     * gives it at no cost.
     *
     * @param child     the node's name
     * @param dirCzxid  its directory's {@code czxid}
     * @return the hold id, {@code 0000000042-1000000a3}
     */
    static String holdId(String child, long dirCzxid) {
        return child.substring(child.length() - SEQUENCE_DIGITS) + "-" + Long.toHexString(dirCzxid);
    }

    /**
     * A hold id read back: the node's sequence as it ends the node's name, and the directory's {@code czxid}.
     */
    record HoldKey(String sequence, long dirCzxid) {
    }

    /**
     * @param holdId a hold id as given back by an operator ({@link #holdId}); the sequence's leading
     *               zeros may be left out
     * @return what it names, or null if it cannot be a hold id of this backend
     */
    static HoldKey parseHoldId(String holdId) {
        int dash = holdId.indexOf('-');
        if (dash < 1 || dash > SEQUENCE_DIGITS || holdId.length() - dash - 1 < 1 || holdId.length() - dash - 1 > 16) {
            return null;
        }
        for (int i = 0; i < holdId.length(); i++) {
            char c = holdId.charAt(i);
            boolean digit = c >= '0' && c <= '9';
            if (i < dash ? !digit : i > dash && !(digit || c >= 'a' && c <= 'f')) {
                return null;
            }
        }
        return new HoldKey("0".repeat(SEQUENCE_DIGITS - dash) + holdId.substring(0, dash),
                Long.parseUnsignedLong(holdId.substring(dash + 1), 16));
    }

    /** @return the sequence that ends a request node's name (10 digits) */
    static String sequenceOf(String child) {
        return child.substring(child.length() - SEQUENCE_DIGITS);
    }

    /**
     * @param child a node of a read-write lock's or a semaphore's line ({@link #inLineFor})
     * @return the hold its request asked for, read off its name: a reader, a writer, or a permit of its count
     */
    static Hold holdOf(String child) {
        if (child.startsWith(READ_PREFIX)) {
            return Hold.READ;
        }
        if (child.startsWith(WRITE_PREFIX)) {
            return Hold.WRITE;
        }
        if (child.startsWith(PERMIT_PREFIX)) {
            return Hold.permit(permitsOf(child));
        }
        return Hold.EXCLUSIVE;
    }

    static String lockDir(String chroot, String name) {
        return chroot + "/" + encode(name);
    }

    /** The child of the chroot under which the read-write locks live. */
    static final String READ_WRITE = ".rw";
    /** The child of the chroot under which the semaphores live. */
    static final String SEMAPHORES = ".semaphore";
    static final String READ_PREFIX = "read-";
    static final String WRITE_PREFIX = "write-";
    static final String PERMIT_PREFIX = "permit-";

    /** The directory of the line that {@code hold} joins on {@code name}: its primitive's own. */
    static String dir(String chroot, String name, Hold hold) {
        switch (hold.kind()) {
            case READ:
            case WRITE:
                return chroot + "/" + READ_WRITE + "/" + encode(name);
            case PERMIT:
                return chroot + "/" + SEMAPHORES + "/" + encode(name);
            default:
                return lockDir(chroot, name);
        }
    }

    /** How the name of a node of {@code hold} begins, before its owner token: {@code permit-3-} for a permit of three. */
    static String prefix(Hold hold) {
        switch (hold.kind()) {
            case READ:
                return READ_PREFIX;
            case WRITE:
                return WRITE_PREFIX;
            case PERMIT:
                return PERMIT_PREFIX + hold.permits() + "-";
            default:
                return PREFIX;
        }
    }

    /** The path handed to a sequential create for a request of {@code hold}; ZooKeeper appends the sequence. */
    static String nodePrefix(String dir, Hold hold, String ownerToken) {
        return dir + "/" + prefix(hold) + ownerToken + "-";
    }

    /**
     * @return how {@code child}'s name begins ({@code lock-}, {@code read-}, {@code write-} or
     *         {@code permit-<count>-}), or null if it is no request's node (an owner token, a dash and
     *         a sequence must follow)
     */
    static String prefixOf(String child) {
        String prefix;
        if (child.startsWith(PREFIX)) {
            prefix = PREFIX;
        } else if (child.startsWith(READ_PREFIX)) {
            prefix = READ_PREFIX;
        } else if (child.startsWith(WRITE_PREFIX)) {
            prefix = WRITE_PREFIX;
        } else if (child.startsWith(PERMIT_PREFIX)) {
            int end = PERMIT_PREFIX.length();
            while (end < child.length() && end - PERMIT_PREFIX.length() < 6 && Character.isDigit(child.charAt(end))) {
                end++;
            }
            if (end == PERMIT_PREFIX.length() || end >= child.length() || child.charAt(end) != '-'
                    || child.charAt(PERMIT_PREFIX.length()) == '0') {
                return null;
            }
            prefix = child.substring(0, end + 1);
        } else {
            return null;
        }
        if (child.length() <= prefix.length() + SEQUENCE_DIGITS + 1 || child.charAt(child.length() - SEQUENCE_DIGITS - 1) != '-') {
            return null;
        }
        for (int i = child.length() - SEQUENCE_DIGITS; i < child.length(); i++) {
            if (!Character.isDigit(child.charAt(i))) {
                return null;
            }
        }
        return prefix;
    }

    /** @return true if {@code child} is a node of a request of {@code hold}'s primitive (in its directory, the line's members) */
    static boolean inLineFor(String child, Hold hold) {
        String prefix = prefixOf(child);
        if (prefix == null) {
            return false;
        }
        switch (hold.kind()) {
            case READ:
            case WRITE:
                return prefix.equals(READ_PREFIX) || prefix.equals(WRITE_PREFIX);
            case PERMIT:
                return prefix.startsWith(PERMIT_PREFIX);
            default:
                return prefix.equals(PREFIX);
        }
    }

    /** @return true if {@code child} is a read-write lock's write node */
    static boolean isWrite(String child) {
        return child.startsWith(WRITE_PREFIX);
    }

    /** @return the permit count a semaphore's node carries in its name */
    static int permitsOf(String child) {
        String prefix = prefixOf(child);
        return Integer.parseInt(prefix.substring(PERMIT_PREFIX.length(), prefix.length() - 1));
    }

    /** The nodes of {@code hold}'s primitive among {@code children}, lowest sequence (first in line) first. */
    static List<String> queue(List<String> children, Hold hold) {
        if (hold.kind() == Hold.Kind.EXCLUSIVE) {
            return queue(children);
        }
        List<String> queue = new ArrayList<>(children.size());
        for (String child : children) {
            if (inLineFor(child, hold)) {
                queue.add(child);
            }
        }
        queue.sort(Comparator.comparingLong(ZkPaths::sequence));
        return queue;
    }

    /** @return true if {@code child} is a node a request of {@code hold} with {@code ownerToken} created */
    static boolean ownedBy(String child, Hold hold, String ownerToken) {
        String prefix = prefix(hold);
        return child.startsWith(prefix + ownerToken + "-") && prefix.equals(prefixOf(child))
                && child.length() == prefix.length() + ownerToken.length() + 1 + SEQUENCE_DIGITS;
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
        return ownedBy(child, Hold.EXCLUSIVE, ownerToken);
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
