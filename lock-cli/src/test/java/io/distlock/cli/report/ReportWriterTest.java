package io.distlock.cli.report;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.distlock.cli.report.Report.Backend;
import io.distlock.cli.report.Report.BenchRow;
import io.distlock.cli.report.Report.Bucket;
import io.distlock.cli.report.Report.Grant;
import io.distlock.cli.report.Report.Outcome;
import io.distlock.cli.report.Report.Overlap;
import io.distlock.cli.report.Report.Point;
import io.distlock.cli.report.Report.RuleResult;
import io.distlock.cli.report.Report.Share;
import io.distlock.cli.report.Report.Timeline;
import io.distlock.cli.report.Report.Wait;
import io.distlock.cli.report.Report.Write;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The report's three forms, written from synthetic runs: a check with a passed, a failed and a skipped rule
 * and two timelines (one clean, one with an overlap), and a bench with a distlock row, a contended row and
 * a raw floor row. The HTML is judged the way a reader meets it: through headless Chromium's DOM and a
 * screenshot at 1280 px, which is kept in {@code target/report-screenshots/} for a person to look at.
 */
class ReportWriterTest {

    private static final long MS = 1_000_000;
    /** A lock name that is HTML if it is not escaped. */
    private static final String HOSTILE_LOCK = "orders/<b>eu</b> & \"x\"";
    private static final int WIDTH = 1280;

    @TempDir
    Path dir;

    // ---- the three files ----------------------------------------------------------------------------

    @Test
    void writesTheThreeFormsIntoADirectoryItCreates() throws IOException {
        Path target = dir.resolve("nested/report");

        Path index = ReportWriter.write(checkReport(), target);

        assertThat(index).isEqualTo(target.resolve("index.html"));
        assertThat(target.resolve("index.html")).isRegularFile();
        assertThat(target.resolve("report.md")).isRegularFile();
        assertThat(target.resolve("report.json")).isRegularFile();
        try (var files = Files.list(target)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("no temporary file left behind").containsExactlyInAnyOrder("index.html", "report.md", "report.json");
        }
    }

    @Test
    void theJsonIsTheModel() throws IOException {
        Report report = checkReport();
        ReportWriter.write(report, dir);
        String json = Files.readString(dir.resolve("report.json"));

        // Read back as the model: every field survives, nested records and the null tokens included.
        assertThat(new Gson().fromJson(json, Report.class)).isEqualTo(report);
        // And the shape a script relies on.
        JsonObject root = JsonParser.parseString(json).getAsJsonObject();
        assertThat(root.get("command").getAsString()).isEqualTo("check");
        assertThat(root.getAsJsonObject("backend").get("guarantee").getAsString()).isEqualTo("CORRECTNESS");
        JsonArray rules = root.getAsJsonArray("rules");
        assertThat(rules).hasSize(3);
        assertThat(rules.get(0).getAsJsonObject().get("outcome").getAsString()).isEqualTo("FAILED");
        JsonObject overlapping = root.getAsJsonArray("timelines").get(1).getAsJsonObject();
        assertThat(overlapping.get("lockName").getAsString()).isEqualTo(HOSTILE_LOCK);
        assertThat(overlapping.getAsJsonArray("overlaps").get(0).getAsJsonObject().get("leaseB").getAsLong()).isEqualTo(8);
        assertThat(json).as("nulls are kept: a grant without a token says so").contains("\"token\": null");
        assertThat(json).as("no HTML escaping in JSON").contains("<b>eu</b>").doesNotContain("\\u003c");
    }

    @Test
    void theBenchJsonIsTheModel() throws IOException {
        Report report = benchReport();
        ReportWriter.write(report, dir);

        Report back = new Gson().fromJson(Files.readString(dir.resolve("report.json")), Report.class);

        assertThat(back).isEqualTo(report);
        assertThat(back.bench().get(2).floor()).isTrue();
        assertThat(back.bench().get(1).shares()).hasSize(4);
    }

    @Test
    void aFigureThatIsNotANumberIsNullInTheJsonAndADashOnThePage() throws IOException {
        // A scenario interrupted before its first operation: no rate, no latency.
        BenchRow nothing = new BenchRow("uncontended acquire + release", false, 1, 0, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, Double.POSITIVE_INFINITY, List.of(), List.of(), List.of());
        Report report = new Report("bench", "redis://cache-1.internal:6379", new Backend("redis", "EFFICIENCY",
                List.of()), "2025-06-03T09:20:41Z", 120, List.of(), List.of(), List.of(nothing), false, true);

        ReportWriter.write(report, dir);

        String json = Files.readString(dir.resolve("report.json"));
        JsonObject row = JsonParser.parseString(json).getAsJsonObject().getAsJsonArray("bench").get(0).getAsJsonObject();
        assertThat(row.get("perSecond").isJsonNull()).isTrue();
        assertThat(row.get("maxMicros").isJsonNull()).isTrue();
        // Read back with the writer's Gson, null is NaN again (infinity too: JSON cannot tell them apart).
        BenchRow back = ReportWriter.gson().fromJson(json, Report.class).bench().get(0);
        assertThat(back.perSecond()).isNaN();
        assertThat(back.maxMicros()).isNaN();
        assertThat(back.scenario()).isEqualTo(nothing.scenario());
        String page = Files.readString(dir.resolve("index.html"));
        assertThat(page).contains("INTERRUPTED").contains("no latency recorded").contains("no percentile recorded");
        assertThat(Dom.between(page, "<table id=\"bench-table\">", "</table>")).contains("<td class=\"num\">–</td>")
                .doesNotContain("NaN").doesNotContain("Infinity");
        assertThat(Files.readString(dir.resolve("report.md"))).startsWith("# distlock bench: ■ INTERRUPTED")
                .contains("| uncontended acquire + release | 1 | 0 | – | – | – | – | – |");
    }

    @Test
    void theMarkdownHasTheVerdictsOverlapsAndTimelines() throws IOException {
        ReportWriter.write(checkReport(), dir);
        String md = Files.readString(dir.resolve("report.md"));

        assertThat(md).startsWith("# distlock check: ✗ FAILED");
        assertThat(md).contains("| Rule | Title | Outcome | Time | Detail |");
        assertThat(md).contains("| 1.1 | grants at most one valid lease per name at any instant, under contention | ✗ FAILED |");
        assertThat(md).contains("| 1.7 |").contains("✓ PASSED").contains("| 2.8 |").contains("– SKIPPED");
        assertThat(md).contains("1 passed, 1 failed, 1 skipped.");
        // The failure in full under the table, in a fence the message cannot close.
        assertThat(md).contains("### ✗ 1.1").contains("expected: <[]> but was:");
        assertThat(md).contains("- Rule 1.7, lock `distlock-check/1.7`: 60 grants, 4 clients,")
                .contains("no overlap of two valid holders");
        assertThat(md).contains("- Rule 1.1, lock `" + HOSTILE_LOCK + "`: 14 grants, 3 clients,").contains("**1 overlap**");
        assertThat(md).contains("1. leases 7 (client-0, token 7) and 8 (client-2, token 8) both valid from 288 ms to 300 ms");
        // A table cell cannot be broken by a pipe in a detail.
        assertThat(md).contains("120 writes accepted \\| 0 refused");
        // Escaped only where markup would start: the raw file stays readable.
        assertThat(md).contains("| overlapping leases ==> expected: <[]> but was: <[Overlap[leaseA=7, leaseB=8,");
    }

    @Test
    void markdownTextNeverTurnsIntoMarkup() {
        assertThat(MarkdownReport.inline("orders/<b>eu</b> & \"x\"")).isEqualTo("orders/\\<b>eu\\</b> & \"x\"");
        assertThat(MarkdownReport.inline("a &amp; b &#38; c")).isEqualTo("a \\&amp; b \\&#38; c");
        assertThat(MarkdownReport.inline("[click](http://x) [ref]: y")).isEqualTo("[click\\](http://x) [ref\\]: y");
        assertThat(MarkdownReport.inline("*bold* ~gone~ `code` a|b c\\d")).isEqualTo("\\*bold\\* \\~gone\\~ \\`code\\` a\\|b c\\\\d");
        assertThat(MarkdownReport.inline("snake_case _em_")).isEqualTo("snake_case \\_em\\_");
        assertThat(MarkdownReport.inline("p99 < 5 ms, 3 > 2, <[]>")).isEqualTo("p99 < 5 ms, 3 > 2, <[]>");
        assertThat(MarkdownReport.code("a `tick` here")).isEqualTo("``a `tick` here``");
        assertThat(MarkdownReport.code("`edge`")).isEqualTo("`` `edge` ``");
    }

    @Test
    void theBenchMarkdownHasTheTableAndTheShares() throws IOException {
        ReportWriter.write(benchReport(), dir);
        String md = Files.readString(dir.resolve("report.md"));

        assertThat(md).startsWith("# distlock bench: ✓ PASSED");
        assertThat(md).contains("| Scenario | Clients | Operations | ops/s | p50 | p99 | p99.9 | max |");
        assertThat(md).contains("| uncontended acquire + release | 1 | 48,213 | 4,821 | 180 µs | 420 µs | 910 µs | 2.40 ms |");
        assertThat(md).contains("raw floor: SET NX PX + compare-and-delete *(raw floor)*");
        assertThat(md).contains("contended, 4 clients *(contended)*");
        assertThat(md).contains("- client_3: 2,980 (24.4%)");
    }

    @Test
    void theHtmlIsSelfContainedAndEscaped() throws IOException {
        ReportWriter.write(checkReport(), dir);
        String page = Files.readString(dir.resolve("index.html"));

        assertThat(page).doesNotContainPattern("(?i)<script[^>]*\\bsrc");
        assertThat(page).doesNotContainPattern("(?i)<link\\b");
        assertThat(page).doesNotContainPattern("(?i)@import");
        assertThat(page).doesNotContainPattern("(?i)url\\(\\s*['\"]?\\s*(https?:|//|file:)");
        assertThat(page).doesNotContainPattern("(?i)\\b(src|href)\\s*=\\s*['\"]?\\s*(https?:|//|file:)");
        assertThat(page).doesNotContainPattern("(?i)<(img|iframe|object|embed)\\b");
        // The model's strings are text, never markup.
        assertThat(page).doesNotContain("<b>eu</b>").contains("orders/&lt;b&gt;eu&lt;/b&gt; &amp; &quot;x&quot;");
        assertThat(page).contains("expected: &lt;[]&gt; but was:");
        assertThat(page).contains("@media print");
    }

    // ---- in a browser -------------------------------------------------------------------------------

    @Test
    void theCheckPageAsChromiumBuildsIt() throws IOException {
        Report report = checkReport();
        Path index = ReportWriter.write(report, dir);

        String dom = Chromium.dumpDom(index);

        assertThat(dom).contains("id=\"overall\"").containsPattern("class=\"verdict failed\"[^>]*>.*FAILED</div>");
        String verdicts = Dom.between(dom, "<table id=\"verdicts\">", "</table>");
        assertThat(Dom.count(verdicts, "<tr class=\"rule ")).isEqualTo(report.rules().size());
        assertThat(verdicts).containsPattern("<tr class=\"rule failed\" data-rule=\"1\\.1\">.*✗ FAILED");
        assertThat(verdicts).containsPattern("<tr class=\"rule passed\" data-rule=\"1\\.7\">.*✓ PASSED");
        assertThat(verdicts).containsPattern("<tr class=\"rule skipped\" data-rule=\"2\\.8\">.*– SKIPPED");
        assertThat(verdicts).contains("<pre>overlapping leases ==&gt; expected: &lt;[]&gt; but was:");
        assertThat(dom).contains("1 passed").contains("1 failed").contains("1 skipped");

        List<String> charts = Dom.svgs(dom, "timeline");
        assertThat(charts).hasSize(report.timelines().size());
        for (int i = 0; i < charts.size(); i++) {
            Timeline t = report.timelines().get(i);
            String svg = charts.get(i);
            assertThat(svg).contains("data-rule=\"" + t.rule() + "\"");
            assertThat(Dom.count(svg, "<g class=\"lane\"")).as("lanes of " + t.rule()).isEqualTo(t.clients().size());
            for (String client : t.clients()) {
                assertThat(svg).contains("<g class=\"lane\" data-client=\"" + client + "\"");
            }
            assertThat(Dom.count(svg, "<rect class=\"grant\"")).isEqualTo(t.grants().size());
            assertThat(Dom.count(svg, "<rect class=\"wait\"")).isEqualTo(t.waits().size());
            assertThat(Dom.count(svg, "<rect class=\"overlap\"")).isEqualTo(t.overlaps().size());
        }
        // Token labels as text: the clean run's bars are wide enough for most of them.
        Matcher tokens = Pattern.compile("<text class=\"token\"[^>]*>(\\d+)</text>").matcher(charts.get(0));
        List<Long> labelled = new ArrayList<>();
        while (tokens.find()) {
            labelled.add(Long.parseLong(tokens.group(1)));
        }
        assertThat(labelled).hasSizeGreaterThan(30).contains(101L, 160L).doesNotHaveDuplicates()
                .allSatisfy(token -> assertThat(token).isBetween(101L, 160L));
        assertThat(charts.get(1)).containsPattern("<text class=\"token\"[^>]*>8</text>");
        // The overlap: a red band, and the list under its chart; the clean run says it has none.
        String afterClean = Dom.between(dom, "id=\"timeline-1\"", "</figure>");
        assertThat(afterClean).contains("no overlap of two valid holders").doesNotContain("class=\"overlaps\"");
        String afterOverlapping = Dom.between(dom, "id=\"timeline-2\"", "</figure>");
        assertThat(afterOverlapping).doesNotContain("no overlap of two valid holders");
        assertThat(charts.get(1)).contains("<rect class=\"overlap\" data-leases=\"7 8\"");
        // And close up, over the two grants' window, with classes of its own so the counts above hold.
        assertThat(afterClean).doesNotContain("<svg class=\"timeline-zoom\"");
        assertThat(Dom.count(afterOverlapping, "<svg class=\"timeline-zoom\"")).isEqualTo(1);
        String closeUp = Dom.between(afterOverlapping, "<svg class=\"timeline-zoom\"", "</svg>");
        assertThat(closeUp).contains("<rect class=\"zoom-overlap\" data-leases=\"7 8\"")
                .contains("<rect class=\"zoom-grant\" data-lease=\"7\"").contains("<rect class=\"zoom-grant\" data-lease=\"8\"")
                .doesNotContain("class=\"grant\"").doesNotContain("class=\"lane\"");
        String list = Dom.between(afterOverlapping, "<ul class=\"overlaps\">", "</ul>");
        assertThat(list).contains("<strong>7</strong> (client-0, token 7)").contains("<strong>8</strong> (client-2, token 8)")
                .contains("288 ms").contains("300 ms").contains("lease 7 still valid when lease 8 was granted");
        // Escaped, so the browser made text of the name, not a <b> element.
        assertThat(afterOverlapping).contains("orders/&lt;b&gt;eu&lt;/b&gt; &amp; \"x\"");
        assertThat(dom).doesNotContain("<b>eu</b>");

        Path png = Chromium.screenshot(index, dir.resolve("check.png"), WIDTH, 1800);
        assertScreenshot(png, 1800);
        keep(png, "report-check.png");
    }

    @Test
    void theBenchPageAsChromiumBuildsIt() throws IOException {
        Report report = benchReport();
        Path index = ReportWriter.write(report, dir);

        String dom = Chromium.dumpDom(index);

        assertThat(dom).containsPattern("class=\"verdict passed\"[^>]*>.*PASSED</div>");
        assertThat(dom).doesNotContain("id=\"verdicts\"").doesNotContain("<svg class=\"timeline\"");
        String table = Dom.between(dom, "<table id=\"bench-table\">", "</table>");
        assertThat(Dom.count(table, "<tr class=\"distlock\"")).isEqualTo(2);
        assertThat(Dom.count(table, "<tr class=\"floor\"")).isEqualTo(1);
        assertThat(table).contains("48,213").contains("180 µs").contains("2.40 ms").contains("raw floor");
        List<String> histograms = Dom.svgs(dom, "histogram");
        assertThat(histograms).hasSize(3);
        for (int i = 0; i < histograms.size(); i++) {
            assertThat(Dom.count(histograms.get(i), "<rect class=\"bucket\"")).isEqualTo(report.bench().get(i).histogram().size());
        }
        List<String> plots = Dom.svgs(dom, "percentiles");
        assertThat(plots).hasSize(1);
        assertThat(Dom.count(plots.get(0), "<polyline")).isEqualTo(3);
        assertThat(Dom.count(plots.get(0), "<g class=\"series floor\"")).isEqualTo(1);
        assertThat(plots.get(0)).contains(">p99.9<").contains(">p99.99<");
        String shares = Dom.between(dom, "<div class=\"shares\">", "</div>");
        assertThat(Dom.count(shares, "<li>")).isEqualTo(4);
        assertThat(shares).contains("client_3");

        Path png = Chromium.screenshot(index, dir.resolve("bench.png"), WIDTH, 2000);
        assertScreenshot(png, 2000);
        keep(png, "report-bench.png");
    }

    @Test
    void noTextOverlapsOrLeavesItsChartAsChromiumLaysItOut() throws IOException {
        for (Report report : List.of(checkReport(), benchReport(), crowdedReport())) {
            Path index = ReportWriter.write(report, dir.resolve(report.command() + "-" + report.target().length()));

            List<String> measured = layout(index);

            assertThat(measured.get(0)).as("the probe ran and measured the charts' labels")
                    .matches("measured \\d+ texts in \\d+ charts");
            assertThat(Integer.parseInt(measured.get(0).split(" ")[1])).isGreaterThan(40);
            assertThat(measured.subList(1, measured.size())).as("layout problems of %s", report.target()).isEmpty();
        }
    }

    @Test
    void aCrowdedTimelineStaysLegible() throws IOException {
        Report report = crowdedReport();
        Timeline t = report.timelines().get(0);
        Path index = ReportWriter.write(report, dir);

        String dom = Chromium.dumpDom(index);

        String chart = Dom.svgs(dom, "timeline").get(0);
        assertThat(Dom.count(chart, "<g class=\"lane\"")).isEqualTo(8);
        assertThat(Dom.count(chart, "<rect class=\"grant\"")).isEqualTo(t.grants().size());
        // Every lane has some of its tokens written out, not only in tooltips.
        for (String client : t.clients()) {
            String lane = Dom.between(chart, "<g class=\"lane\" data-client=\"" + client + "\"", "</g>");
            assertThat(Dom.count(lane, "<text class=\"token\"")).as("token labels in %s", client).isGreaterThan(5);
        }
        // The 0.2 ms overlap is a few px in the chart; its close-up is what a reader looks at.
        assertThat(chart).contains("<rect class=\"overlap\" data-leases=\"100 101\"");
        // Its times with the decimals that tell its start from its end.
        Matcher span = Pattern.compile("both valid from ([\\d,.]+ ms) to ([\\d,.]+ ms)").matcher(dom);
        assertThat(span.find()).isTrue();
        assertThat(span.group(1)).isNotEqualTo(span.group(2));
        String closeUp = Dom.between(dom, "<svg class=\"timeline-zoom\"", "</svg>");
        assertThat(closeUp).containsPattern("<text class=\"zoom-token\" data-place=\"inside\"[^>]*>4000000100</text>")
                .containsPattern("<text class=\"zoom-token\" data-place=\"inside\"[^>]*>4000000101</text>");

        Path png = Chromium.screenshot(index, dir.resolve("crowded.png"), WIDTH, 1800);
        assertScreenshot(png, 1800);
        keep(png, "report-crowded-timeline.png");
    }

    /**
     * What Chromium's layout says of a report page: a copy of it with a probe script (the report has none)
     * measures every text of every chart with the browser's own fonts and lists the texts that overlap
     * another, that leave their chart's viewBox, or that stick out of the bar they label, and whether the
     * page is wider than the window. The first line says how much it measured.
     */
    private static List<String> layout(Path index) throws IOException {
        Path probe = index.resolveSibling("layout-probe.html");
        Files.writeString(probe, Files.readString(index).replace("</body>", LAYOUT_PROBE + "</body>"));
        String dom = Chromium.dumpDom(probe);
        String report = Dom.between(dom, "<pre id=\"layout-probe\">", "</pre>");
        report = report.substring("<pre id=\"layout-probe\">".length(), report.length() - "</pre>".length());
        return List.of(report.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"")
                .replace("&amp;", "&").split("\n"));
    }

    private static final String LAYOUT_PROBE = """
            <script>
            (function () {
              const problems = [];
              let texts = 0;
              const charts = document.querySelectorAll('svg.timeline, svg.timeline-zoom, svg.histogram, svg.percentiles');
              charts.forEach((svg, n) => {
                const name = svg.getAttribute('class') + ' ' + (svg.id || n);
                const vb = svg.viewBox.baseVal;
                const boxes = Array.from(svg.querySelectorAll('text'))
                  .filter(t => t.textContent.trim() !== '')
                  .map(t => { const b = t.getBBox(); return { t: t.firstChild.textContent, x: b.x, y: b.y, r: b.x + b.width, b: b.y + b.height }; });
                texts += boxes.length;
                boxes.forEach(b => {
                  if (b.x < vb.x - 0.5 || b.r > vb.x + vb.width + 0.5 || b.y < vb.y - 0.5 || b.b > vb.y + vb.height + 0.5) {
                    problems.push(name + ': "' + b.t + '" leaves the chart');
                  }
                });
                boxes.sort((p, q) => p.x - q.x);
                for (let i = 0; i < boxes.length; i++) {
                  for (let j = i + 1; j < boxes.length && boxes[j].x < boxes[i].r - 0.5; j++) {
                    const a = boxes[i], c = boxes[j];
                    if (Math.min(a.b, c.b) - Math.max(a.y, c.y) > 0.5) {
                      problems.push(name + ': "' + a.t + '" and "' + c.t + '" overlap');
                    }
                  }
                }
                svg.querySelectorAll('text[data-place="inside"]').forEach(t => {
                  const bar = t.previousElementSibling.getBBox(), b = t.getBBox();
                  if (b.x < bar.x - 0.5 || b.x + b.width > bar.x + bar.width + 0.5) {
                    problems.push(name + ': token "' + t.textContent + '" sticks out of its bar');
                  }
                });
              });
              if (document.documentElement.scrollWidth > window.innerWidth) {
                problems.push('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + window.innerWidth + ' px window');
              }
              const pre = document.createElement('pre');
              pre.id = 'layout-probe';
              pre.textContent = ['measured ' + texts + ' texts in ' + charts.length + ' charts'].concat(problems).join('\\n');
              document.body.appendChild(pre);
            })();
            </script>
            """;

    // ---- helpers ------------------------------------------------------------------------------------

    /** The PNG is a real screenshot: Chromium's size (IHDR's width and height) and more than a blank page. */
    private static void assertScreenshot(Path png, int height) throws IOException {
        byte[] header;
        try (InputStream in = Files.newInputStream(png)) {
            header = in.readNBytes(24);
        }
        assertThat(header).hasSize(24);
        assertThat(new String(header, 12, 4, StandardCharsets.US_ASCII)).isEqualTo("IHDR");
        assertThat(ByteBuffer.wrap(header, 16, 4).getInt()).as("PNG width").isEqualTo(WIDTH);
        assertThat(ByteBuffer.wrap(header, 20, 4).getInt()).as("PNG height").isEqualTo(height);
        // A blank 1280 px page compresses to a few kB; charts, tables and text do not.
        assertThat(Files.size(png)).as("PNG size").isGreaterThan(60_000);
    }

    /** Keeps the screenshot where the build's artifacts are collected. */
    private static void keep(Path png, String name) throws IOException {
        Path screenshots = Path.of(System.getProperty("distlock.cli.screenshots", "target/report-screenshots"));
        Files.createDirectories(screenshots);
        Files.copy(png, screenshots.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }

    // ---- the synthetic runs -------------------------------------------------------------------------

    static Report checkReport() {
        List<RuleResult> rules = List.of(
                new RuleResult("1.1", "grants at most one valid lease per name at any instant, under contention",
                        Outcome.FAILED, 2_412, "overlapping leases ==> expected: <[]> but was: <[Overlap[leaseA=7,"
                        + " leaseB=8, from=288 ms, to=300 ms]]>\n\tat io.distlock.tck.SafetyRules.oneHolder(SafetyRules.java:88)"),
                new RuleResult("1.7", "lets a fenced resource accept every write of a valid holder", Outcome.PASSED,
                        1_930, "120 writes accepted | 0 refused"),
                new RuleResult("2.8", "keeps granting while a minority of nodes is down", Outcome.SKIPPED, 0,
                        "needs QUORUM, which the backend does not declare"));
        return new Report("check", "zk://zk-1.internal:2181/locks", new Backend("zk", "CORRECTNESS",
                List.of("FENCING_TOKENS", "LEASE_EXTENSION", "FIFO_WAITERS", "INSPECTION")),
                "2025-06-03T09:14:07Z", 6_420, rules, List.of(cleanTimeline(), overlappingTimeline()), List.of(),
                false, false);
    }

    /** Rule 1.7's run: 4 clients take turns, 60 grants with tokens 101–160, each with two accepted writes. */
    static Timeline cleanTimeline() {
        List<String> clients = List.of("client-0", "client-1", "client-2", "client-3");
        List<Grant> grants = new ArrayList<>();
        List<Wait> waits = new ArrayList<>();
        long t = 3 * MS;
        // A fixed seed: the same picture every run, in an order that does not look like a test pattern.
        Random random = new Random(17);
        String previous = "";
        for (int i = 0; i < 60; i++) {
            String client;
            do {
                client = clients.get(random.nextInt(clients.size()));
            } while (client.equals(previous));
            previous = client;
            long hold = (14 + (i * 13) % 19) * MS;
            long from = t;
            long to = from + hold;
            waits.add(new Wait(client, Math.max(0, from - (5 + i % 9) * MS), from, true));
            grants.add(new Grant(i + 1, client, from, to, from + 100 * MS, 101L + i, false,
                    List.of(new Write(from + hold / 3, true), new Write(from + 2 * hold / 3, true))));
            t = to + (1 + i % 3) * MS;
        }
        return new Timeline("1.7", "distlock-check/1.7", t + 2 * MS, clients, grants, waits, List.of(), grants.size(), 0);
    }

    /**
     * Rule 1.1's run on a broken backend: client-0's lease 7 is left to expire (its holder paused), yet
     * client-2 is granted lease 8 twelve ms before lease 7's validity ends; client-0 then writes with its
     * stale token and the fenced resource refuses it. One grant (lease 10) has no token.
     */
    static Timeline overlappingTimeline() {
        List<String> clients = List.of("client-0", "client-1", "client-2");
        List<Grant> grants = new ArrayList<>();
        List<Wait> waits = new ArrayList<>();
        long[][] plan = { // client, from ms, to ms; lease i + 1
            {0, 0, 30}, {1, 32, 70}, {2, 72, 110}, {0, 112, 150}, {1, 152, 180}, {2, 182, 198},
            {0, 200, 300}, {2, 288, 340}, {1, 342, 380}, {0, 382, 420}, {2, 422, 455}, {1, 457, 490},
            {0, 492, 530}, {1, 532, 566}};
        for (int i = 0; i < plan.length; i++) {
            long lease = i + 1;
            String client = clients.get((int) plan[i][0]);
            long from = plan[i][1] * MS;
            long to = plan[i][2] * MS;
            boolean expired = lease == 7;
            List<Write> writes = expired
                    ? List.of(new Write(220 * MS, true), new Write(297 * MS, false))
                    : List.of(new Write(from + (to - from) / 2, true));
            Long token = lease == 10 ? null : lease;
            grants.add(new Grant(lease, client, from, to, expired ? to : from + 100 * MS, token, expired, writes));
            if (i > 0) {
                waits.add(new Wait(client, from - 20 * MS, from, true));
            }
        }
        waits.add(new Wait("client-1", 245 * MS, 265 * MS, false));
        List<Overlap> overlaps = List.of(new Overlap(7, 8, 288 * MS, 300 * MS,
                "lease 7 still valid when lease 8 was granted: two valid holders for 12 ms"));
        return new Timeline("1.1", HOSTILE_LOCK, 570 * MS, clients, grants, waits, overlaps, grants.size(), overlaps.size());
    }

    /**
     * Rule 1.1 as the TCK runs it: 8 clients, 1,600 grants over about 9 s, fencing tokens of ten digits,
     * a few leases left to expire, and one overlap of 0.2 ms.
     */
    static Report crowdedReport() {
        List<String> clients = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            clients.add("client-" + i);
        }
        Random random = new Random(7);
        List<Grant> grants = new ArrayList<>();
        List<Wait> waits = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < 1_600; i++) {
            String client = clients.get(random.nextInt(clients.size()));
            long hold = (long) ((0.5 + random.nextDouble() * 6) * MS);
            boolean expired = random.nextInt(100) == 0;
            long to = expired ? t + 100 * MS : t + hold;
            waits.add(new Wait(client, Math.max(0, t - (long) (random.nextDouble() * 20 * MS)), t, true));
            grants.add(new Grant(i, client, t, to, t + 100 * MS, 4_000_000_000L + i, expired,
                    List.of(new Write(t + hold / 2, true))));
            t = to + (long) (random.nextDouble() * 2 * MS);
        }
        // Lease 100 held 0.2 ms into lease 101, by another client.
        Grant first = grants.get(100);
        Grant second = grants.get(101);
        long from = second.fromNanos();
        String holder = first.client().equals(second.client())
                ? clients.get((clients.indexOf(second.client()) + 1) % clients.size()) : first.client();
        grants.set(100, new Grant(100, holder, first.fromNanos(), from + 200_000, first.validUntilNanos(), first.token(),
                false, first.writes()));
        List<Overlap> overlaps = List.of(new Overlap(100, 101, from, from + 200_000,
                "lease 100 still held when lease 101 was granted"));
        List<RuleResult> rules = List.of(new RuleResult("1.1",
                "grants at most one valid lease per name at any instant, under contention", Outcome.FAILED, 9_700,
                "overlapping leases ==> 1 pair: lease 100 and lease 101, both valid for 0.2 ms"));
        return new Report("check", "etcd://etcd-1.internal:2379", new Backend("etcd", "CORRECTNESS",
                List.of("FENCING_TOKENS", "LEASE_EXTENSION", "AUTO_RENEWAL")), "2025-06-03T09:31:55Z", 9_800, rules,
                List.of(new Timeline("1.1", "distlock-check/1.1", t, clients, grants, waits, overlaps, grants.size(), overlaps.size())),
                List.of(), false,
                false);
    }

    static Report benchReport() {
        List<BenchRow> rows = List.of(
                row("uncontended acquire + release", false, 1, 48_213, 4_821.3, 180, 0.45, List.of()),
                row("contended, 4 clients", false, 4, 12_204, 1_220.4, 760, 0.6, List.of(
                        new Share("client_0", 3_120), new Share("client_1", 3_064), new Share("client_2", 3_040),
                        new Share("client_3", 2_980))),
                row("raw floor: SET NX PX + compare-and-delete", true, 1, 101_877, 10_187.7, 95, 0.35, List.of()));
        return new Report("bench", "redis://cache-1.internal:6379", new Backend("redis", "EFFICIENCY",
                List.of("LEASE_EXTENSION", "AUTO_RENEWAL", "INSPECTION")), "2025-06-03T09:20:41Z", 31_200, List.of(),
                List.of(), rows, true, false);
    }

    /**
     * A row whose latencies are log-normal around {@code medianMicros} with spread {@code sigma}: buckets a
     * factor √2 apart, and the usual percentiles. The first row's figures are set to round numbers the
     * Markdown test looks for.
     */
    private static BenchRow row(String scenario, boolean floor, int clients, long operations, double perSecond,
                                double medianMicros, double sigma, List<Share> shares) {
        List<Bucket> buckets = new ArrayList<>();
        double bound = medianMicros / 8;
        for (int i = 0; i < 22; i++) {
            double centre = bound / Math.pow(2, 0.25);
            double z = Math.log(centre / medianMicros) / sigma;
            long count = Math.round(operations * 0.246 * Math.exp(-z * z / 2) * Math.log(Math.sqrt(2)) / sigma);
            buckets.add(new Bucket(Math.round(bound * 10) / 10.0, count));
            bound *= Math.sqrt(2);
        }
        double[] ps = {0, 50, 75, 90, 99, 99.9, 99.99, 100};
        double[] zs = {-3.5, 0, 0.674, 1.2816, 2.326, 3.09, 3.719, 4.2};
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < ps.length; i++) {
            // A heavier tail than log-normal beyond p99, as networked latency has.
            double tail = ps[i] > 99 ? 1 + (ps[i] - 99) : 1;
            points.add(new Point(ps[i], Math.round(medianMicros * Math.exp(sigma * zs[i]) * tail * 10) / 10.0));
        }
        boolean first = scenario.startsWith("uncontended");
        double p99 = first ? 420 : points.get(4).micros();
        double p999 = first ? 910 : points.get(5).micros();
        double max = first ? 2_400 : points.get(7).micros();
        return new BenchRow(scenario, floor, clients, operations, perSecond, medianMicros, p99, p999, max, buckets,
                points, shares);
    }
}
