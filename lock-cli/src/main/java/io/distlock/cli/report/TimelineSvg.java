package io.distlock.cli.report;

import io.distlock.cli.report.Report.Grant;
import io.distlock.cli.report.Report.Overlap;
import io.distlock.cli.report.Report.Timeline;
import io.distlock.cli.report.Report.Wait;
import io.distlock.cli.report.Report.Write;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static io.distlock.cli.report.Text.html;
import static io.distlock.cli.report.Text.px;

/**
 * A contention timeline as an inline SVG: one lane per client, a bar per grant labelled with its fencing
 * token, waits drawn faintly, writes as marks under the bars, and every overlap of two valid holders as a
 * red band across the lanes involved. Styling is left to the page's stylesheet (classes only), so that the
 * print rules can change it.
 *
 * <p>With hundreds of grants over seconds, an overlap of a fraction of a millisecond is a few px wide;
 * {@link #closeUp} draws the window around one overlap at a readable scale. A close-up's elements carry
 * classes of their own ({@code zoom-grant}, {@code zoom-lane}, ...), so that counting the grants, lanes or
 * overlaps of a page finds each once.
 */
final class TimelineSvg {

    /** The chart's width in user units; the viewBox lets the page scale it to its column. */
    static final int WIDTH = 1200;

    // The geometry, in user units (≈ px at 1280 px). A lane is a strip for the token labels that do not
    // fit in their bar, then the bar, then the writes' marks hanging below it (through the bar, they would
    // cross its label).
    private static final int LANE = 26;
    private static final double BAR_TOP = 11;
    private static final double BAR_HEIGHT = 11;
    /** The strip above the lanes that holds the overlaps' numbers. */
    private static final int TOP = 18;
    private static final int AXIS = 30;
    private static final int RIGHT = 34;
    private static final double LABEL_CHAR = 7.2;
    /** A token digit's advance at the labels' 9 px (DejaVu Sans: 5.73), a little generous so labels never touch. */
    private static final double TOKEN_CHAR = 5.8;
    private static final double TOKEN_PAD = 4;
    /** Below this many px, an overlap's band is widened so that it stays visible. */
    private static final double MIN_OVERLAP_WIDTH = 4;
    /** Below this width a bar's accepted writes are not marked: they would only darken a crowded lane. */
    private static final double MIN_WIDTH_FOR_WRITES = 6;
    /** A close-up is drawn only when its window is at most this share of the run; otherwise the chart shows it. */
    private static final double CLOSE_UP_SHARE = 0.4;

    private TimelineSvg() {
    }

    /**
     * The lanes: the timeline's clients in order, then any client a grant or a wait names that the list
     * lacks (a model built by hand may forget one; its bars must still be drawn).
     */
    static List<String> lanes(Timeline t) {
        Set<String> lanes = new LinkedHashSet<>(t.clients());
        t.grants().forEach(g -> lanes.add(g.client()));
        t.waits().forEach(w -> lanes.add(w.client()));
        return List.copyOf(lanes);
    }

    /** The run's length as drawn: its span, or the last thing drawn if something ends later. */
    static long end(Timeline t) {
        long end = t.spanNanos();
        for (Grant g : t.grants()) {
            end = Math.max(end, g.toNanos());
            if (g.expired()) {
                end = Math.max(end, g.validUntilNanos());
            }
            for (Write w : g.writes()) {
                end = Math.max(end, w.atNanos());
            }
        }
        for (Wait w : t.waits()) {
            end = Math.max(end, w.toNanos());
        }
        for (Overlap o : t.overlaps()) {
            end = Math.max(end, o.toNanos());
        }
        return Math.max(end, 1);
    }

    /** The whole run of {@code t}, its element id {@code id}. */
    static String render(Timeline t, String id) {
        return new Chart(t, 0, end(t), false).draw(id);
    }

    /**
     * The window around overlap {@code n} of {@code t} (its two grants, with a margin), or null when that
     * window is a large part of the run anyway and the whole chart shows it well enough.
     */
    static long[] closeUpWindow(Timeline t, int n) {
        Overlap o = t.overlaps().get(n);
        long from = o.fromNanos();
        long to = o.toNanos();
        for (Grant g : t.grants()) {
            if (g.lease() == o.leaseA() || g.lease() == o.leaseB()) {
                from = Math.min(from, g.fromNanos());
                to = Math.max(to, g.expired() ? Math.max(g.toNanos(), g.validUntilNanos()) : g.toNanos());
            }
        }
        long margin = Math.max((to - from) / 6, 1_000);
        from = Math.max(0, from - margin);
        to = to + margin;
        return to - from > CLOSE_UP_SHARE * end(t) ? null : new long[] {from, to};
    }

    /** Overlap {@code n} of {@code t} close up, over {@code window} (from {@link #closeUpWindow}). */
    static String closeUp(Timeline t, int n, long[] window, String id) {
        return new Chart(t, window[0], window[1], true).draw(id);
    }

    /** One drawing: the whole run, or a close-up of a window of it. */
    private static final class Chart {
        private final Timeline t;
        private final boolean zoom;
        private final List<String> lanes;
        private final Map<String, Integer> laneOf = new HashMap<>();
        private final Map<Long, Grant> byLease = new HashMap<>();
        private final Set<Long> overlapping = new HashSet<>();
        /** The client names' column; the plot starts at its right edge. */
        private final double nameWidth;
        private final int labelChars;
        private final double x0;
        private final double x1;
        private final long from;
        private final long to;
        private final double lanesBottom;
        private final StringBuilder s = new StringBuilder(64 * 1024);

        Chart(Timeline t, long from, long to, boolean zoom) {
            this.t = t;
            this.zoom = zoom;
            this.from = from;
            this.to = Math.max(to, from + 1);
            lanes = lanes(t);
            for (int i = 0; i < lanes.size(); i++) {
                laneOf.put(lanes.get(i), i);
            }
            t.grants().forEach(g -> byLease.put(g.lease(), g));
            for (Overlap o : t.overlaps()) {
                overlapping.add(o.leaseA());
                overlapping.add(o.leaseB());
            }
            int longest = lanes.stream().mapToInt(String::length).max().orElse(4);
            nameWidth = Math.max(80, Math.min(220, 18 + longest * LABEL_CHAR));
            labelChars = (int) ((nameWidth - 18) / LABEL_CHAR);
            x0 = nameWidth;
            x1 = WIDTH - RIGHT;
            lanesBottom = TOP + lanes.size() * (double) LANE;
        }

        /** A class of the lanes' content: the chart's own, or the close-up's ({@code zoom-} prefixed). */
        private String cls(String name) {
            return zoom ? "zoom-" + name : name;
        }

        private double x(double nanos) {
            return x0 + (x1 - x0) * ((nanos - from) / (to - from));
        }

        /** Clamped to the plot, for a bar that starts before the window or ends after it. */
        private double xIn(double nanos) {
            return Math.max(x0, Math.min(x1, x(nanos)));
        }

        private boolean visible(long start, long end) {
            return end >= from && start <= to;
        }

        String draw(String id) {
            int height = (int) lanesBottom + AXIS;
            s.append("<svg class=\"").append(zoom ? "timeline-zoom" : "timeline").append("\" id=\"").append(html(id))
                    .append("\" data-rule=\"").append(html(t.rule()))
                    .append("\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ").append(WIDTH).append(' ')
                    .append(height).append("\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                    .append("\" role=\"img\" aria-label=\"").append(html((zoom ? "Close-up of the timeline of rule "
                            : "Timeline of rule ") + t.rule() + ", lock " + t.lockName() + ": " + t.grants().size()
                            + " grants, " + t.overlaps().size() + " overlaps")).append("\">\n");

            // Alternate lane backgrounds first, then the grid over them, then the lanes' content over both.
            s.append("<g class=\"backdrop\">");
            for (int i = 0; i < lanes.size(); i++) {
                s.append("<rect class=\"").append(i % 2 == 0 ? "stripe" : "stripe odd").append("\" x=\"0\" y=\"")
                        .append(px(TOP + i * (double) LANE)).append("\" width=\"").append(WIDTH).append("\" height=\"")
                        .append(LANE).append("\"/>");
            }
            s.append("</g>\n");
            List<Double> ticks = ticks(from, to);
            s.append("<g class=\"grid\">");
            for (double tick : ticks) {
                double tx = x(tick);
                s.append("<line x1=\"").append(px(tx)).append("\" x2=\"").append(px(tx)).append("\" y1=\"").append(TOP)
                        .append("\" y2=\"").append(px(lanesBottom)).append("\"/>");
            }
            s.append("</g>\n");

            for (int i = 0; i < lanes.size(); i++) {
                lane(lanes.get(i), TOP + i * (double) LANE);
            }
            overlaps();
            axis(ticks);
            s.append("</svg>");
            return s.toString();
        }

        private void lane(String client, double top) {
            s.append("<g class=\"").append(cls("lane")).append("\" data-client=\"").append(html(client)).append("\">");
            String shown = client.length() > labelChars ? client.substring(0, Math.max(1, labelChars - 1)) + "…"
                    : client;
            s.append("<text class=\"client\" x=\"").append(px(nameWidth - 10)).append("\" y=\"")
                    .append(px(top + BAR_TOP + BAR_HEIGHT - 2)).append("\">").append(html(shown))
                    .append("<title>").append(html(client)).append("</title></text>");
            for (Wait w : t.waits()) {
                if (w.client().equals(client) && visible(w.fromNanos(), w.toNanos())) {
                    wait(w, top);
                }
            }
            // Where the last token label above a bar ends, so that the next one is only drawn if it has room.
            double labelledUpTo = Double.NEGATIVE_INFINITY;
            for (Grant g : t.grants()) {
                long end = g.expired() ? Math.max(g.toNanos(), g.validUntilNanos()) : g.toNanos();
                if (g.client().equals(client) && visible(g.fromNanos(), end)) {
                    labelledUpTo = grant(g, top, labelledUpTo);
                }
            }
            s.append("</g>\n");
        }

        private void wait(Wait w, double top) {
            double left = xIn(w.fromNanos());
            double width = Math.max(1, xIn(w.toNanos()) - left);
            s.append("<rect class=\"").append(cls("wait")).append("\" data-granted=\"").append(w.granted())
                    .append("\" x=\"").append(px(left)).append("\" y=\"").append(px(top + BAR_TOP)).append("\" width=\"")
                    .append(px(width)).append("\" height=\"").append(px(BAR_HEIGHT)).append("\"><title>")
                    .append(html(w.client() + " waited " + Text.ms(w.toNanos() - w.fromNanos()) + ", "
                            + Text.ms(w.fromNanos()) + " → " + Text.ms(w.toNanos())
                            + (w.granted() ? ", then was granted the lock" : ", and was not granted the lock")))
                    .append("</title></rect>");
        }

        /**
         * Draws one grant, its token label, its validity's end if it was left to expire, and its writes.
         *
         * @return where the lane's last token label above a bar now ends
         */
        private double grant(Grant g, double top, double labelledUpTo) {
            double left = xIn(g.fromNanos());
            // One px at least: with hundreds of short grants, a bar must still show that the grant happened.
            double width = Math.max(1, xIn(g.toNanos()) - left);
            double barTop = top + BAR_TOP;
            double barBottom = barTop + BAR_HEIGHT;
            s.append("<rect class=\"").append(cls("grant")).append("\" data-lease=\"").append(g.lease()).append('"');
            if (g.token() != null) {
                s.append(" data-token=\"").append(g.token()).append('"');
            }
            if (g.expired()) {
                s.append(" data-expired=\"true\"");
            }
            if (overlapping.contains(g.lease())) {
                s.append(" data-overlap=\"true\"");
            }
            s.append(" x=\"").append(px(left)).append("\" y=\"").append(px(barTop)).append("\" width=\"")
                    .append(px(width)).append("\" height=\"").append(px(BAR_HEIGHT)).append("\"><title>")
                    .append(html(tooltip(g))).append("</title></rect>");

            if (g.token() != null) {
                String token = Long.toString(g.token());
                double tokenWidth = token.length() * TOKEN_CHAR + TOKEN_PAD;
                double centre = left + width / 2;
                // Above a bar at an edge of the plot, the label is moved inwards: it must not run into the
                // client's name on the left, nor out of the chart on the right.
                double above = Math.max(x0 + tokenWidth / 2, Math.min(WIDTH - 2 - tokenWidth / 2, centre));
                if (width >= tokenWidth) {
                    s.append("<text class=\"").append(cls("token")).append("\" data-place=\"inside\" x=\"")
                            .append(px(centre)).append("\" y=\"").append(px(barBottom - 2.5)).append("\">").append(token)
                            .append("</text>");
                } else if (above - tokenWidth / 2 > labelledUpTo + 2) {
                    // A bar too narrow for its label gets it above, in the lane's label strip, when that does
                    // not touch the previous one; the others keep theirs in the tooltip.
                    s.append("<text class=\"").append(cls("token")).append("\" data-place=\"above\" x=\"")
                            .append(px(above)).append("\" y=\"").append(px(top + 9)).append("\">").append(token)
                            .append("</text>");
                    labelledUpTo = above + tokenWidth / 2;
                }
            }

            if (g.expired() && g.validUntilNanos() >= from && g.validUntilNanos() <= to) {
                // The end of the validity promised at the grant: the instant after which another client may
                // rightly be granted the lock, whatever this holder still believes.
                double vx = x(g.validUntilNanos());
                s.append("<line class=\"").append(cls("validity-end")).append("\" x1=\"").append(px(vx))
                        .append("\" x2=\"").append(px(vx)).append("\" y1=\"").append(px(barTop - 3)).append("\" y2=\"")
                        .append(px(barBottom + 3)).append("\"><title>").append(html("validity of lease " + g.lease()
                                + " ends at " + Text.ms(g.validUntilNanos()) + " (left to expire)"))
                        .append("</title></line>");
            }

            for (Write w : g.writes()) {
                if (w.atNanos() < from || w.atNanos() > to || w.accepted() && width < MIN_WIDTH_FOR_WRITES) {
                    continue;
                }
                double wx = x(w.atNanos());
                String title = "<title>" + html((w.accepted() ? "write accepted at " : "write refused at ")
                        + Text.ms(w.atNanos()) + (g.token() == null ? "" : ", token " + g.token())) + "</title>";
                if (w.accepted()) {
                    s.append("<line class=\"").append(cls("write")).append(" accepted\" x1=\"").append(px(wx))
                            .append("\" x2=\"").append(px(wx)).append("\" y1=\"").append(px(barBottom)).append("\" y2=\"")
                            .append(px(barBottom + 4)).append("\">").append(title).append("</line>");
                } else {
                    // A cross rather than a tick: refused and accepted differ in shape, not only in colour.
                    double cy = barBottom + 1.5;
                    double r = 2.6;
                    s.append("<path class=\"").append(cls("write")).append(" refused\" d=\"M").append(px(wx - r))
                            .append(' ').append(px(cy - r)).append('L').append(px(wx + r)).append(' ')
                            .append(px(cy + r)).append('M').append(px(wx - r)).append(' ').append(px(cy + r))
                            .append('L').append(px(wx + r)).append(' ').append(px(cy - r)).append("\">").append(title)
                            .append("</path>");
                }
            }
            return labelledUpTo;
        }

        private void overlaps() {
            s.append("<g class=\"overlap-layer\">");
            double numberedUpTo = Double.NEGATIVE_INFINITY;
            for (int n = 0; n < t.overlaps().size(); n++) {
                Overlap o = t.overlaps().get(n);
                if (!visible(o.fromNanos(), o.toNanos())) {
                    continue;
                }
                double top = TOP;
                double bottom = lanesBottom;
                Grant a = byLease.get(o.leaseA());
                Grant b = byLease.get(o.leaseB());
                if (a != null && b != null) {
                    int la = laneOf.get(a.client());
                    int lb = laneOf.get(b.client());
                    top = TOP + Math.min(la, lb) * (double) LANE + BAR_TOP - 4;
                    bottom = TOP + Math.max(la, lb) * (double) LANE + BAR_TOP + BAR_HEIGHT + 4;
                }
                double left = xIn(o.fromNanos());
                double width = xIn(o.toNanos()) - left;
                if (width < MIN_OVERLAP_WIDTH) {
                    left -= (MIN_OVERLAP_WIDTH - width) / 2;
                    width = MIN_OVERLAP_WIDTH;
                }
                s.append("<rect class=\"").append(cls("overlap")).append("\" data-leases=\"").append(o.leaseA())
                        .append(' ').append(o.leaseB()).append("\" x=\"").append(px(left)).append("\" y=\"")
                        .append(px(top)).append("\" width=\"").append(px(width)).append("\" height=\"")
                        .append(px(bottom - top)).append("\"><title>")
                        .append(html("overlap #" + (n + 1) + ": leases " + o.leaseA() + " and " + o.leaseB() + ", "
                                + String.join(" → ", Text.msPair(o.fromNanos(), o.toNanos())) + "\n" + o.message()))
                        .append("</title></rect>");
                // The number that the list under the chart uses, in the strip above the lanes; a number that
                // would touch the previous one is left out (the band and the list still show the overlap).
                String number = "#" + (n + 1);
                double centre = left + width / 2;
                double half = (number.length() * 6.5) / 2;
                if (centre - half > numberedUpTo + 3) {
                    s.append("<text class=\"").append(cls("overlap-number")).append("\" x=\"").append(px(centre))
                            .append("\" y=\"").append(TOP - 5).append("\">").append(number).append("</text>");
                    numberedUpTo = centre + half;
                }
            }
            s.append("</g>\n");
        }

        private void axis(List<Double> ticks) {
            s.append("<g class=\"axis\">");
            double axisY = lanesBottom + 3;
            s.append("<line x1=\"").append(px(x0)).append("\" x2=\"").append(px(x1)).append("\" y1=\"")
                    .append(px(axisY)).append("\" y2=\"").append(px(axisY)).append("\"/>");
            double step = ticks.size() > 1 ? ticks.get(1) - ticks.get(0) : to - from;
            int decimals = (int) Math.max(0, -Math.floor(Math.log10(step / 1e6) + 1e-9));
            for (double tick : ticks) {
                double tx = x(tick);
                s.append("<line x1=\"").append(px(tx)).append("\" x2=\"").append(px(tx)).append("\" y1=\"")
                        .append(px(axisY)).append("\" y2=\"").append(px(axisY + 4)).append("\"/>");
                s.append("<text x=\"").append(px(tx)).append("\" y=\"").append(px(axisY + 16)).append("\">")
                        .append(String.format(Locale.ROOT, "%,." + decimals + "f ms", tick / 1e6)).append("</text>");
            }
            s.append("</g>\n");
        }
    }

    private static String tooltip(Grant g) {
        long accepted = g.writes().stream().filter(Write::accepted).count();
        long refused = g.writes().size() - accepted;
        StringBuilder t = new StringBuilder();
        t.append("lease ").append(g.lease()).append(" · ").append(g.client());
        if (g.token() != null) {
            t.append(" · token ").append(g.token());
        }
        t.append('\n').append(Text.ms(g.fromNanos())).append(" → ").append(Text.ms(g.toNanos())).append(" (")
                .append(Text.ms(g.toNanos() - g.fromNanos())).append(')');
        t.append(g.expired() ? ", left to expire" : ", released");
        t.append("\nvalid until ").append(Text.ms(g.validUntilNanos()));
        if (!g.writes().isEmpty()) {
            t.append("\nwrites: ").append(accepted).append(" accepted, ").append(refused).append(" refused");
        }
        return t.toString();
    }

    /**
     * The time axis' ticks between {@code from} and {@code to}, in nanoseconds: multiples of a round step
     * (1, 2 or 5 × 10ⁿ ms) that gives about ten of them, so that their labels never touch at 1200 units.
     */
    static List<Double> ticks(long from, long to) {
        double step = niceStep((to - from) / 10.0);
        List<Double> ticks = new ArrayList<>();
        for (long i = (long) Math.ceil(from / step - 1e-9); i * step <= to * (1 + 1e-12); i++) {
            ticks.add(i * step);
        }
        return ticks;
    }

    /** The smallest 1, 2 or 5 × 10ⁿ at least {@code raw}. */
    static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / magnitude;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
    }
}
