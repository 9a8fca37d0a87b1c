package io.distlock.rediscluster.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Redis Cluster's key-to-slot function, as the server computes it ({@code CLUSTER KEYSLOT}): CRC16
 * (XMODEM) of the key's hash tag, modulo 16,384. The hash tag is the part between the first
 * {@code {} and the first {@code }} after it, when that part is not empty; otherwise the whole key.
 *
 * <p>distlock writes every key of a primitive as {@code distlock:...{<name>}...}, so the tag is the
 * name up to its first {@code }}: all of a lock's keys, its fence counter's and its channel's share
 * one slot, whatever braces the name has — except a name that starts with {@code }}, whose tag would
 * be empty (each key would then be hashed whole, onto slots of its own): such a name is refused
 * before anything is sent ({@link #slotOf(List)}).
 */
public final class Slots {

    /** How many hash slots a Redis Cluster has. */
    public static final int COUNT = 16384;

    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[i] = crc & 0xFFFF;
        }
    }

    private Slots() {
    }

    /**
     * @param key a key or shard channel
     * @return its hash slot, 0..16383
     */
    public static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
        }
        return crc & (COUNT - 1);
    }

    /**
     * The one slot of a call's keys.
     *
     * @param keys the keys of one call (not empty)
     * @return their slot
     * @throws IllegalArgumentException if they fall on different slots: a lock name starting with
     *                                  {@code }} (see the class comment)
     */
    public static int slotOf(List<String> keys) {
        int slot = slot(keys.get(0));
        for (int i = 1; i < keys.size(); i++) {
            if (slot(keys.get(i)) != slot) {
                throw new IllegalArgumentException("the keys " + keys + " fall on different hash slots of the Redis Cluster,"
                        + " so no one script can touch them: a lock name that starts with '}' leaves its keys without a"
                        + " hash tag. Choose a name that does not start with '}'");
            }
        }
        return slot;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
