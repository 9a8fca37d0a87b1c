package io.distlock.spi;

import java.nio.charset.StandardCharsets;

/**
 * Lock names as path segments, for backends that keep each lock under a key or a node of its own.
 *
 * <p>A lock name may hold any character but controls (see {@link io.distlock.LockClient#lock}); a
 * path segment may not hold {@code /} (and a ZooKeeper node may not be {@code .} or {@code ..}). So
 * every name is <em>encoded</em>, never refused.
 */
public final class LockNames {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockNames() {
    }

    /**
     * Percent-encodes every UTF-8 byte of {@code name} outside {@code [A-Za-z0-9_-]} as {@code %XX}.
     * The encoding is injective (distinct names, including names differing only in case or in a
     * non-ASCII letter, get distinct segments), readable for plain names, and never holds
     * {@code /}: no name's keys fall under another name's ({@code a} and {@code a/b}).
     *
     * @param name a lock name
     * @return the name as one path segment
     */
    public static String pathSegment(String name) {
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
}
