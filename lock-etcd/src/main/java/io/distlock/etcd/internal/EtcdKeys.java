package io.distlock.etcd.internal;

import io.distlock.spi.LockNames;


/**
 * Where things live under a client's prefix:
 * <ul>
 *   <li>{@code <prefix>/locks/<name>/<client id>-<slot>}: one key per request in line for the lock
 *       (the lowest create revision holds it), its value the request's owner token; a slot is
 *       reused by the client's next request once the server confirmed the key gone; the lock's name is encoded as one segment
 *       ({@link LockNames#pathSegment}), so that no name's keys fall under another name's;</li>
 *   <li>{@code <prefix>/abandoned/<name>/<ownerToken>}: the marker of a request withdrawn after an
 *       unknown outcome; an acquire's transaction writes nothing while it exists;</li>
 *   <li>{@code <prefix>/revoked/<ownerToken>}: the record of a revoked lease, with the reason, bound
 *       to a lease of the revoking client's that nobody keeps alive (it expires after minutes).</li>
 * </ul>
 * Owner tokens are URL-safe Base64 and carry no {@code /}.
 */
final class EtcdKeys {

    private EtcdKeys() {
    }

    /** @return the prefix of every request key of {@code name}, ending with {@code /} */
    static String lockDir(String prefix, String name) {
        return prefix + "/locks/" + encode(name) + "/";
    }

    /** @return the key of one request, by the client's id and the request's slot ({@code <client id>-<slot>}) */
    static String request(String prefix, String name, String clientSlot) {
        return lockDir(prefix, name) + clientSlot;
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
}
