package io.distlock.tck;

import io.distlock.Lease;

import java.time.Duration;

/** Reads a lease's validity whenever asked, adding up how long it was found invalid (rule 4.21). */
final class ValiditySampler {

    private final Lease lease;
    private long invalidSince = -1;
    private long invalidNanos;

    ValiditySampler(Lease lease) {
        this.lease = lease;
    }

    /** @return whether the lease is valid now */
    boolean sample() {
        long now = System.nanoTime();
        boolean valid = lease.isValid();
        if (!valid && invalidSince < 0) {
            invalidSince = now;
        } else if (valid && invalidSince >= 0) {
            invalidNanos += now - invalidSince;
            invalidSince = -1;
        }
        return valid;
    }

    /** @return how long the lease was found invalid, between samples, so far */
    Duration invalidFor() {
        return Duration.ofNanos(invalidNanos + (invalidSince < 0 ? 0 : System.nanoTime() - invalidSince));
    }
}
