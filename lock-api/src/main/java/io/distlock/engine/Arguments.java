package io.distlock.engine;

import io.distlock.DistributedLock;
import io.distlock.LockClient;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/** Validation of what users pass in, with messages that say what was wrong. */
final class Arguments {

    private Arguments() {
    }

    static String name(String name) {
        Objects.requireNonNull(name, "lock name must not be null");
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank");
        }
        if (name.length() > LockClient.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("lock name is " + name.length() + " characters long; the limit is "
                    + LockClient.MAX_NAME_LENGTH);
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException("lock name has a control character (U+"
                        + String.format(Locale.ROOT, "%04X", (int) name.charAt(i)) + ") at index " + i);
            }
        }
        return name;
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
