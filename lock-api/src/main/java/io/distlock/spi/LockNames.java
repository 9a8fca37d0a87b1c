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

    /**
     * The lock name a path segment stands for: the inverse of {@link #pathSegment}, for a backend
     * that lists its locks (a directory of nodes, a range of keys). Strict: only the one encoding
     * {@code pathSegment} writes is read back (a lowercase hex digit, an escaped letter, a byte that
     * is not UTF-8, or anything an operator put beside the locks is not a lock name).
     *
     * @param segment a path segment
     * @return the lock name it encodes; empty if it encodes none
     */
    public static java.util.Optional<String> nameOf(String segment) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%' && i + 2 < segment.length()) {
                int hi = Character.digit(segment.charAt(i + 1), 16);
                int lo = Character.digit(segment.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return java.util.Optional.empty();
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80 && c != '%') {
                bytes.write(c);
            } else {
                return java.util.Optional.empty();
            }
        }
        try {
            String name = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes.toByteArray())).toString();
            return pathSegment(name).equals(segment) ? java.util.Optional.of(name) : java.util.Optional.empty();
        } catch (java.nio.charset.CharacterCodingException e) {
            return java.util.Optional.empty();
        }
    }
}
