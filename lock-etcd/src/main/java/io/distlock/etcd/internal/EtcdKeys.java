package io.distlock.etcd.internal;

import io.distlock.spi.Hold;
import io.distlock.spi.LockNames;

/**
 * Where things live under a client's prefix:
 * <ul>
 *   <li>{@code <prefix>/locks/<name>/<client id>-<slot>}: one key per request in line for the lock
 *       (the lowest create revision holds it), its value the request's owner token; a slot is
 *       reused by the client's next request once the server confirmed the key gone; the lock's name is encoded as one segment
 *       ({@link LockNames#pathSegment}), so that no name's keys fall under another name's;</li>
 *   <li>{@code <prefix>/rwlocks/<name>/read/<client id>-<slot>} and {@code <prefix>/rwlocks/<name>/write/<client id>-<slot>}:
 *       one key per request for the read side and the write side of the read-write lock {@code name},
 *       both ordered by create revision in the one line {@code <prefix>/rwlocks/<name>/}; the write
 *       keys apart, so that a reader reads the closest earlier writer in one range;</li>
 *   <li>{@code <prefix>/semaphores/<name>/<permits>/<client id>-<slot>}: one key per request for a
 *       permit of the semaphore {@code name}, under the permit count it asked for (a decimal), so
 *       that a key of another count is one range read away;</li>
 *   <li>{@code <prefix>/abandoned/<name>/<ownerToken>}: the marker of a request withdrawn after an
 *       unknown outcome (of any primitive: owner tokens are never used twice); an acquire's
 *       transaction writes nothing while it exists;</li>
 *   <li>{@code <prefix>/revoked/<ownerToken>}: the record of a revoked lease, with the reason, bound
 *       to a lease of the revoking client's that nobody keeps alive (it expires after minutes).</li>
 * </ul>
 * Owner tokens are URL-safe Base64 and carry no {@code /}. A name's three primitives live under
 * three directories ({@code locks/}, {@code rwlocks/}, {@code semaphores/}) beside each other, never
 * inside one another: no lock name, however it is encoded, reaches a read-write lock's or a
 * semaphore's keys, and a listing of {@code locks/} never sees them.
 */
final class EtcdKeys {

    private EtcdKeys() {
    }

    /** @return the prefix of every request key of {@code name}, ending with {@code /} */
    static String lockDir(String prefix, String name) {
        return prefix + "/locks/" + encode(name) + "/";
    }

    /** @return the line of the read-write lock {@code name}: its read and write keys, ending with {@code /} */
    static String readWriteDir(String prefix, String name) {
        return prefix + "/rwlocks/" + encode(name) + "/";
    }

    /** @return the write keys of the read-write lock {@code name}, ending with {@code /} */
    static String writeDir(String prefix, String name) {
        return readWriteDir(prefix, name) + "write/";
    }

    /** @return the line of the semaphore {@code name}: its permit keys of every count, ending with {@code /} */
    static String semaphoreDir(String prefix, String name) {
        return prefix + "/semaphores/" + encode(name) + "/";
    }

    /** @return the permit keys of the semaphore {@code name} asked for with {@code permits}, ending with {@code /} */
    static String permitDir(String prefix, String name, int permits) {
        return semaphoreDir(prefix, name) + permits + "/";
    }

    /**
     * @return the line a request of {@code hold} is ranked in (by create revision): the lock's
     *         directory, the read-write lock's, or the semaphore's
     */
    static String lineDir(String prefix, String name, Hold hold) {
        switch (hold.kind()) {
            case READ:
            case WRITE:
                return readWriteDir(prefix, name);
            case PERMIT:
                return semaphoreDir(prefix, name);
            default:
                return lockDir(prefix, name);
        }
    }

    /** @return the directory the key of a request of {@code hold} is written in, ending with {@code /} */
    static String requestDir(String prefix, String name, Hold hold) {
        switch (hold.kind()) {
            case READ:
                return readWriteDir(prefix, name) + "read/";
            case WRITE:
                return writeDir(prefix, name);
            case PERMIT:
                return permitDir(prefix, name, hold.permits());
            default:
                return lockDir(prefix, name);
        }
    }

    /**
     * @param semaphoreDir a semaphore's directory ({@link #semaphoreDir})
     * @param key          a permit key under it
     * @return the permit count the key was written with, or -1 if the key is no permit key
     */
    static int permitsOf(String semaphoreDir, String key) {
        if (!key.startsWith(semaphoreDir)) {
            return -1;
        }
        int slash = key.indexOf('/', semaphoreDir.length());
        try {
            return slash < 0 ? -1 : Integer.parseInt(key.substring(semaphoreDir.length(), slash));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** @return the marker of a withdrawn request */
    static String abandoned(String prefix, String name, String ownerToken) {
        return prefix + "/abandoned/" + encode(name) + "/" + ownerToken;
    }

    /** @return the prefix of every request key, ending with {@code /} */
    static String locks(String prefix) {
        return prefix + "/locks/";
    }

    /** @return the prefix of every revocation record, ending with {@code /} */
    static String revokedDir(String prefix) {
        return prefix + "/revoked/";
    }

    /** @return the revocation record of the lease whose owner token is {@code ownerToken} */
    static String record(String prefix, String ownerToken) {
        return revokedDir(prefix) + ownerToken;
    }

    /**
     * @param segment a lock directory's segment (between {@code locks/} and the next {@code /})
     * @return the lock name it encodes, or null if it is no encoding {@link LockNames#pathSegment} writes
     */
    static String nameOf(String segment) {
        return LockNames.nameOf(segment).orElse(null);
    }

    /** @return a key under the prefix that no lock ever uses, for the access check at connect */
    static String probe(String prefix) {
        return prefix + "/locks/";
    }

    static String encode(String name) {
        return LockNames.pathSegment(name);
    }

    /** @return the smallest key above every key that starts with {@code prefix} (the end of its range) */
    static byte[] prefixEnd(byte[] prefix) {
        byte[] end = prefix.clone();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return java.util.Arrays.copyOf(end, i + 1);
            }
        }
        return new byte[] {0}; // every key
    }
}
