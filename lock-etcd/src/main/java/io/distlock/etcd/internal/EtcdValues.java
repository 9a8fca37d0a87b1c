package io.distlock.etcd.internal;

import io.distlock.spi.Hold;

import java.nio.charset.StandardCharsets;

/**
 * What a request key and a revocation record hold: UTF-8 text, a first line naming the layout
 * ({@value #LAYOUT}), then {@code key=value} lines (no value has a control character: the engine
 * refuses one in an owner description and in a reason, and owner tokens are URL-safe Base64).
 * {@code etcdctl get} shows it as it is.
 *
 * <ul>
 *   <li>a request key: {@code token=<owner token>}, {@code owner=<owner description>},
 *       {@code at=<the holder's clock when the key was written, ms since the epoch>}, and for a
 *       semaphore's permit {@code permits=<the count it was asked with>} (its key's path says it too:
 *       the value keeps it for whoever reads one key);</li>
 *   <li>a revocation record: {@code reason=<the operator's reason>}, {@code by=<the revoking
 *       client's owner description>}, and for a read-write lock's or a semaphore's hold
 *       {@code revocation=<a random id of the revoke>} (a resent revoke knows its own record by it).</li>
 * </ul>
 *
 * <p>Clients of the previous layout wrote the owner token alone as a request key's value. Only the
 * client that wrote a key compares its value (its removals, its retries), so the two layouts never
 * meet in a compare; a reader shows an old key without owner or time.
 */
final class EtcdValues {

    static final String LAYOUT = "distlock 1";

    private EtcdValues() {
    }

    static byte[] request(String ownerToken, String owner, long atMillis, Hold hold) {
        String permits = hold.kind() == Hold.Kind.PERMIT ? "\npermits=" + hold.permits() : "";
        return (LAYOUT + "\ntoken=" + ownerToken + "\nowner=" + owner + "\nat=" + atMillis + permits).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] record(String reason, String revokedBy) {
        return (LAYOUT + "\nreason=" + reason + "\nby=" + revokedBy).getBytes(StandardCharsets.UTF_8);
    }

    /** A hold's revocation record: as a lock's, and {@code revocation=<id>}, the revoke's own random id. */
    static byte[] record(String reason, String revokedBy, String revocationId) {
        return (LAYOUT + "\nreason=" + reason + "\nby=" + revokedBy + "\nrevocation=" + revocationId).getBytes(StandardCharsets.UTF_8);
    }

    /** @return true if {@code value} is this layout */
    static boolean isLayout(byte[] value) {
        return value != null && new String(value, StandardCharsets.UTF_8).startsWith(LAYOUT + "\n");
    }

    /**
     * @param value a key's value, possibly of the previous layout
     * @param field {@code token}, {@code owner}, {@code at}, {@code permits}, {@code reason}, {@code by} or {@code revocation}
     * @return the field, or null if the value is not this layout or lacks it
     */
    static String field(byte[] value, String field) {
        if (!isLayout(value)) {
            return null;
        }
        String[] lines = new String(value, StandardCharsets.UTF_8).split("\n");
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith(field + "=")) {
                return lines[i].substring(field.length() + 1);
            }
        }
        return null;
    }

    /** @return the owner token a request key's value carries: its {@code token} field, or the whole value (previous layout) */
    static String ownerToken(byte[] value) {
        return isLayout(value) ? field(value, "token") : new String(value, StandardCharsets.UTF_8);
    }
}
