package io.distlock.engine;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Fresh owner tokens: 128 bits from {@link SecureRandom} per acquire call, never reused, never a
 * constant. They come from a DRBG seeded once from the system's entropy: as unpredictable as the
 * platform default (NativePRNG), without its global lock and a {@code /dev/urandom} read per token.
 */
final class OwnerTokens {

    private final SecureRandom random = source();

    private static SecureRandom source() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom(); // a JDK without DRBG (it is standard since 9): the platform default
        }
    }

    /** @return a fresh token, URL-safe Base64 without padding */
    String next() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(16));
    }

    /** @return {@code n} random bytes */
    byte[] bytes(int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }
}
