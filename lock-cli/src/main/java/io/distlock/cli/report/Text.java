package io.distlock.cli.report;

import java.util.Locale;

/**
 * Escaping and number formats shared by the report's HTML and Markdown forms. Every format uses
 * {@link Locale#ROOT}: a report must read the same whatever the locale of the machine that wrote it
 * (a decimal comma would also break the SVG coordinates).
 */
final class Text {

    /** What a figure that is not a number (a zero-length window's rate) shows. */
    static final String NOT_A_NUMBER = "–";

    private Text() {
    }

    /** The text, safe in HTML text and in a double- or single-quoted attribute. */
    static String html(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                // Control characters other than tab and newlines are not allowed in HTML (nor in the SVG's
                // XML, should someone extract it): a message from a broken backend may carry one.
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                        b.append('\uFFFD');
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    /** A coordinate for an SVG attribute: two decimals at most, no exponent. */
    static String px(double v) {
        if (!Double.isFinite(v)) {
            return "0";
        }
        String s = String.format(Locale.ROOT, "%.2f", v);
        // Trim "12.50" to "12.5" and "12.00" to "12": the charts have thousands of coordinates.
        if (s.indexOf('.') >= 0) {
            int end = s.length();
            while (s.charAt(end - 1) == '0') {
                end--;
            }
            if (s.charAt(end - 1) == '.') {
                end--;
            }
            s = s.substring(0, end);
        }
        return s.equals("-0") ? "0" : s;
    }

    /** Nanoseconds since a timeline's origin, in milliseconds with a precision that suits the size. */
    static String ms(long nanos) {
        double ms = nanos / 1e6;
        double abs = Math.abs(ms);
        String pattern = abs < 1 ? "%.3f" : abs < 10 ? "%.2f" : abs < 100 ? "%.1f" : "%,.0f";
        return String.format(Locale.ROOT, pattern, ms) + " ms";
    }

    /**
     * Two instants of a timeline in milliseconds, with as many decimals as their distance needs to show:
     * an overlap of 0.2 ms at 548 ms reads {@code 548.12 ms} and {@code 548.32 ms}, not 548 and 548.
     */
    static String[] msPair(long fromNanos, long toNanos) {
        double distance = Math.abs(toNanos - fromNanos) / 1e6;
        int decimals = distance <= 0 ? 3 : (int) Math.max(0, Math.min(6, Math.ceil(-Math.log10(distance)) + 1));
        String pattern = "%,." + decimals + "f ms";
        return new String[] {String.format(Locale.ROOT, pattern, fromNanos / 1e6),
            String.format(Locale.ROOT, pattern, toNanos / 1e6)};
    }

    /** A latency given in microseconds, in µs, ms or s as suits it: {@code 87 µs}, {@code 1.24 ms}. */
    static String micros(double us) {
        if (!Double.isFinite(us)) {
            return NOT_A_NUMBER;
        }
        double abs = Math.abs(us);
        if (abs < 1) {
            return String.format(Locale.ROOT, "%.2f µs", us);
        }
        if (abs < 10) {
            return String.format(Locale.ROOT, "%.1f µs", us);
        }
        if (abs < 1_000) {
            return String.format(Locale.ROOT, "%.0f µs", us);
        }
        if (abs < 10_000) {
            return String.format(Locale.ROOT, "%.2f ms", us / 1e3);
        }
        if (abs < 100_000) {
            return String.format(Locale.ROOT, "%.1f ms", us / 1e3);
        }
        if (abs < 1_000_000) {
            return String.format(Locale.ROOT, "%.0f ms", us / 1e3);
        }
        return String.format(Locale.ROOT, "%.2f s", us / 1e6);
    }

    /** An axis label for a latency in µs: as short as it can be ({@code 200 µs}, {@code 1 ms}, {@code 2.5 ms}). */
    static String microsTick(double us) {
        if (us >= 1_000_000) {
            return trim(us / 1e6) + " s";
        }
        if (us >= 1_000) {
            return trim(us / 1e3) + " ms";
        }
        return trim(us) + " µs";
    }

    /** A run's length: {@code 850 ms}, {@code 12.4 s}, {@code 3 min 12 s}. */
    static String duration(long millis) {
        if (millis < 1_000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1e3);
        }
        long seconds = millis / 1_000;
        return seconds / 60 + " min " + seconds % 60 + " s";
    }

    /** A count with thousands separators. */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** A count on an axis: {@code 950}, {@code 12k}, {@code 1.5M}. */
    static String countTick(double n) {
        if (n >= 1e6) {
            return trim(n / 1e6) + "M";
        }
        if (n >= 1e3) {
            return trim(n / 1e3) + "k";
        }
        return trim(n);
    }

    /** A rate: {@code 12,345} per second, or one decimal below 100. */
    static String rate(double perSecond) {
        if (!Double.isFinite(perSecond)) {
            return NOT_A_NUMBER;
        }
        return String.format(Locale.ROOT, perSecond < 100 ? "%.1f" : "%,.0f", perSecond);
    }

    /** A percentile as its name is written: {@code 50}, {@code 99.9}, {@code 99.99}. */
    static String percentile(double p) {
        return trim(p);
    }

    /** At most four decimals, none that are trailing zeros. */
    static String trim(double v) {
        if (!Double.isFinite(v)) {
            return NOT_A_NUMBER;
        }
        String s = String.format(Locale.ROOT, "%.4f", v);
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }
}
