package io.distlock.engine;

import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;

/**
 * Fresh owner tokens, one per acquire call: 128 bits, never the same twice within a client, and
 * unpredictable to whoever has not been told them.
 *
 * <p>Each token is the AES encryption of a counter under a 128-bit key drawn once per client from
 * {@link SecureRandom}: AES under a secret key is a pseudorandom permutation, so distinct counter
 * values give distinct tokens, and tokens seen (an operator reading a lock's keys) tell nothing of the
 * key or of the tokens to come. Tokens of two clients collide only as two random 128-bit values do.
 * This is the keystream of AES in counter mode; one block at a time, encrypting the counter block
 * is all that mode does, so no IV or padding is involved. It replaced a {@code SecureRandom}
 * draw per token: a hash DRBG spent about a microsecond per token, a sixth of the caller's CPU in an
 * uncontended ZooKeeper acquire and release (BENCHMARKS.md, "ZooKeeper against Curator"); one AES
 * block takes tens of nanoseconds.
 */
final class OwnerTokens {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final SecureRandom random = source();
    private final Cipher cipher;
    private final byte[] counterBlock = new byte[16];
    private final byte[] tokenBlock = new byte[16];
    private long counter;

    OwnerTokens() {
        try {
            // AES/ECB/NoPadding is one of the ciphers every Java platform must provide.
            cipher = Cipher.getInstance("AES/ECB/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(bytes(16), "AES"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this Java platform has no AES, which every Java platform must provide", e);
        }
    }

    private static SecureRandom source() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom(); // a JDK without DRBG (it is standard since 9): the platform default
        }
    }

    /** @return a fresh token, URL-safe Base64 without padding (22 characters) */
    String next() {
        synchronized (cipher) {
            long n = ++counter;
            for (int i = 0; i < Long.BYTES; i++) {
                counterBlock[i] = (byte) (n >>> (8 * i));
            }
            try {
                cipher.doFinal(counterBlock, 0, counterBlock.length, tokenBlock, 0);
            } catch (GeneralSecurityException e) {
                // A 16-byte block into a 16-byte buffer, without padding: nothing to refuse.
                throw new IllegalStateException("AES refused one block", e);
            }
            return ENCODER.encodeToString(tokenBlock);
        }
    }

    /** @return {@code n} random bytes, from {@link SecureRandom} */
    byte[] bytes(int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }
}
