package io.distlock.cli;

import io.distlock.LockInfo;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** How a holder is shown in a table: one row per held lock. */
final class Holdings {

    static final List<String> HEADER = List.of("NAME", "OWNER", "TOKEN", "SINCE", "REMAINING", "WAITERS");

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

    private static String ago(Duration d) {
        return d.isNegative() ? "in " + Durations.format(d.negated()) : Durations.format(d) + " ago";
    }
}
