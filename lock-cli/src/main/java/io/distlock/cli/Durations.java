package io.distlock.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a duration as people write it: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or ISO-8601 ({@code PT30S}). */
final class Durations implements ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(v);
        Duration d;
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } else {
            try {
                d = Duration.parse(value.trim());
            } catch (RuntimeException e) {
                throw new TypeConversionException("'" + value + "' is not a duration: write 500ms, 30s, 2m, 1h or PT30S");
            }
        }
        if (d.isNegative() || d.isZero()) {
            throw new TypeConversionException("'" + value + "' is not a positive duration");
        }
        return d;
    }

    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms < 1_000) {
            return ms + " ms";
        }
        if (ms < 120_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1_000.0);
        }
        long s = d.toSeconds();
        if (s < 7_200) {
            return (s / 60) + " min " + (s % 60) + " s";
        }
        return (s / 3_600) + " h " + (s % 3_600 / 60) + " min";
    }
}
