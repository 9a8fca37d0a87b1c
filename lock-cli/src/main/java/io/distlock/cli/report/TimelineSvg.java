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
 * token, waits drawn faintly, writes as ticks, and every overlap of two valid holders as a red band across
 * the lanes involved. Styling is left to the page's stylesheet (classes only), so that the print rules can
 * change it.
 */
final class TimelineSvg {

    /** The chart's width in user units; the viewBox lets the page scale it to its column. */
    static final int WIDTH = 1200;

    // The geometry, in user units (≈ px at 1280 px). A lane is a strip for the token labels that do not
    // fit in their bar, then the bar, then room for a refused write's cross below the bar.
    private static final int LANE = 26;
    private static final double BAR_TOP = 11;
    private static final double BAR_HEIGHT = 11;
    /** The strip above the lanes that holds the overlaps' numbers. */
    private static final int TOP = 18;
    private static final int AXIS = 30;
    private static final int RIGHT = 34;
    private static final double LABEL_CHAR = 7.2;
    /** A token digit's advance at the labels' 9 px, a little generous so that estimated labels never touch. */
    private static final double TOKEN_CHAR = 5.9;
    private static final double TOKEN_PAD = 4;
    /** Below this many px, an overlap's band is widened so that it stays visible. */
    private static final double MIN_OVERLAP_WIDTH = 4;

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

    /** The chart of {@code t}, its element id {@code id}. */
    static String render(Timeline t, String id) {
        List<String> lanes = lanes(t);
        Map<String, Integer> laneOf = new HashMap<>();
        for (int i = 0; i < lanes.size(); i++) {
            laneOf.put(lanes.get(i), i);
        }
        Map<Long, Grant> byLease = new HashMap<>();
        t.grants().forEach(g -> byLease.put(g.lease(), g));
        Set<Long> overlapping = new HashSet<>();
        for (Overlap o : t.overlaps()) {
            overlapping.add(o.leaseA());
            overlapping.add(o.leaseB());
        }

        int longest = lanes.stream().mapToInt(String::length).max().orElse(4);
        double labelWidth = Math.max(80, Math.min(220, 18 + longest * LABEL_CHAR));
        int labelChars = (int) ((labelWidth - 18) / LABEL_CHAR);
        double x0 = labelWidth;
        double x1 = WIDTH - RIGHT;
        long end = end(t);
        Scale x = new Scale(x0, x1, end);
        double lanesBottom = TOP + lanes.size() * (double) LANE;
        int height = (int) lanesBottom + AXIS;

        StringBuilder s = new StringBuilder(64 * 1024);
        s.append("<svg class=\"timeline\" id=\"").append(html(id)).append("\" data-rule=\"").append(html(t.rule()))
                .append("\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ").append(WIDTH).append(' ')
                .append(height).append("\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\" role=\"img\" aria-label=\"").append(html("Timeline of rule " + t.rule() + ", lock "
                        + t.lockName() + ": " + t.grants().size() + " grants, " + t.overlaps().size() + " overlaps"))
                .append("\">\n");

        // Alternate lane backgrounds first, then the grid over them, then the lanes' content over both.
        s.append("<g class=\"backdrop\">");
        for (int i = 0; i < lanes.size(); i++) {
            s.append("<rect class=\"").append(i % 2 == 0 ? "stripe" : "stripe odd").append("\" x=\"0\" y=\"")
                    .append(px(TOP + i * (double) LANE)).append("\" width=\"").append(WIDTH).append("\" height=\"")
                    .append(LANE).append("\"/>");
        }
        s.append("</g>\n");
        List<Double> ticks = ticks(end);
        s.append("<g class=\"grid\">");
        for (double tick : ticks) {
            double tx = x.at(tick);
            s.append("<line x1=\"").append(px(tx)).append("\" x2=\"").append(px(tx)).append("\" y1=\"").append(TOP)
                    .append("\" y2=\"").append(px(lanesBottom)).append("\"/>");
        }
        s.append("</g>\n");

        for (int i = 0; i < lanes.size(); i++) {
            String client = lanes.get(i);
            double top = TOP + i * (double) LANE;
            s.append("<g class=\"lane\" data-client=\"").append(html(client)).append("\">");
            String shown = client.length() > labelChars ? client.substring(0, Math.max(1, labelChars - 1)) + "…"
                    : client;
            s.append("<text class=\"client\" x=\"").append(px(labelWidth - 10)).append("\" y=\"")
                    .append(px(top + BAR_TOP + BAR_HEIGHT - 2)).append("\">").append(html(shown))
                    .append("<title>").append(html(client)).append("</title></text>");
            for (Wait w : t.waits()) {
                if (w.client().equals(client)) {
                    wait(s, w, x, top);
                }
            }
            // Where the last token label above a bar ends, so that the next one is only drawn if it has room.
            double labelledUpTo = Double.NEGATIVE_INFINITY;
            for (Grant g : t.grants()) {
                if (g.client().equals(client)) {
                    labelledUpTo = grant(s, g, x, top, overlapping.contains(g.lease()), labelledUpTo);
                }
            }
            s.append("</g>\n");
        }

        s.append("<g class=\"overlap-layer\">");
        double numberedUpTo = Double.NEGATIVE_INFINITY;
        for (int n = 0; n < t.overlaps().size(); n++) {
            Overlap o = t.overlaps().get(n);
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
            double left = x.at(o.fromNanos());
            double width = x.at(o.toNanos()) - left;
            if (width < MIN_OVERLAP_WIDTH) {
                left -= (MIN_OVERLAP_WIDTH - width) / 2;
                width = MIN_OVERLAP_WIDTH;
            }
            s.append("<rect class=\"overlap\" data-leases=\"").append(o.leaseA()).append(' ').append(o.leaseB())
                    .append("\" x=\"").append(px(left)).append("\" y=\"").append(px(top)).append("\" width=\"")
                    .append(px(width)).append("\" height=\"").append(px(bottom - top)).append("\"><title>")
                    .append(html("overlap #" + (n + 1) + ": leases " + o.leaseA() + " and " + o.leaseB() + ", "
                            + Text.ms(o.fromNanos()) + " → " + Text.ms(o.toNanos()) + "\n" + o.message()))
                    .append("</title></rect>");
            // The number that the list under the chart uses, in the strip above the lanes; a number that
            // would touch the previous one is left out (the band and the list still show the overlap).
            String number = "#" + (n + 1);
            double centre = left + width / 2;
            double half = (number.length() * 6.5) / 2;
            if (centre - half > numberedUpTo + 3) {
                s.append("<text class=\"overlap-number\" x=\"").append(px(centre)).append("\" y=\"")
                        .append(TOP - 5).append("\">").append(number).append("</text>");
                numberedUpTo = centre + half;
            }
        }
        s.append("</g>\n");

        s.append("<g class=\"axis\">");
        double axisY = lanesBottom + 3;
        s.append("<line x1=\"").append(px(x0)).append("\" x2=\"").append(px(x1)).append("\" y1=\"").append(px(axisY))
                .append("\" y2=\"").append(px(axisY)).append("\"/>");
        double step = ticks.size() > 1 ? ticks.get(1) - ticks.get(0) : end;
        int decimals = (int) Math.max(0, -Math.floor(Math.log10(step / 1e6) + 1e-9));
        for (double tick : ticks) {
            double tx = x.at(tick);
            s.append("<line x1=\"").append(px(tx)).append("\" x2=\"").append(px(tx)).append("\" y1=\"")
                    .append(px(axisY)).append("\" y2=\"").append(px(axisY + 4)).append("\"/>");
            s.append("<text x=\"").append(px(tx)).append("\" y=\"").append(px(axisY + 16)).append("\">")
                    .append(String.format(Locale.ROOT, "%,." + decimals + "f ms", tick / 1e6)).append("</text>");
        }
        s.append("</g>\n</svg>");
        return s.toString();
    }

    private static void wait(StringBuilder s, Wait w, Scale x, double top) {
        double left = x.at(w.fromNanos());
        double width = Math.max(1, x.at(w.toNanos()) - left);
        s.append("<rect class=\"wait\" data-granted=\"").append(w.granted()).append("\" x=\"").append(px(left))
                .append("\" y=\"").append(px(top + BAR_TOP)).append("\" width=\"").append(px(width))
                .append("\" height=\"").append(px(BAR_HEIGHT)).append("\"><title>")
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
    private static double grant(StringBuilder s, Grant g, Scale x, double top, boolean overlapping,
                                double labelledUpTo) {
        double left = x.at(g.fromNanos());
        double right = x.at(g.toNanos());
        // One px at least: with hundreds of short grants, a bar must still show that the grant happened.
        double width = Math.max(1, right - left);
        double barTop = top + BAR_TOP;
        double barBottom = barTop + BAR_HEIGHT;
        s.append("<rect class=\"grant\" data-lease=\"").append(g.lease()).append('"');
        if (g.token() != null) {
            s.append(" data-token=\"").append(g.token()).append('"');
        }
        if (g.expired()) {
            s.append(" data-expired=\"true\"");
        }
        if (overlapping) {
            s.append(" data-overlap=\"true\"");
        }
        s.append(" x=\"").append(px(left)).append("\" y=\"").append(px(barTop)).append("\" width=\"")
                .append(px(width)).append("\" height=\"").append(px(BAR_HEIGHT)).append("\"><title>")
                .append(html(tooltip(g))).append("</title></rect>");

        if (g.token() != null) {
            String token = Long.toString(g.token());
            double labelWidth = token.length() * TOKEN_CHAR + TOKEN_PAD;
            double centre = left + width / 2;
            if (width >= labelWidth) {
                s.append("<text class=\"token\" data-place=\"inside\" x=\"").append(px(centre)).append("\" y=\"")
                        .append(px(barBottom - 2.5)).append("\">").append(token).append("</text>");
            } else if (centre - labelWidth / 2 > labelledUpTo + 2) {
                // A bar too narrow for its label gets it above, in the lane's label strip, when that does
                // not touch the previous one; the others keep theirs in the tooltip.
                s.append("<text class=\"token\" data-place=\"above\" x=\"").append(px(centre)).append("\" y=\"")
                        .append(px(top + 9)).append("\">").append(token).append("</text>");
                labelledUpTo = centre + labelWidth / 2;
            }
        }

        if (g.expired()) {
            // The end of the validity promised at the grant: the instant after which another client may
            // rightly be granted the lock, whatever this holder still believes.
            double vx = x.at(g.validUntilNanos());
            s.append("<line class=\"validity-end\" x1=\"").append(px(vx)).append("\" x2=\"").append(px(vx))
                    .append("\" y1=\"").append(px(barTop - 3)).append("\" y2=\"").append(px(barBottom + 3))
                    .append("\"><title>").append(html("validity of lease " + g.lease() + " ends at "
                            + Text.ms(g.validUntilNanos()) + " (left to expire)")).append("</title></line>");
        }

        for (Write w : g.writes()) {
            double wx = x.at(w.atNanos());
            String title = "<title>" + html((w.accepted() ? "write accepted at " : "write refused at ")
                    + Text.ms(w.atNanos()) + (g.token() == null ? "" : ", token " + g.token())) + "</title>";
            if (w.accepted()) {
                s.append("<line class=\"write accepted\" x1=\"").append(px(wx)).append("\" x2=\"").append(px(wx))
                        .append("\" y1=\"").append(px(barTop - 2)).append("\" y2=\"").append(px(barBottom + 2))
                        .append("\">").append(title).append("</line>");
            } else {
                // A cross below the bar rather than a tick: refused and accepted differ in shape, not only colour.
                double cy = barBottom + 0.5;
                double r = 3.2;
                s.append("<path class=\"write refused\" d=\"M").append(px(wx - r)).append(' ').append(px(cy - r))
                        .append('L').append(px(wx + r)).append(' ').append(px(cy + r)).append('M')
                        .append(px(wx - r)).append(' ').append(px(cy + r)).append('L').append(px(wx + r))
                        .append(' ').append(px(cy - r)).append("\">").append(title).append("</path>");
            }
        }
        return labelledUpTo;
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
     * The time axis' ticks, in nanoseconds: a round step (1, 2 or 5 × 10ⁿ ms) that gives about ten of them,
     * so that their labels never touch at 1200 units.
     */
    static List<Double> ticks(long end) {
        double step = niceStep(end / 10.0);
        List<Double> ticks = new ArrayList<>();
        for (int i = 0; i * step <= end * (1 + 1e-9); i++) {
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

    /** Nanoseconds to user units. */
    private record Scale(double x0, double x1, long end) {
        double at(double nanos) {
            return x0 + (x1 - x0) * (nanos / end);
        }
    }
}
