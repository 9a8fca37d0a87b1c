package io.distlock.cli.report;

import io.distlock.cli.report.Report.BenchRow;
import io.distlock.cli.report.Report.Bucket;
import io.distlock.cli.report.Report.Point;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static io.distlock.cli.report.Text.html;
import static io.distlock.cli.report.Text.px;

/**
 * The benchmark's charts as inline SVG: a latency histogram per row (log-scaled latency axis) and one
 * percentile plot for every row on the usual "nines" axis. Latencies span orders of magnitude (a raw floor
 * in tens of µs, a contended tail in ms), hence the log scales.
 */
final class BenchSvg {

    /**
     * The series colours, muted and told apart by hue; red is not among them: the report keeps it for
     * violations and failures.
     */
    private static final String[] PALETTE = {
        "#3b6ea8", "#2a9d8f", "#7b61a8", "#c07a2c", "#5a7d3a", "#8a5a44", "#4a5568", "#b05c8a"
    };

    /** The percentiles the plot's axis names, as far as the data reaches. */
    private static final double[] NINES = {50, 90, 99, 99.9, 99.99, 99.999, 99.9999};

    private BenchSvg() {
    }

    /** Row {@code i}'s colour, the same in the plot, its legend and its histogram. */
    static String colour(int i) {
        return PALETTE[i % PALETTE.length];
    }

    // ---- histogram ----------------------------------------------------------------------------------

    private static final int H_WIDTH = 580;
    private static final int H_HEIGHT = 210;
    private static final int H_LEFT = 52;
    private static final int H_RIGHT = 16;
    private static final int H_TOP = 32;
    private static final int H_BOTTOM = 30;

    /** Row {@code index}'s latency histogram: a bar per bucket, from the previous bucket's bound to its own. */
    static String histogram(BenchRow row, int index) {
        List<Bucket> buckets = row.histogram().stream().filter(b -> b.upToMicros() > 0 && b.count() >= 0)
                .sorted(Comparator.comparingDouble(Bucket::upToMicros)).toList();
        StringBuilder s = new StringBuilder(8 * 1024);
        s.append("<svg class=\"histogram\" data-row=\"").append(index).append("\" xmlns=\"http://www.w3.org/2000/svg\"")
                .append(" viewBox=\"0 0 ").append(H_WIDTH).append(' ').append(H_HEIGHT).append("\" width=\"")
                .append(H_WIDTH).append("\" height=\"").append(H_HEIGHT).append("\" role=\"img\" aria-label=\"")
                .append(html("Latency histogram of " + row.scenario())).append("\">\n");
        long most = buckets.stream().mapToLong(Bucket::count).max().orElse(0);
        if (buckets.isEmpty() || most == 0) {
            s.append("<text class=\"empty\" x=\"").append(H_WIDTH / 2).append("\" y=\"").append(H_HEIGHT / 2)
                    .append("\">no latency recorded</text>\n</svg>");
            return s.toString();
        }
        // The first bucket has no lower bound in the model: give it the ratio its successor has (buckets
        // are logarithmic), or a factor of two.
        double first = buckets.get(0).upToMicros();
        double ratio = buckets.size() > 1 ? buckets.get(1).upToMicros() / first : 2;
        double lo = first / (ratio > 1 ? ratio : 2);
        double hi = buckets.get(buckets.size() - 1).upToMicros();
        double plotLeft = H_LEFT;
        double plotRight = H_WIDTH - H_RIGHT;
        double plotTop = H_TOP;
        double plotBottom = H_HEIGHT - H_BOTTOM;
        LogScale x = new LogScale(lo, hi, plotLeft, plotRight);
        double step = TimelineSvg.niceStep(most / 4.0);
        double yMax = Math.ceil(most / step) * step;

        s.append("<g class=\"grid\">");
        for (double c = step; c <= yMax + step / 2; c += step) {
            double y = plotBottom - (plotBottom - plotTop) * c / yMax;
            s.append("<line x1=\"").append(px(plotLeft)).append("\" x2=\"").append(px(plotRight)).append("\" y1=\"")
                    .append(px(y)).append("\" y2=\"").append(px(y)).append("\"/>");
        }
        s.append("</g>\n<g class=\"bars\" style=\"fill:").append(colour(index)).append("\">");
        double lower = lo;
        for (Bucket b : buckets) {
            double left = x.at(lower) + 0.5;
            double width = Math.max(1, x.at(b.upToMicros()) - 0.5 - left);
            // One px at least for a bucket that is not empty: the tail is what a reader looks for.
            double height = b.count() == 0 ? 0 : Math.max(1, (plotBottom - plotTop) * b.count() / yMax);
            s.append("<rect class=\"bucket\" x=\"").append(px(left)).append("\" y=\"").append(px(plotBottom - height))
                    .append("\" width=\"").append(px(width)).append("\" height=\"").append(px(height))
                    .append("\"><title>").append(html(Text.micros(lower) + " – " + Text.micros(b.upToMicros())
                            + ": " + Text.count(b.count()) + " operations")).append("</title></rect>");
            lower = b.upToMicros();
        }
        s.append("</g>\n");

        // Where p50, p99 and p99.9 fall, labelled in two rows above the plot so that close ones do not collide.
        s.append("<g class=\"marks\">");
        double[] rowEnds = {Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY};
        String[] names = {"p50", "p99", "p99.9"};
        double[] values = {row.p50Micros(), row.p99Micros(), row.p999Micros()};
        for (int i = 0; i < names.length; i++) {
            double v = values[i];
            if (!Double.isFinite(v) || v < lo || v > hi * 1.0001) {
                continue;
            }
            double mx = x.at(v);
            s.append("<line x1=\"").append(px(mx)).append("\" x2=\"").append(px(mx)).append("\" y1=\"")
                    .append(px(plotTop - 4)).append("\" y2=\"").append(px(plotBottom)).append("\"/>");
            String label = names[i] + " " + Text.micros(v);
            double width = label.length() * 6.2;
            // Right of the line if it fits in the chart, else left of it.
            boolean leftward = mx + 3 + width > H_WIDTH - 2;
            double from = leftward ? mx - 3 - width : mx + 3;
            for (int r = 0; r < rowEnds.length; r++) {
                if (from > rowEnds[r] + 6) {
                    s.append("<text x=\"").append(px(leftward ? mx - 3 : mx + 3)).append("\" y=\"")
                            .append(11 + r * 12).append('"').append(leftward ? " text-anchor=\"end\"" : "")
                            .append('>').append(html(label)).append("</text>");
                    rowEnds[r] = from + width;
                    break;
                }
            }
        }
        s.append("</g>\n");

        s.append("<g class=\"axis\">");
        s.append("<line x1=\"").append(px(plotLeft)).append("\" x2=\"").append(px(plotRight)).append("\" y1=\"")
                .append(px(plotBottom)).append("\" y2=\"").append(px(plotBottom)).append("\"/>");
        for (double t : logTicks(lo, hi)) {
            double tx = x.at(t);
            s.append("<line x1=\"").append(px(tx)).append("\" x2=\"").append(px(tx)).append("\" y1=\"")
                    .append(px(plotBottom)).append("\" y2=\"").append(px(plotBottom + 4)).append("\"/>")
                    .append("<text x=\"").append(px(tx)).append("\" y=\"").append(px(plotBottom + 16)).append("\">")
                    .append(html(Text.microsTick(t))).append("</text>");
        }
        for (double c = 0; c <= yMax + step / 2; c += step) {
            double y = plotBottom - (plotBottom - plotTop) * c / yMax;
            s.append("<text class=\"y\" x=\"").append(px(plotLeft - 6)).append("\" y=\"").append(px(y + 3.5))
                    .append("\">").append(Text.countTick(c)).append("</text>");
        }
        s.append("</g>\n</svg>");
        return s.toString();
    }

    // ---- percentile plot ----------------------------------------------------------------------------

    private static final int P_WIDTH = 1200;
    private static final int P_HEIGHT = 380;
    private static final int P_LEFT = 70;
    private static final int P_RIGHT = 30;
    private static final int P_TOP = 16;
    private static final int P_BOTTOM = 40;

    /**
     * Every row's latency by percentile, x on the nines scale (each step right is ten times rarer), y on a
     * log scale; a polyline per row, dashed for the raw floor rows.
     */
    static String percentiles(List<BenchRow> rows) {
        List<List<Point>> series = new ArrayList<>();
        double minNines = Double.POSITIVE_INFINITY;
        double maxNines = 0;
        double minMicros = Double.POSITIVE_INFINITY;
        double maxMicros = 0;
        for (BenchRow row : rows) {
            // 100 is the maximum, infinitely far right on this axis: the table gives it.
            List<Point> points = row.percentiles().stream()
                    .filter(p -> p.percentile() >= 0 && p.percentile() < 100 && p.micros() > 0
                            && Double.isFinite(p.micros()))
                    .sorted(Comparator.comparingDouble(Point::percentile)).toList();
            series.add(points);
            for (Point p : points) {
                minNines = Math.min(minNines, nines(p.percentile()));
                maxNines = Math.max(maxNines, nines(p.percentile()));
                minMicros = Math.min(minMicros, p.micros());
                maxMicros = Math.max(maxMicros, p.micros());
            }
        }
        StringBuilder s = new StringBuilder(8 * 1024);
        s.append("<svg class=\"percentiles\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ").append(P_WIDTH)
                .append(' ').append(P_HEIGHT).append("\" width=\"").append(P_WIDTH).append("\" height=\"")
                .append(P_HEIGHT).append("\" role=\"img\" aria-label=\"Latency by percentile, every scenario\">\n");
        if (maxMicros == 0) {
            s.append("<text class=\"empty\" x=\"").append(P_WIDTH / 2).append("\" y=\"").append(P_HEIGHT / 2)
                    .append("\">no percentile recorded</text>\n</svg>");
            return s.toString();
        }
        double xFrom = minNines < nines(50) ? 0 : nines(50);
        // Up to 99.9 at least, so that a short run's plot still shows where the tail would be.
        double xTo = Math.min(6, Math.max(3, Math.ceil(maxNines - 1e-9)));
        double plotLeft = P_LEFT;
        double plotRight = P_WIDTH - P_RIGHT;
        double plotTop = P_TOP;
        double plotBottom = P_HEIGHT - P_BOTTOM;
        double yLo = Math.pow(10, Math.floor(Math.log10(minMicros)));
        double yHi = Math.pow(10, Math.ceil(Math.log10(maxMicros)));
        if (yHi <= yLo) {
            yHi = yLo * 10;
        }
        LogScale y = new LogScale(yLo, yHi, plotBottom, plotTop);

        s.append("<g class=\"grid\">");
        List<Double> yTicks = logTicks(yLo, yHi);
        for (double t : yTicks) {
            double ty = y.at(t);
            s.append("<line x1=\"").append(px(plotLeft)).append("\" x2=\"").append(px(plotRight)).append("\" y1=\"")
                    .append(px(ty)).append("\" y2=\"").append(px(ty)).append("\"/>");
        }
        List<double[]> xTicks = new ArrayList<>();
        if (xFrom == 0) {
            xTicks.add(new double[] {0, 0});
        }
        for (double p : NINES) {
            if (nines(p) >= xFrom - 1e-9 && nines(p) <= xTo + 1e-9) {
                xTicks.add(new double[] {p, nines(p)});
            }
        }
        for (double[] t : xTicks) {
            double tx = xAt(t[1], xFrom, xTo, plotLeft, plotRight);
            s.append("<line x1=\"").append(px(tx)).append("\" x2=\"").append(px(tx)).append("\" y1=\"")
                    .append(px(plotTop)).append("\" y2=\"").append(px(plotBottom)).append("\"/>");
        }
        s.append("</g>\n");

        s.append("<g class=\"axis\">");
        s.append("<line x1=\"").append(px(plotLeft)).append("\" x2=\"").append(px(plotRight)).append("\" y1=\"")
                .append(px(plotBottom)).append("\" y2=\"").append(px(plotBottom)).append("\"/>");
        for (double[] t : xTicks) {
            double tx = xAt(t[1], xFrom, xTo, plotLeft, plotRight);
            s.append("<text x=\"").append(px(tx)).append("\" y=\"").append(px(plotBottom + 17)).append("\">p")
                    .append(Text.percentile(t[0])).append("</text>");
        }
        for (double t : yTicks) {
            s.append("<text class=\"y\" x=\"").append(px(plotLeft - 8)).append("\" y=\"").append(px(y.at(t) + 4))
                    .append("\">").append(html(Text.microsTick(t))).append("</text>");
        }
        s.append("<text class=\"caption\" x=\"").append(px(plotRight)).append("\" y=\"").append(px(plotBottom + 34))
                .append("\">percentile (each step right is ten times rarer)</text>");
        s.append("</g>\n");

        for (int i = 0; i < rows.size(); i++) {
            List<Point> points = series.get(i);
            if (points.isEmpty()) {
                continue;
            }
            BenchRow row = rows.get(i);
            String colour = colour(i);
            s.append("<g class=\"series").append(row.floor() ? " floor" : "").append("\" data-row=\"").append(i)
                    .append("\">");
            s.append("<polyline stroke=\"").append(colour).append("\" points=\"");
            for (Point p : points) {
                s.append(px(xAt(nines(p.percentile()), xFrom, xTo, plotLeft, plotRight))).append(',')
                        .append(px(y.at(p.micros()))).append(' ');
            }
            s.setLength(s.length() - 1);
            s.append("\"><title>").append(html(row.scenario())).append("</title></polyline>");
            for (Point p : points) {
                s.append("<circle cx=\"").append(px(xAt(nines(p.percentile()), xFrom, xTo, plotLeft, plotRight)))
                        .append("\" cy=\"").append(px(y.at(p.micros()))).append("\" r=\"3\" stroke=\"")
                        .append(colour).append("\" fill=\"").append(row.floor() ? "#ffffff" : colour)
                        .append("\"><title>").append(html(row.scenario() + ": p" + Text.percentile(p.percentile())
                                + " = " + Text.micros(p.micros()))).append("</title></circle>");
            }
            s.append("</g>\n");
        }
        s.append("</svg>");
        return s.toString();
    }

    /** How many nines a percentile has: 90 → 1, 99 → 2, 99.9 → 3; 50 → 0.3. */
    static double nines(double percentile) {
        return -Math.log10(1 - Math.min(percentile, 99.99999) / 100);
    }

    private static double xAt(double nines, double from, double to, double left, double right) {
        return left + (right - left) * (nines - from) / (to - from);
    }

    /** Decades between {@code lo} and {@code hi}; with 2× and 5× between them when there are few decades. */
    static List<Double> logTicks(double lo, double hi) {
        List<Double> ticks = new ArrayList<>();
        int from = (int) Math.floor(Math.log10(lo));
        int to = (int) Math.ceil(Math.log10(hi));
        boolean fine = to - from <= 3;
        for (int e = from; e <= to; e++) {
            double decade = Math.pow(10, e);
            for (double m : fine ? new double[] {1, 2, 5} : new double[] {1}) {
                double t = m * decade;
                if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) {
                    ticks.add(t);
                }
            }
        }
        return ticks;
    }

    /** A log scale from a value range to a coordinate range (which may run downwards, as y does). */
    private record LogScale(double lo, double hi, double from, double to) {
        double at(double v) {
            double f = (Math.log(Math.max(v, lo)) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
            return from + (to - from) * f;
        }
    }
}
