package io.distlock.engine;

import io.distlock.DistributedLock;
import io.distlock.LockClient;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Validation of what users pass in, with messages that say what was wrong. Public only for
 * {@link io.distlock.LockOptions} (this package is not exported).
 */
public final class Arguments {

    private Arguments() {
    }

    static String name(String name) {
        return text(name, "lock name", LockClient.MAX_NAME_LENGTH);
    }

    /**
     * The rule for every text a user gives that is stored on the server or shown to operators (a
     * lock name, an owner description, a revocation's reason): not blank, bounded, no control
     * characters (which could forge lines in a terminal or a log).
     *
     * @param text      the text
     * @param what      what it is, for the message
     * @param maxLength the longest accepted, in characters
     * @return {@code text}
     * @throws NullPointerException     if {@code text} is null
     * @throws IllegalArgumentException if blank, too long or with a control character
     */
    public static String text(String text, String what, int maxLength) {
        Objects.requireNonNull(text, what + " must not be null");
        if (text.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
        if (text.length() > maxLength) {
            throw new IllegalArgumentException(what + " is " + text.length() + " characters long; the limit is " + maxLength);
        }
        return noControlCharacters(text, what);
    }

    /** @return {@code text}, which may be empty (a name prefix) but has no control character */
    static String noControlCharacters(String text, String what) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                throw new IllegalArgumentException(what + " has a control character (U+"
                        + String.format(Locale.ROOT, "%04X", (int) text.charAt(i)) + ") at index " + i);
            }
        }
        return text;
    }

    static int permits(int permits) {
        if (permits <= 0 || permits > LockClient.MAX_PERMITS) {
            throw new IllegalArgumentException("permits must be between 1 and " + LockClient.MAX_PERMITS + ", was " + permits);
        }
        return permits;
    }

    static Duration leaseTime(Duration leaseTime) {
        return DistributedLock.checkLeaseTime(leaseTime);
    }

    /** @return the wait in nanoseconds, saturated so that {@code now + wait} cannot overflow */
    static long maxWaitNanos(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait must not be null");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait);
        }
        return maxWait.compareTo(FOREVER) >= 0 ? FOREVER.toNanos() : maxWait.toNanos();
    }

    /** Longer than any process lives; keeps deadline arithmetic on nanoTime free of overflow. */
    static final Duration FOREVER = Duration.ofDays(365L * 100);
}
