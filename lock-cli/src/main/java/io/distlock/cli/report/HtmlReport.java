package io.distlock.cli.report;

import io.distlock.cli.report.Report.BenchRow;
import io.distlock.cli.report.Report.Grant;
import io.distlock.cli.report.Report.Outcome;
import io.distlock.cli.report.Report.Overlap;
import io.distlock.cli.report.Report.RuleResult;
import io.distlock.cli.report.Report.Share;
import io.distlock.cli.report.Report.Timeline;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.distlock.cli.report.Text.html;

/**
 * The report as one self-contained HTML page: inline stylesheet, inline SVG charts, no script, no font,
 * image or stylesheet fetched from anywhere, so that it opens from a file on a machine without a network.
 * It reads at 1280 px and prints (its print rules drop the tinted backgrounds and start each section on a
 * new page).
 */
final class HtmlReport {

    /** Close-ups drawn per timeline; the list under the chart has every overlap. */
    private static final int MAX_CLOSE_UPS = 3;

    private HtmlReport() {
    }

    /** The overall verdict's word: INTERRUPTED before FAILED, since an interrupted run's verdicts are partial. */
    static String verdict(Report r) {
        return r.interrupted() ? "INTERRUPTED" : r.passed() ? "PASSED" : "FAILED";
    }

    /** The symbol beside a verdict, so that it never rests on colour alone. */
    static String symbol(String verdict) {
        return switch (verdict) {
            case "PASSED" -> "✓";
            case "FAILED" -> "✗";
            case "INTERRUPTED" -> "■";
            default -> "–";
        };
    }

    /** One short line on what the guarantee means, or nothing for a guarantee this version does not know. */
    static String guaranteeLine(String guarantee) {
        return switch (guarantee == null ? "" : guarantee) {
            case "EFFICIENCY" -> "A double grant only duplicates work: a lease can lapse under a paused holder,"
                    + " so do not let it protect data.";
            case "CORRECTNESS" -> "A double grant would corrupt data: consensus-backed, with fencing tokens the"
                    + " protected resource checks to refuse a stale holder.";
            default -> "";
        };
    }

    /** The whole page for {@code r}. */
    static String render(Report r) {
        String verdict = verdict(r);
        StringBuilder s = new StringBuilder(256 * 1024);
        s.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>").append(html("distlock " + r.command() + " · " + r.target() + " · " + verdict))
                .append("</title>\n<style>\n").append(STYLE).append("</style>\n</head>\n<body>\n<main class=\"page\">\n");
        header(s, r, verdict);
        boolean check = !r.rules().isEmpty() || "check".equals(r.command());
        if (check) {
            rules(s, r);
        }
        if (!r.timelines().isEmpty()) {
            timelines(s, r);
        }
        if (!r.bench().isEmpty() || "bench".equals(r.command())) {
            bench(s, r);
        }
        String version = ReportWriter.class.getPackage().getImplementationVersion();
        s.append("<footer>Written by distlock").append(version == null ? "" : " " + html(version))
                .append(". <code>report.md</code> and <code>report.json</code> beside this file hold the same")
                .append(" report.</footer>\n</main>\n</body>\n</html>\n");
        return s.toString();
    }

    // ---- header -------------------------------------------------------------------------------------

    private static void header(StringBuilder s, Report r, String verdict) {
        String kind = "bench".equals(r.command()) ? "benchmark" : "check".equals(r.command()) ? "audit" : r.command();
        s.append("<header class=\"masthead\">\n<div class=\"heading\">\n<p class=\"eyebrow\">distlock ")
                .append(html(r.command())).append(" · ").append(html(kind)).append(" report</p>\n<h1>")
                .append(html(r.target())).append("</h1>\n</div>\n<div class=\"verdict ")
                .append(verdict.toLowerCase(Locale.ROOT)).append("\" id=\"overall\"><span class=\"symbol\">")
                .append(symbol(verdict)).append("</span> ").append(verdict).append("</div>\n</header>\n");
        if (r.interrupted()) {
            s.append("<p class=\"banner\">Interrupted (Ctrl-C): this report covers what ran before the run was cut")
                    .append(" short.</p>\n");
        }
        s.append("<dl class=\"facts\">\n");
        fact(s, "Command", "<code>distlock " + html(r.command()) + "</code>");
        fact(s, "Backend", "<code>" + html(r.backend().scheme()) + "</code>");
        fact(s, "Started", html(r.startedAt()));
        fact(s, "Duration", html(Text.duration(r.tookMillis())));
        String line = guaranteeLine(r.backend().guarantee());
        s.append("<div class=\"wide\"><dt>Guarantee</dt><dd><strong>").append(html(r.backend().guarantee()))
                .append("</strong>").append(line.isEmpty() ? "" : " <span class=\"note\">" + html(line) + "</span>")
                .append("</dd></div>\n");
        StringBuilder features = new StringBuilder();
        for (String f : r.backend().features()) {
            features.append("<span class=\"chip\">").append(html(f)).append("</span> ");
        }
        s.append("<div class=\"wide\"><dt>Features</dt><dd>")
                .append(r.backend().features().isEmpty() ? "<span class=\"note\">none declared</span>" : features)
                .append("</dd></div>\n</dl>\n");
    }

    private static void fact(StringBuilder s, String name, String valueHtml) {
        s.append("<div><dt>").append(name).append("</dt><dd>").append(valueHtml).append("</dd></div>\n");
    }

    // ---- rules --------------------------------------------------------------------------------------

    private static void rules(StringBuilder s, Report r) {
        long passed = r.rules().stream().filter(x -> x.outcome() == Outcome.PASSED).count();
        long failed = r.rules().stream().filter(x -> x.outcome() == Outcome.FAILED).count();
        long skipped = r.rules().stream().filter(x -> x.outcome() == Outcome.SKIPPED).count();
        // A rule that has a timeline links to it.
        Map<String, String> timelineOf = new HashMap<>();
        for (int i = 0; i < r.timelines().size(); i++) {
            timelineOf.putIfAbsent(r.timelines().get(i).rule(), "timeline-" + (i + 1));
        }
        s.append("<section id=\"rules\">\n<h2>Rules</h2>\n<p class=\"summary\">").append(r.rules().size())
                .append(r.rules().size() == 1 ? " rule: " : " rules: ")
                .append("<span class=\"tally passed\">✓ ").append(passed).append(" passed</span>")
                .append("<span class=\"tally failed").append(failed == 0 ? " none" : "").append("\">✗ ")
                .append(failed).append(" failed</span>")
                .append("<span class=\"tally skipped\">– ").append(skipped).append(" skipped</span></p>\n");
        s.append("<table id=\"verdicts\">\n<thead><tr><th class=\"id\">Rule</th><th>Title</th><th>Outcome</th>")
                .append("<th class=\"num\">Time</th><th>Detail</th></tr></thead>\n<tbody>\n");
        for (RuleResult rule : r.rules()) {
            String outcome = rule.outcome().name();
            String cls = outcome.toLowerCase(Locale.ROOT);
            s.append("<tr class=\"rule ").append(cls).append("\" data-rule=\"").append(html(rule.id())).append("\">")
                    .append("<td class=\"id\"><code>").append(html(rule.id())).append("</code></td><td>")
                    .append(html(rule.title()));
            String anchor = timelineOf.get(rule.id());
            if (anchor != null) {
                s.append(" <a class=\"jump\" href=\"#").append(anchor).append("\">timeline ↓</a>");
            }
            s.append("</td><td><span class=\"outcome ").append(cls).append("\">").append(symbol(outcome)).append(' ')
                    .append(outcome).append("</span></td><td class=\"num\">").append(html(Text.duration(rule.tookMillis())))
                    .append("</td><td class=\"detail\">");
            if (rule.detail().isEmpty()) {
                s.append("<span class=\"note\">—</span>");
            } else if (rule.outcome() == Outcome.FAILED) {
                s.append("<pre>").append(html(rule.detail())).append("</pre>");
            } else {
                s.append("<div class=\"text\">").append(html(rule.detail())).append("</div>");
            }
            s.append("</td></tr>\n");
        }
        if (r.rules().isEmpty()) {
            s.append("<tr><td colspan=\"5\" class=\"note\">No rule ran.</td></tr>\n");
        }
        s.append("</tbody>\n</table>\n</section>\n");
    }

    // ---- timelines ----------------------------------------------------------------------------------

    private static void timelines(StringBuilder s, Report r) {
        Map<String, String> titles = new HashMap<>();
        r.rules().forEach(rule -> titles.putIfAbsent(rule.id(), rule.title()));
        s.append("<section id=\"timelines\">\n<h2>Contention timelines</h2>\n")
                .append("<p class=\"lede\">One lane per client, time left to right. Each bar is a grant, from the")
                .append(" acquire's return to its release, labelled with its fencing token where it fits (every")
                .append(" bar's tooltip has it).</p>\n").append(LEGEND);
        for (int i = 0; i < r.timelines().size(); i++) {
            Timeline t = r.timelines().get(i);
            String id = "timeline-" + (i + 1);
            int clients = TimelineSvg.lanes(t).size();
            String title = titles.get(t.rule());
            s.append("<figure class=\"timeline-figure\" id=\"").append(id).append("\" data-rule=\"")
                    .append(html(t.rule())).append("\">\n<figcaption><h3>Rule ").append(html(t.rule()));
            if (title != null) {
                s.append(" <span class=\"rule-title\">").append(html(title)).append("</span>");
            }
            s.append("</h3><p class=\"meta\">lock <code>").append(html(t.lockName())).append("</code> · ")
                    .append(Text.count(t.grants().size())).append(t.grants().size() == 1 ? " grant" : " grants")
                    .append(t.grantsRecorded() > t.grants().size() ? " drawn, the first of " + Text.count(t.grantsRecorded()) : "")
                    .append(" · ").append(clients).append(clients == 1 ? " client" : " clients").append(" · ")
                    .append(html(Text.ms(t.spanNanos()))).append(" · ");
            int overlaps = Math.max(t.overlaps().size(), t.overlapsFound());
            s.append("<span class=\"").append(overlaps == 0 ? "good" : "bad").append("\">").append(Text.count(overlaps))
                    .append(overlaps == 1 ? " overlap" : " overlaps")
                    .append(overlaps > t.overlaps().size() ? " (" + t.overlaps().size() + " drawn)" : "")
                    .append("</span></p></figcaption>\n");
            s.append("<div class=\"chart\">").append(TimelineSvg.render(t, id + "-svg")).append("</div>\n");
            if (t.overlaps().isEmpty()) {
                s.append("<p class=\"no-overlap\">✓ no overlap of two valid holders</p>\n");
            } else {
                overlapList(s, t);
                closeUps(s, t, id);
            }
            s.append("</figure>\n");
        }
        s.append("</section>\n");
    }

    private static void overlapList(StringBuilder s, Timeline t) {
        Map<Long, Grant> byLease = new HashMap<>();
        t.grants().forEach(g -> byLease.put(g.lease(), g));
        s.append("<ul class=\"overlaps\">\n");
        for (int n = 0; n < t.overlaps().size(); n++) {
            Overlap o = t.overlaps().get(n);
            String[] span = Text.msPair(o.fromNanos(), o.toNanos());
            s.append("<li><span class=\"number\">⚠ #").append(n + 1).append("</span> leases ")
                    .append(lease(byLease, o.leaseA())).append(" and ").append(lease(byLease, o.leaseB()))
                    .append(" both valid from ").append(html(span[0])).append(" to ").append(html(span[1])).append(" (").append(html(Text.ms(o.toNanos() - o.fromNanos())))
                    .append(")");
            if (o.message() != null && !o.message().isEmpty()) {
                s.append("<div class=\"message\">").append(html(o.message())).append("</div>");
            }
            s.append("</li>\n");
        }
        s.append("</ul>\n");
    }

    /**
     * The first overlaps close up, each over the window of its two grants: in a run of hundreds of grants
     * the band is a few px wide, and the reader's question is what those two holders did.
     */
    private static void closeUps(StringBuilder s, Timeline t, String id) {
        int shown = Math.min(t.overlaps().size(), MAX_CLOSE_UPS);
        for (int n = 0; n < shown; n++) {
            long[] window = TimelineSvg.closeUpWindow(t, n);
            if (window == null) {
                continue;
            }
            s.append("<div class=\"close-up\"><p class=\"meta\"><span class=\"bad\">#").append(n + 1)
                    .append(" close up</span> · ").append(html(Text.ms(window[0]))).append(" → ")
                    .append(html(Text.ms(window[1]))).append("</p><div class=\"chart\">")
                    .append(TimelineSvg.closeUp(t, n, window, id + "-close-up-" + (n + 1))).append("</div></div>\n");
        }
        if (t.overlaps().size() > shown) {
            s.append("<p class=\"meta\">Close-ups of the first ").append(shown).append(" overlaps only.</p>\n");
        }
    }

    private static String lease(Map<Long, Grant> byLease, long lease) {
        Grant g = byLease.get(lease);
        if (g == null) {
            return "<strong>" + lease + "</strong>";
        }
        return "<strong>" + lease + "</strong> (" + html(g.client()) + (g.token() == null ? "" : ", token " + g.token())
                + ")";
    }

    // ---- bench --------------------------------------------------------------------------------------

    private static void bench(StringBuilder s, Report r) {
        List<BenchRow> rows = r.bench();
        long floors = rows.stream().filter(BenchRow::floor).count();
        s.append("<section id=\"bench\">\n<h2>Benchmark</h2>\n<p class=\"summary\">").append(rows.size())
                .append(rows.size() == 1 ? " scenario" : " scenarios");
        if (floors > 0) {
            s.append(": ").append(rows.size() - floors).append(" through distlock, ").append(floors)
                    .append(" raw protocol floor").append(floors == 1 ? "" : "s")
                    .append(" (the same calls sent directly: the least any lock on this backend can cost)");
        }
        s.append("</p>\n");
        s.append("<table id=\"bench-table\">\n<thead><tr><th>Scenario</th><th class=\"num\">Clients</th>")
                .append("<th class=\"num\">Operations</th><th class=\"num\">ops/s</th><th class=\"num\">p50</th>")
                .append("<th class=\"num\">p99</th><th class=\"num\">p99.9</th><th class=\"num\">max</th></tr></thead>\n<tbody>\n");
        for (int i = 0; i < rows.size(); i++) {
            BenchRow row = rows.get(i);
            s.append("<tr class=\"").append(row.floor() ? "floor" : "distlock").append("\"><td><a href=\"#bench-")
                    .append(i + 1).append("\"><span class=\"swatch\" style=\"background:").append(BenchSvg.colour(i))
                    .append("\"></span>").append(html(row.scenario())).append("</a>").append(chips(row))
                    .append("</td><td class=\"num\">").append(row.clients()).append("</td><td class=\"num\">")
                    .append(Text.count(row.operations())).append("</td><td class=\"num\">")
                    .append(Text.rate(row.perSecond())).append("</td><td class=\"num\">")
                    .append(html(Text.micros(row.p50Micros()))).append("</td><td class=\"num\">")
                    .append(html(Text.micros(row.p99Micros()))).append("</td><td class=\"num\">")
                    .append(html(Text.micros(row.p999Micros()))).append("</td><td class=\"num\">")
                    .append(html(Text.micros(row.maxMicros()))).append("</td></tr>\n");
        }
        if (rows.isEmpty()) {
            s.append("<tr><td colspan=\"8\" class=\"note\">No scenario completed.</td></tr>\n");
        }
        s.append("</tbody>\n</table>\n");
        if (rows.isEmpty()) {
            s.append("</section>\n");
            return;
        }

        s.append("<figure class=\"plot\">\n<figcaption><h3>Latency by percentile</h3><p class=\"meta\">One line")
                .append(" per scenario, log scale; dashed lines are raw floors.</p></figcaption>\n<div class=\"chart\">")
                .append(BenchSvg.percentiles(rows)).append("</div>\n<ul class=\"legend series-legend\">\n");
        for (int i = 0; i < rows.size(); i++) {
            BenchRow row = rows.get(i);
            String colour = BenchSvg.colour(i);
            s.append("<li><svg class=\"key\" viewBox=\"0 0 34 10\" width=\"34\" height=\"10\" aria-hidden=\"true\">")
                    .append("<line x1=\"1\" y1=\"5\" x2=\"33\" y2=\"5\" stroke=\"").append(colour)
                    .append("\" stroke-width=\"2.2\"").append(row.floor() ? " stroke-dasharray=\"6 4\"" : "")
                    .append("/><circle cx=\"17\" cy=\"5\" r=\"3\" stroke=\"").append(colour).append("\" fill=\"")
                    .append(row.floor() ? "#ffffff" : colour).append("\"/></svg>").append(html(row.scenario()))
                    .append(row.floor() ? " <span class=\"chip floor\">raw floor</span>" : "").append("</li>\n");
        }
        s.append("</ul>\n</figure>\n<div class=\"cards\">\n");
        for (int i = 0; i < rows.size(); i++) {
            BenchRow row = rows.get(i);
            s.append("<article class=\"card").append(row.floor() ? " floor" : "").append("\" id=\"bench-").append(i + 1)
                    .append("\">\n<h3><span class=\"swatch\" style=\"background:").append(BenchSvg.colour(i))
                    .append("\"></span>").append(html(row.scenario())).append(chips(row)).append("</h3>\n")
                    .append("<p class=\"meta\">").append(row.clients()).append(row.clients() == 1 ? " client · " : " clients · ")
                    .append(Text.count(row.operations())).append(" operations · ").append(Text.rate(row.perSecond()))
                    .append(" ops/s</p>\n<div class=\"chart\">").append(BenchSvg.histogram(row, i)).append("</div>\n");
            if (!row.shares().isEmpty()) {
                shares(s, row, BenchSvg.colour(i));
            }
            s.append("</article>\n");
        }
        s.append("</div>\n</section>\n");
    }

    private static String chips(BenchRow row) {
        StringBuilder c = new StringBuilder();
        if (row.floor()) {
            c.append(" <span class=\"chip floor\">raw floor</span>");
        }
        if (!row.shares().isEmpty()) {
            c.append(" <span class=\"chip\">contended</span>");
        }
        return c.toString();
    }

    private static void shares(StringBuilder s, BenchRow row, String colour) {
        long total = row.shares().stream().mapToLong(Share::operations).sum();
        long most = row.shares().stream().mapToLong(Share::operations).max().orElse(0);
        long fewest = row.shares().stream().mapToLong(Share::operations).min().orElse(0);
        s.append("<div class=\"shares\">\n<h4>Operations per client</h4>\n<ul>\n");
        for (Share share : row.shares()) {
            // Bars relative to the busiest client: what the eye compares is who got less.
            double width = most == 0 ? 0 : 100.0 * share.operations() / most;
            double percent = total == 0 ? 0 : 100.0 * share.operations() / total;
            s.append("<li><span class=\"who\">").append(html(share.client())).append("</span><span class=\"track\">")
                    .append("<span class=\"fill\" style=\"width:").append(Text.px(width)).append("%;background:")
                    .append(colour).append("\"></span></span><span class=\"n\">").append(Text.count(share.operations()))
                    .append(" · ").append(String.format(Locale.ROOT, "%.1f%%", percent)).append("</span></li>\n");
        }
        s.append("</ul>\n");
        if (fewest > 0) {
            s.append("<p class=\"meta\">busiest / least busy: ")
                    .append(String.format(Locale.ROOT, "%.2f×", (double) most / fewest)).append("</p>\n");
        } else if (most > 0) {
            s.append("<p class=\"meta bad\">a client completed no operation</p>\n");
        }
        s.append("</div>\n");
    }

    // ---- static parts -------------------------------------------------------------------------------

    /**
     * The timelines' key. Its classes are its own (styled by the same rules as the charts'), so that a
     * test or a script looking for an overlap or a token in the page finds only the charts'.
     */
    private static final String LEGEND = """
            <ul class="legend timeline-legend">
            <li><svg class="key" viewBox="0 0 34 14" width="34" height="14" aria-hidden="true"><rect class="k-grant" x="1" y="2" width="32" height="10"/><text class="k-token" x="17" y="10">7</text></svg>held, with its fencing token</li>
            <li><svg class="key" viewBox="0 0 34 14" width="34" height="14" aria-hidden="true"><rect class="k-expired" x="1" y="2" width="28" height="10"/><line class="k-validity" x1="29" x2="29" y1="0" y2="14"/></svg>left to expire, up to its validity’s end</li>
            <li><svg class="key" viewBox="0 0 34 14" width="34" height="14" aria-hidden="true"><rect class="k-wait" x="1" y="2" width="32" height="10"/></svg>waiting</li>
            <li><svg class="key" viewBox="0 0 34 14" width="34" height="14" aria-hidden="true"><rect class="k-wait" data-granted="false" x="1" y="2" width="32" height="10"/></svg>waited in vain</li>
            <li><svg class="key" viewBox="0 0 34 14" width="34" height="14" aria-hidden="true"><rect class="k-grant" x="1" y="1" width="32" height="9"/><line class="k-accepted" x1="17" x2="17" y1="10" y2="14"/></svg>write accepted</li>
            <li><svg class="key" viewBox="0 0 34 14" width="34" height="14" aria-hidden="true"><rect class="k-grant" x="1" y="1" width="32" height="9"/><path class="k-refused" d="M14.4 8.9L19.6 14.1M14.4 14.1L19.6 8.9"/></svg>write refused (stale token)</li>
            <li><svg class="key" viewBox="0 0 34 14" width="34" height="14" aria-hidden="true"><rect class="k-overlap" x="1" y="1" width="32" height="12"/></svg><span class="bad">two valid holders at once</span></li>
            </ul>
            """;

    private static final String STYLE = """
            :root {
              --ink: #1d2430; --muted: #5b6575; --faint: #8a93a3; --line: #e3e6eb; --bg: #f4f5f7; --card: #ffffff;
              --accent: #3b6ea8; --grant: #4f7cb5; --pass: #2f7d4f; --pass-bg: #e7f3ec; --fail: #c62828;
              --fail-bg: #fdecea; --skip: #6b7280; --skip-bg: #eef0f3; --warn: #a66a00; --warn-bg: #fdf3e1;
              --mono: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace;
            }
            * { box-sizing: border-box; }
            html { -webkit-text-size-adjust: 100%; }
            body { margin: 0; background: var(--bg); color: var(--ink); line-height: 1.5; font-size: 15px;
              font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans",
                "DejaVu Sans", sans-serif; }
            .page { max-width: 1240px; margin: 0 auto; padding: 28px 28px 40px; }
            code, pre { font-family: var(--mono); font-size: 0.9em; tab-size: 4; }
            h1, h2, h3, h4 { line-height: 1.25; margin: 0; }
            h2 { font-size: 20px; margin-bottom: 6px; }
            h3 { font-size: 16px; }
            h4 { font-size: 13px; color: var(--muted); font-weight: 600; margin-bottom: 6px; }
            a { color: var(--accent); }
            .note { color: var(--muted); }
            .good { color: var(--pass); font-weight: 600; }
            .bad { color: var(--fail); font-weight: 600; }

            .masthead { display: flex; align-items: center; justify-content: space-between; gap: 24px;
              padding: 26px 28px; background: var(--card); border: 1px solid var(--line); border-radius: 12px 12px 0 0; }
            .eyebrow { margin: 0 0 4px; color: var(--muted); font-size: 13px; letter-spacing: .06em; text-transform: uppercase; }
            .masthead h1 { font-size: 26px; font-weight: 650; overflow-wrap: anywhere; }
            .verdict { flex: none; font-size: 22px; font-weight: 700; letter-spacing: .04em; padding: 10px 22px;
              border-radius: 999px; border: 2px solid currentColor; }
            .verdict.passed { color: var(--pass); background: var(--pass-bg); }
            .verdict.failed { color: var(--fail); background: var(--fail-bg); }
            .verdict.interrupted { color: var(--warn); background: var(--warn-bg); }
            .banner { margin: 0; padding: 10px 28px; background: var(--warn-bg); color: var(--warn);
              border: 1px solid var(--line); border-top: 0; font-weight: 600; }
            .facts { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 14px 28px; margin: 0 0 28px;
              padding: 18px 28px 22px; background: var(--card); border: 1px solid var(--line); border-top: 0;
              border-radius: 0 0 12px 12px; }
            .facts > div.wide { grid-column: 1 / -1; }
            .facts dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; }
            .facts dd { margin: 2px 0 0; overflow-wrap: anywhere; }
            .facts .note { margin-left: 6px; }
            .chip { display: inline-block; font-size: 12px; line-height: 1.6; padding: 0 8px; margin: 1px 2px 1px 0;
              border-radius: 999px; background: #e9eef6; color: #2c4a73; font-family: var(--mono); vertical-align: 1px; }
            .chip.floor { background: #efe9f6; color: #563f7a; }

            section { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 22px 28px 26px;
              margin-bottom: 28px; }
            .summary, .lede { margin: 0 0 14px; color: var(--muted); }
            .tally { margin-left: 12px; font-weight: 600; }
            .tally.passed { color: var(--pass); } .tally.failed { color: var(--fail); } .tally.failed.none { color: var(--muted); }
            .tally.skipped { color: var(--skip); }

            table { width: 100%; border-collapse: collapse; font-size: 14px; }
            th { text-align: left; font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase;
              letter-spacing: .04em; padding: 8px 10px; border-bottom: 2px solid var(--line); white-space: nowrap; }
            td { padding: 9px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
            .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
            td.id { white-space: nowrap; }
            #verdicts td.detail { width: 46%; }
            tr.failed td { background: #fff8f7; }
            .outcome { display: inline-block; white-space: nowrap; font-size: 12.5px; font-weight: 700; padding: 1px 10px;
              border-radius: 999px; border: 1px solid currentColor; }
            .outcome.passed { color: var(--pass); background: var(--pass-bg); }
            .outcome.failed { color: var(--fail); background: var(--fail-bg); }
            .outcome.skipped { color: var(--skip); background: var(--skip-bg); }
            td.detail pre { margin: 0; padding: 8px 10px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16em;
              overflow: auto; background: #fbfbfc; border: 1px solid var(--line); border-left: 3px solid var(--fail);
              border-radius: 4px; font-size: 12.5px; }
            td.detail .text { white-space: pre-wrap; overflow-wrap: anywhere; color: var(--muted); }
            a.jump { font-size: 12.5px; margin-left: 6px; white-space: nowrap; }

            .legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 22px; margin: 0 0 16px; padding: 0;
              font-size: 13px; color: var(--muted); }
            .legend li { display: flex; align-items: center; gap: 8px; }
            svg.key { flex: none; overflow: visible; }
            figure { margin: 0; }
            .timeline-figure { padding-top: 18px; margin-top: 18px; border-top: 1px solid var(--line); }
            figcaption { margin-bottom: 10px; }
            figcaption h3 .rule-title { font-weight: 400; color: var(--muted); margin-left: 6px; }
            .meta { margin: 2px 0 0; font-size: 13.5px; color: var(--muted); }
            .chart svg { display: block; width: 100%; height: auto; }
            .no-overlap { margin: 8px 0 0; color: var(--pass); font-weight: 600; font-size: 14px; }
            ul.overlaps { list-style: none; margin: 10px 0 0; padding: 10px 14px; background: var(--fail-bg);
              border-left: 3px solid var(--fail); border-radius: 4px; font-size: 14px; }
            ul.overlaps li + li { margin-top: 6px; }
            ul.overlaps .number { color: var(--fail); font-weight: 700; margin-right: 4px; }
            ul.overlaps .message { color: var(--ink); font-family: var(--mono); font-size: 12.5px; white-space: pre-wrap;
              overflow-wrap: anywhere; }

            svg text { font-family: inherit; }
            .stripe { fill: #ffffff; } .stripe.odd { fill: #f5f7fa; }
            .grid line { stroke: #e5e8ed; stroke-width: 1; }
            .client { font-size: 12px; fill: var(--ink); text-anchor: end; }
            .grant, .zoom-grant, .key .k-grant { fill: var(--grant); }
            .grant:hover, .zoom-grant:hover { fill: #2f5b93; }
            .grant[data-expired], .zoom-grant[data-expired], .key .k-expired { fill: #b9cbe3; stroke: var(--grant);
              stroke-width: 1; stroke-dasharray: 3 2; }
            .grant[data-overlap], .zoom-grant[data-overlap] { stroke: var(--fail); stroke-width: 2; stroke-dasharray: none; }
            .validity-end, .zoom-validity-end, .key .k-validity { stroke: #23456f; stroke-width: 2; }
            .wait, .zoom-wait, .key .k-wait { fill: #8a93a3; opacity: .22; }
            .wait[data-granted="false"], .zoom-wait[data-granted="false"], .key .k-wait[data-granted="false"] { fill: var(--warn); opacity: .22; }
            .token, .zoom-token, .key .k-token { font-size: 9px; text-anchor: middle; font-variant-numeric: tabular-nums; }
            .zoom-token { font-size: 10px; }
            .token[data-place="inside"], .zoom-token[data-place="inside"], .key .k-token { fill: #ffffff; }
            [data-expired] + [data-place="inside"] { fill: #1d2430; }
            .token[data-place="above"], .zoom-token[data-place="above"] { fill: #3f4a59; }
            .write.accepted, .zoom-write.accepted, .key .k-accepted { stroke: #1d2430; stroke-width: 1.3; }
            .write.refused, .zoom-write.refused, .key .k-refused { stroke: var(--warn); stroke-width: 1.8; fill: none; }
            .overlap, .zoom-overlap, .key .k-overlap { fill: var(--fail); fill-opacity: .18; stroke: var(--fail);
              stroke-width: 1.5; }
            .overlap-number, .zoom-overlap-number { fill: var(--fail); font-size: 11px; font-weight: 700; text-anchor: middle; }
            .close-up { margin-top: 14px; }
            .close-up .meta { margin-bottom: 6px; }
            .axis line { stroke: #9aa3b0; stroke-width: 1; }
            .axis text { font-size: 10.5px; fill: var(--muted); text-anchor: middle; font-variant-numeric: tabular-nums; }
            .axis text.y { text-anchor: end; }
            .axis text.caption { text-anchor: end; font-size: 11px; }
            svg .empty { fill: var(--muted); font-size: 13px; text-anchor: middle; }

            #bench-table { margin-bottom: 22px; }
            #bench-table tr.floor td { background: #fbfaf8; }
            #bench-table td a { color: inherit; text-decoration: none; }
            .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 8px; }
            .plot { margin-bottom: 22px; }
            .series-legend { margin: 8px 0 0; color: var(--ink); }
            .percentiles .series polyline { fill: none; stroke-width: 2.2; stroke-linejoin: round; }
            .percentiles .series.floor polyline { stroke-dasharray: 7 5; }
            .histogram .marks line { stroke: #3f4a59; stroke-width: 1; stroke-dasharray: 3 3; }
            .histogram .marks text { font-size: 10.5px; fill: var(--ink); }
            .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 18px; }
            .card { border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; break-inside: avoid; }
            .card h3 { font-size: 15px; }
            .card .chart { margin-top: 10px; }
            .shares { margin-top: 12px; }
            .shares ul { list-style: none; margin: 0; padding: 0; font-size: 13px; }
            .shares li { display: grid; grid-template-columns: 140px 1fr 130px; align-items: center; gap: 10px; padding: 2px 0; }
            .shares .who { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
            .shares .track { height: 10px; background: #eef0f3; border-radius: 3px; overflow: hidden; }
            .shares .fill { display: block; height: 100%; border-radius: 3px; }
            .shares .n { text-align: right; font-variant-numeric: tabular-nums; color: var(--muted); }
            footer { color: var(--faint); font-size: 12.5px; text-align: center; }

            .swatch, .shares .fill, .chip, .outcome, svg { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
            @page { size: landscape; margin: 12mm; }
            @media print {
              body { background: #ffffff; font-size: 10.5pt; }
              .page { max-width: none; padding: 0; }
              .masthead, .facts, section { border: 0; border-radius: 0; padding-left: 0; padding-right: 0; }
              .verdict, .verdict.passed, .verdict.failed, .verdict.interrupted, .banner { background: none; }
              section { margin: 0; padding-top: 0; }
              section + section { break-before: page; }
              h2, h3, figcaption { break-after: avoid; }
              .timeline-figure, .plot, .card, tr { break-inside: avoid; }
              .chart svg { width: 100% !important; height: auto !important; }
              td.detail pre { max-height: none; overflow: visible; }
              tr.failed td, #bench-table tr.floor td { background: none; }
              a { color: inherit; text-decoration: none; }
              a.jump { display: none; }
              .cards { grid-template-columns: repeat(2, minmax(0, 1fr)); }
            }
            """;
}
