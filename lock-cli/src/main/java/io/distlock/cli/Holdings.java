package io.distlock.cli;

import io.distlock.LockInfo;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** How a holder is shown in a table: one row per held lock. */
final class Holdings {

    static final List<String> HEADER = List.of("NAME", "OWNER", "TOKEN", "SINCE", "REMAINING", "WAITERS");

    /** A semaphore's or a read-write lock's holds: one row per permit, reader or writer. */
    static final List<String> HOLD_HEADER = List.of("NAME", "KIND", "HOLD", "OWNER", "TOKEN", "SINCE", "REMAINING");

    private Holdings() {
    }

    static List<String> row(LockInfo info, Instant now) {
        return List.of(info.name(),
                info.owner().orElse("-"),
                info.fencingToken().isPresent() ? Long.toString(info.fencingToken().getAsLong()) : "-",
                info.acquiredAt().map(at -> at + " (" + ago(Duration.between(at, now)) + ", "
                        + info.acquiredClock().map(c -> c.name().toLowerCase(Locale.ROOT)).orElse("?") + " clock)").orElse("-"),
                info.remaining().map(Durations::format).orElse("-"),
                info.waiters().isPresent() ? Integer.toString(info.waiters().getAsInt()) : "-");
    }

    static List<String> holdRow(LockInfo info, Instant now) {
        List<String> lock = row(info, now);
        String kind = info.kind().name().toLowerCase(Locale.ROOT)
                + (info.permits().isPresent() ? " of " + info.permits().getAsInt() : "");
        return List.of(lock.get(0), kind, info.holdId().orElse("-"), lock.get(1), lock.get(2), lock.get(3), lock.get(4));
    }

    private static String ago(Duration d) {
        return d.isNegative() ? "in " + Durations.format(d.negated()) : Durations.format(d) + " ago";
    }
}
