package io.distlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Settings every backend honours. Immutable; build with {@link #builder()}. Backend-specific
 * settings travel in the connection URI's query instead.
 */
public final class LockOptions {

    /** The longest owner description accepted ({@link Builder#owner(String)}), in characters. */
    public static final int MAX_OWNER_LENGTH = 256;

    private static final LockOptions DEFAULTS = builder().build();

    private final Duration connectTimeout;
    private final Duration operationTimeout;
    private final double clockDriftFactor;
    private final Duration clockDriftMinimum;
    private final Duration minRetryBackoff;
    private final Duration maxRetryBackoff;
    private final LockListener listener;
    private final Supplier<Credentials> credentials;
    private final String owner;

    private LockOptions(Builder b) {
        this.connectTimeout = b.connectTimeout;
        this.operationTimeout = b.operationTimeout;
        this.clockDriftFactor = b.clockDriftFactor;
        this.clockDriftMinimum = b.clockDriftMinimum;
        this.minRetryBackoff = b.minRetryBackoff;
        this.maxRetryBackoff = b.maxRetryBackoff;
        this.listener = b.listener;
        this.credentials = b.credentials;
        this.owner = b.owner;
    }

    /** @return connect timeout 2 s, operation timeout 2 s, drift 1 % + 2 ms, back-off 5–100 ms, no listener, no credentials */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /** @return a builder holding the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding these settings */
    public Builder toBuilder() {
        return new Builder()
                .connectTimeout(connectTimeout)
                .operationTimeout(operationTimeout)
                .clockDrift(clockDriftFactor, clockDriftMinimum)
                .retryBackoff(minRetryBackoff, maxRetryBackoff)
                .listener(listener)
                .credentials(credentials)
                .owner(owner);
    }

    /** @return how long establishing a connection may take before the backend counts as unavailable */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** @return how long one request to the backend may take before it counts as failed */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** @return the fraction of the lease time allowed for clock drift between client and servers */
    public double clockDriftFactor() {
        return clockDriftFactor;
    }

    /** @return the fixed part of the drift allowance, added to {@code leaseTime × clockDriftFactor} */
    public Duration clockDriftMinimum() {
        return clockDriftMinimum;
    }

    /**
     * The allowance for clock drift subtracted from a lease's validity:
     * {@code leaseTime × clockDriftFactor + clockDriftMinimum} (the Redlock formula).
     *
     * @param leaseTime the lease time
     * @return the drift allowance
     */
    public Duration clockDrift(Duration leaseTime) {
        long nanos = (long) (leaseTime.toNanos() * clockDriftFactor);
        return clockDriftMinimum.plusNanos(nanos);
    }

    /** @return the first retry delay of a waiter that gets no notification from the backend */
    public Duration minRetryBackoff() {
        return minRetryBackoff;
    }

    /** @return the longest retry delay of a waiter that gets no notification from the backend */
    public Duration maxRetryBackoff() {
        return maxRetryBackoff;
    }

    /** @return the listener told of every lock event of the client, if one was set */
    public Optional<LockListener> listener() {
        return Optional.ofNullable(listener);
    }

    /**
     * The credentials set with {@link Builder#credentials(Credentials)}, or read now from the
     * supplier set with {@link Builder#credentials(Supplier)}: a backend calls this each time it
     * connects or reconnects, so a rotated secret is picked up without a new client.
     *
     * @return the credentials, if any were set
     * @throws LockException if the supplier threw or returned null (the message names only the
     *                       exception's class, since its text may hold the secret)
     */
    public Optional<Credentials> credentials() {
        if (credentials == null) {
            return Optional.empty();
        }
        Credentials c;
        try {
            c = credentials.get();
        } catch (RuntimeException e) {
            throw new LockException("the credentials supplier failed: " + e.getClass().getName());
        }
        if (c == null) {
            throw new LockException("the credentials supplier returned null");
        }
        return Optional.of(c);
    }

    /**
     * The owner description set with {@link Builder#owner(String)}. Without one, each client
     * describes itself as {@code user@host:pid/<client-id>} (the client id is random, a few
     * characters, one per client).
     *
     * @return the owner description, if one was set
     */
    public Optional<String> owner() {
        return Optional.ofNullable(owner);
    }

    @Override
    public String toString() {
        return "LockOptions[connectTimeout=" + connectTimeout + ", operationTimeout=" + operationTimeout
                + ", clockDrift=" + clockDriftFactor + "×lease+" + clockDriftMinimum
                + ", retryBackoff=" + minRetryBackoff + ".." + maxRetryBackoff
                + (listener != null ? ", listener=" + listener.getClass().getName() : "")
                + (credentials != null ? ", credentials=(set)" : "")
                + (owner != null ? ", owner=" + owner : "") + "]";
    }

    /** Builds {@link LockOptions}; every setter validates its argument at once. */
    public static final class Builder {
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration operationTimeout = Duration.ofSeconds(2);
        private double clockDriftFactor = 0.01;
        private Duration clockDriftMinimum = Duration.ofMillis(2);
        private Duration minRetryBackoff = Duration.ofMillis(5);
        private Duration maxRetryBackoff = Duration.ofMillis(100);
        private LockListener listener;
        private Supplier<Credentials> credentials;
        private String owner;

        private Builder() {
        }

        /**
         * @param timeout positive, at most a minute
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positiveAtMostAMinute(timeout, "connectTimeout");
            return this;
        }

        /**
         * @param timeout positive, at most a minute
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder operationTimeout(Duration timeout) {
            this.operationTimeout = positiveAtMostAMinute(timeout, "operationTimeout");
            return this;
        }

        /**
         * @param factor  fraction of the lease time, in [0, 0.5)
         * @param minimum fixed allowance, not negative, at most a minute
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder clockDrift(double factor, Duration minimum) {
            if (!(factor >= 0 && factor < 0.5)) {
                throw new IllegalArgumentException("clockDriftFactor must be in [0, 0.5), was " + factor);
            }
            Objects.requireNonNull(minimum, "clockDriftMinimum");
            if (minimum.isNegative() || minimum.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("clockDriftMinimum must be in [0, 1 min], was " + minimum);
            }
            this.clockDriftFactor = factor;
            this.clockDriftMinimum = minimum;
            return this;
        }

        /**
         * @param min first delay, positive
         * @param max longest delay, at least {@code min}, at most a minute
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder retryBackoff(Duration min, Duration max) {
            positiveAtMostAMinute(min, "minRetryBackoff");
            positiveAtMostAMinute(max, "maxRetryBackoff");
            if (max.compareTo(min) < 0) {
                throw new IllegalArgumentException("maxRetryBackoff " + max + " is shorter than minRetryBackoff " + min);
            }
            this.minRetryBackoff = min;
            this.maxRetryBackoff = max;
            return this;
        }

        /**
         * Sets the listener told of every lock event of the client (see {@link LockListener} for
         * its threads and cost); a client without one creates no events.
         *
         * @param listener the listener, or null for none
         * @return this builder
         */
        public Builder listener(LockListener listener) {
            this.listener = listener;
            return this;
        }

        /**
         * Sets the credentials every connection of the client presents. A URI that carries user
         * info as well is refused at connect: credentials are given in one place.
         *
         * @param credentials the credentials, or null for none (or those of the URI)
         * @return this builder
         */
        public Builder credentials(Credentials credentials) {
            this.credentials = credentials == null ? null : () -> credentials;
            return this;
        }

        /**
         * Sets where credentials come from: the supplier is called each time the client connects
         * or reconnects (for example reading a file that a vault agent rotates), on the
         * connecting thread; it must be thread-safe and return promptly. A URI that carries user
         * info as well is refused at connect.
         *
         * @param supplier the supplier, or null for none
         * @return this builder
         */
        public Builder credentials(Supplier<Credentials> supplier) {
            this.credentials = supplier;
            return this;
        }

        /**
         * Sets how the client's leases describe their holder to whoever inspects a lock
         * ({@link LockClient#inspect}): stored on the server with every lease the client takes.
         * <b>Anyone who can read the backend can read it: never put a secret in it.</b> Without
         * one, {@code user@host:pid/<client-id>}.
         *
         * @param owner at most {@value LockOptions#MAX_OWNER_LENGTH} characters, not blank, no control
         *              characters; or null for the default
         * @return this builder
         * @throws IllegalArgumentException if blank, too long or with a control character
         */
        public Builder owner(String owner) {
            this.owner = owner == null ? null : io.distlock.engine.Arguments.text(owner, "owner", MAX_OWNER_LENGTH);
            return this;
        }

        /** @return the options */
        public LockOptions build() {
            return new LockOptions(this);
        }

        private static Duration positiveAtMostAMinute(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero() || d.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException(what + " must be positive and at most 1 min, was " + d);
            }
            return d;
        }
    }
}
