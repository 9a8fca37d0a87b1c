package io.distlock.zookeeper.internal;

import java.nio.charset.StandardCharsets;

/**
 * What a lock node and a revocation record hold: UTF-8 text, a first line naming the layout
 * ({@value #LAYOUT}), then {@code key=value} lines (a value has no control character: the engine
 * refuses one in an owner description and in a reason). {@code zkCli get} shows it as it is.
 *
 * <ul>
 *   <li>a lock node: {@code owner=<the holder's owner description>};</li>
 *   <li>a revocation record: {@code reason=<the operator's reason>} and {@code by=<the revoking
 *       client's owner description>}.</li>
 * </ul>
 *
 * <p>Clients of the previous layout wrote the lease time in milliseconds ({@code 30000}) and never
 * read a lock node's data; what is not this layout reads as "no owner", never as a failure.
 */
final class NodeData {

    static final String LAYOUT = "distlock 1";

    private NodeData() {
    }

    static byte[] lockNode(String owner) {
        return (LAYOUT + "\nowner=" + owner).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] record(String reason, String revokedBy) {
        return (LAYOUT + "\nreason=" + reason + "\nby=" + revokedBy).getBytes(StandardCharsets.UTF_8);
    }

    /** @return true if {@code data} is this layout (a lock node written by a client that stores its owner) */
    static boolean isLayout(byte[] data) {
        return data != null && new String(data, StandardCharsets.UTF_8).startsWith(LAYOUT + "\n");
    }

    /**
     * @param data a node's data, possibly of another layout, possibly null
     * @param key  {@code owner}, {@code reason} or {@code by}
     * @return the value, or null if the data is not this layout or lacks the key
     */
    static String value(byte[] data, String key) {
        if (!isLayout(data)) {
            return null;
        }
        String[] lines = new String(data, StandardCharsets.UTF_8).split("\n");
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith(key + "=")) {
                return lines[i].substring(key.length() + 1);
            }
        }
        return null;
    }
}
