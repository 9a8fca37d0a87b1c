package io.distlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Who holds a lock, as the backend's server showed it at one moment ({@link LockClient#inspect},
 * {@link LockClient#holders}, {@link LockClient#revoke}) — or one hold of a read-write lock or a
 * semaphore ({@link DistributedReadWriteLock#holders}, {@link DistributedSemaphore#holders}): a
 * reader, the writer, a permit, each with its {@link #kind()} and the {@link #holdId()} that names it
 * among the others for a revoke. Immutable.
 *
 * <p>What it shows is already old when it arrives: the holder may have released the lock, or lost
 * it, since. It is for people and tools to look at, never a basis for deciding who may write: that
 * is what a lease and its fencing token are for. It never holds a secret: no owner token, no
 * password; the owner description is what the holder's client chose to show
 * ({@link LockOptions.Builder#owner(String)}).
 */
public final class LockInfo {

    /** Whose clock {@link #acquiredAt()} was read from. */
    public enum Clock {
        /** The server's: it stamped the grant itself (Redis {@code TIME}, a ZooKeeper node's creation time). */
        SERVER,
        /** The holder's: the server keeps no time, so the holder's client wrote its own clock's reading. */
        HOLDER
    }

    /** What the holder holds. */
    public enum Kind {
        /** A lock ({@link LockClient#lock}): its one holder. */
        LOCK,
        /** A share of a read-write lock's read side. */
        READ,
        /** A read-write lock's write side. */
        WRITE,
        /** One of a semaphore's permits. */
        PERMIT
    }

    private final String name;
    private final Kind kind;
    private final OptionalInt permits;
    private final String holdId;
    private final String owner;
    private final OptionalLong fencingToken;
    private final Instant acquiredAt;
    private final Clock acquiredClock;
    private final Duration remaining;
    private final OptionalInt waiters;
    private final String detail;

    private LockInfo(Builder b) {
        this.name = b.name;
        this.kind = b.kind;
        this.permits = b.permits;
        this.holdId = b.holdId;
        this.owner = b.owner;
        this.fencingToken = b.fencingToken;
        this.acquiredAt = b.acquiredAt;
        this.acquiredClock = b.acquiredClock;
        this.remaining = b.remaining;
        this.waiters = b.waiters;
        this.detail = b.detail;
    }

    /**
     * @param name the lock's name
     * @return a builder, for a backend that reports what its server holds
     * @throws NullPointerException if {@code name} is null
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** @return the lock's name */
    public String name() {
        return name;
    }

    /** @return what is held: a lock, a reader's or the writer's hold, or a semaphore's permit */
    public Kind kind() {
        return kind;
    }

    /** @return for a {@link Kind#PERMIT}, the semaphore's permit count as its server stores it; otherwise empty */
    public OptionalInt permits() {
        return permits;
    }

    /**
     * @return for a reader, a writer or a permit, what names this hold among its primitive's holders:
     *         what {@link DistributedReadWriteLock#revoke} and {@link DistributedSemaphore#revoke} take
     *         (a grant's number, a node's sequence, a key's revision; never the owner token). Empty
     *         for a lock, which has one holder and is revoked by name
     */
    public Optional<String> holdId() {
        return Optional.ofNullable(holdId);
    }

    /**
     * @return the holder's owner description; empty if its lease carries none (taken by a client
     *         that stores no description, such as one of an earlier distlock layout)
     */
    public Optional<String> owner() {
        return Optional.ofNullable(owner);
    }

    /** @return the holder's fencing token, on a backend with {@link Feature#FENCING_TOKENS}; otherwise empty */
    public OptionalLong fencingToken() {
        return fencingToken;
    }

    /** @return when the lease was granted, by the clock {@link #acquiredClock()} names; empty if unknown */
    public Optional<Instant> acquiredAt() {
        return Optional.ofNullable(acquiredAt);
    }

    /** @return whose clock {@link #acquiredAt()} is read from; empty when it is unknown */
    public Optional<Clock> acquiredClock() {
        return acquiredAt == null ? Optional.empty() : Optional.of(acquiredClock);
    }

    /**
     * @return how long the server still keeps the lease if nobody extends or releases it (a key's
     *         TTL); empty where the server keeps no expiry of its own (a session store, whose
     *         holder's client ends the lease)
     */
    public Optional<Duration> remaining() {
        return Optional.ofNullable(remaining);
    }

    /** @return how many clients wait for the lock, where the backend knows (a queue of nodes or keys); otherwise empty */
    public OptionalInt waiters() {
        return waiters;
    }

    /** @return where the backend keeps the lock, for an operator to find it: a key, a node path, a lease id */
    public String detail() {
        return detail;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockInfo other && name.equals(other.name) && kind == other.kind && permits.equals(other.permits)
                && Objects.equals(holdId, other.holdId) && Objects.equals(owner, other.owner)
                && fencingToken.equals(other.fencingToken) && Objects.equals(acquiredAt, other.acquiredAt)
                && Objects.equals(acquiredClock(), other.acquiredClock()) && Objects.equals(remaining, other.remaining)
                && waiters.equals(other.waiters) && detail.equals(other.detail);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, kind, permits, holdId, owner, fencingToken, acquiredAt, remaining, waiters, detail);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("LockInfo['").append(name).append("'");
        if (kind != Kind.LOCK) {
            s.append(", ").append(kind.name().toLowerCase(java.util.Locale.ROOT)).append(' ').append(holdId);
            permits.ifPresent(p -> s.append(" of ").append(p).append(p == 1 ? " permit" : " permits"));
        }
        s.append(", owner ").append(owner == null ? "(none)" : "'" + owner + "'");
        fencingToken.ifPresent(t -> s.append(", token ").append(t));
        if (acquiredAt != null) {
            s.append(", acquired ").append(acquiredAt).append(" (").append(acquiredClock.name().toLowerCase(java.util.Locale.ROOT))
                    .append(" clock)");
        }
        if (remaining != null) {
            s.append(", ").append(remaining.toMillis()).append(" ms left");
        }
        waiters.ifPresent(w -> s.append(", ").append(w).append(w == 1 ? " waiter" : " waiters"));
        return s.append(", ").append(detail).append("]").toString();
    }

    /** Builds a {@link LockInfo}; for backends. Every setter validates its argument at once. */
    public static final class Builder {
        private final String name;
        private Kind kind = Kind.LOCK;
        private OptionalInt permits = OptionalInt.empty();
        private String holdId;
        private String owner;
        private OptionalLong fencingToken = OptionalLong.empty();
        private Instant acquiredAt;
        private Clock acquiredClock;
        private Duration remaining;
        private OptionalInt waiters = OptionalInt.empty();
        private String detail = "";

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /**
         * A reader, the writer or a permit rather than a lock's holder (the default).
         *
         * @param kind   what is held: {@link Kind#READ}, {@link Kind#WRITE} or {@link Kind#PERMIT}
         * @param holdId what names the hold among its primitive's holders; never the owner token
         * @return this builder
         * @throws NullPointerException     if either is null
         * @throws IllegalArgumentException if {@code kind} is {@link Kind#LOCK} or {@code holdId} is blank
         */
        public Builder hold(Kind kind, String holdId) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(holdId, "holdId");
            if (kind == Kind.LOCK) {
                throw new IllegalArgumentException("a lock has one holder and no hold id");
            }
            if (holdId.isBlank()) {
                throw new IllegalArgumentException("holdId must not be blank");
            }
            this.kind = kind;
            this.holdId = holdId;
            return this;
        }

        /**
         * @param permits a permit's semaphore count, as the server stores it
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder permits(int permits) {
            if (permits <= 0) {
                throw new IllegalArgumentException("permits must be positive, was " + permits);
            }
            this.permits = OptionalInt.of(permits);
            return this;
        }

        /**
         * @param owner the holder's owner description, or null if its lease carries none
         * @return this builder
         */
        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        /**
         * @param token the holder's fencing token
         * @return this builder
         */
        public Builder fencingToken(long token) {
            this.fencingToken = OptionalLong.of(token);
            return this;
        }

        /**
         * @param at    when the lease was granted
         * @param clock whose clock that is
         * @return this builder
         * @throws NullPointerException if either is null
         */
        public Builder acquiredAt(Instant at, Clock clock) {
            this.acquiredAt = Objects.requireNonNull(at, "at");
            this.acquiredClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param remaining what the server has left of the lease; a negative value counts as zero
         * @return this builder
         * @throws NullPointerException if {@code remaining} is null
         */
        public Builder remaining(Duration remaining) {
            this.remaining = Objects.requireNonNull(remaining, "remaining").isNegative() ? Duration.ZERO : remaining;
            return this;
        }

        /**
         * @param waiters how many clients wait for the lock
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder waiters(int waiters) {
            if (waiters < 0) {
                throw new IllegalArgumentException("waiters must not be negative, was " + waiters);
            }
            this.waiters = OptionalInt.of(waiters);
            return this;
        }

        /**
         * @param detail where the backend keeps the lock (a key, a node path, a lease id); never a secret
         * @return this builder
         * @throws NullPointerException if {@code detail} is null
         */
        public Builder detail(String detail) {
            this.detail = Objects.requireNonNull(detail, "detail");
            return this;
        }

        /**
         * @return the lock info
         * @throws IllegalStateException if a permit count was given for a hold that is not a permit
         */
        public LockInfo build() {
            if (permits.isPresent() && kind != Kind.PERMIT) {
                throw new IllegalStateException("a permit count belongs to a semaphore's permit, not to a " + kind);
            }
            return new LockInfo(this);
        }
    }
}
