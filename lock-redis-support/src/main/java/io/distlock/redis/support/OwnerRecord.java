package io.distlock.redis.support;

import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Who holds a lock, as its owner record ({@link LockScripts#ownerKey}) keeps it beside the lock key:
 * {@code <fence> <acquired at> <owner token> <owner description>}, one space between the first
 * three fields, the description last (it may hold spaces; never a control character, which the
 * engine refuses). The fence is {@code -} on a backend without fencing tokens, the time {@code -}
 * when the server did not tell it (a user without {@code +time}); the time is the server's
 * {@code TIME} at the grant, in milliseconds since the epoch.
 *
 * <p>The owner token is kept so that a reader can tell whether the record belongs to the lease the
 * lock key holds now: a record left behind (the lock key deleted by hand, or taken by a client of
 * the layout before owner records, which writes none) names another token and is ignored.
 *
 * @param fence       the grant's fencing token, if the backend has one
 * @param acquiredAt  the server's time at the grant, or null if unknown
 * @param ownerToken  the owner token of the lease the record describes
 * @param owner       the owner description
 */
public record OwnerRecord(OptionalLong fence, Instant acquiredAt, String ownerToken, String owner) {

    /**
     * @throws NullPointerException if {@code fence}, {@code ownerToken} or {@code owner} is null
     */
    public OwnerRecord {
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(ownerToken, "ownerToken");
        Objects.requireNonNull(owner, "owner");
    }

    /**
     * Reads a record as the scripts write it.
     *
     * @param value the owner record key's value, or null
     * @return the record, or null if {@code value} is null or not a record (a key written by
     *         something else: shown as no owner, never a failure)
     */
    public static OwnerRecord parse(String value) {
        if (value == null) {
            return null;
        }
        int first = value.indexOf(' ');
        int second = first < 0 ? -1 : value.indexOf(' ', first + 1);
        int third = second < 0 ? -1 : value.indexOf(' ', second + 1);
        if (third < 0) {
            return null;
        }
        try {
            String fence = value.substring(0, first);
            String at = value.substring(first + 1, second);
            return new OwnerRecord(fence.equals("-") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(fence)),
                    at.equals("-") ? null : Instant.ofEpochMilli(Long.parseLong(at)), value.substring(second + 1, third),
                    value.substring(third + 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Writes a record as {@link #parse} reads it, for a backend that cannot write it in a script (Tair).
     *
     * @return the record's value
     */
    public String format() {
        return (fence.isPresent() ? Long.toString(fence.getAsLong()) : "-") + " "
                + (acquiredAt == null ? "-" : Long.toString(acquiredAt.toEpochMilli())) + " " + ownerToken + " " + owner;
    }

    /** Leaves the owner token out: it is the lease's secret. */
    @Override
    public String toString() {
        return "OwnerRecord[fence " + (fence.isPresent() ? fence.getAsLong() : "-") + ", at " + acquiredAt + ", owner '" + owner + "']";
    }
}
