package io.distlock.cli.report;

import io.distlock.cli.report.Report.BenchRow;
import io.distlock.cli.report.Report.Grant;
import io.distlock.cli.report.Report.Outcome;
import io.distlock.cli.report.Report.Overlap;
import io.distlock.cli.report.Report.RuleResult;
import io.distlock.cli.report.Report.Share;
import io.distlock.cli.report.Report.Timeline;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The report as GitHub-flavoured Markdown, for a pull request or a ticket: the same verdicts, timelines
 * (one line each, no chart), overlaps and benchmark figures as the HTML page.
 */
final class MarkdownReport {

    /** A failure's detail is cut to this many characters in the table; the full text follows it. */
    private static final int CELL_LIMIT = 160;

    private MarkdownReport() {
    }

    /** The whole document for {@code r}. */
    static String render(Report r) {
        String verdict = HtmlReport.verdict(r);
        StringBuilder s = new StringBuilder(16 * 1024);
        s.append("# distlock ").append(r.command()).append(": ").append(HtmlReport.symbol(verdict)).append(' ')
                .append(verdict).append("\n\n");
        if (r.interrupted()) {
            s.append("> Interrupted (Ctrl-C): this report covers what ran before the run was cut short.\n\n");
        }
        s.append("- **Target:** ").append(code(r.target())).append("\n");
        s.append("- **Backend:** ").append(code(r.backend().scheme())).append("\n");
        String line = HtmlReport.guaranteeLine(r.backend().guarantee());
        s.append("- **Guarantee:** ").append(inline(r.backend().guarantee()))
                .append(line.isEmpty() ? "" : " (" + inline(line) + ")").append('\n');
        s.append("- **Features:** ").append(r.backend().features().isEmpty() ? "none declared"
                : r.backend().features().stream().map(f -> code(f)).collect(Collectors.joining(", ")))
                .append('\n');
        s.append("- **Started:** ").append(inline(r.startedAt())).append('\n');
        s.append("- **Duration:** ").append(Text.duration(r.tookMillis())).append("\n\n");

        if (!r.rules().isEmpty() || "check".equals(r.command())) {
            rules(s, r);
        }
        if (!r.timelines().isEmpty()) {
            timelines(s, r);
        }
        if (!r.bench().isEmpty() || "bench".equals(r.command())) {
            bench(s, r);
        }
        return s.toString();
    }

    private static void rules(StringBuilder s, Report r) {
        long passed = r.rules().stream().filter(x -> x.outcome() == Outcome.PASSED).count();
        long failed = r.rules().stream().filter(x -> x.outcome() == Outcome.FAILED).count();
        long skipped = r.rules().stream().filter(x -> x.outcome() == Outcome.SKIPPED).count();
        s.append("## Rules\n\n").append(passed).append(" passed, ").append(failed).append(" failed, ")
                .append(skipped).append(" skipped.\n\n");
        s.append("| Rule | Title | Outcome | Time | Detail |\n|---|---|---|---:|---|\n");
        for (RuleResult rule : r.rules()) {
            String detail = rule.detail().strip();
            String firstLine = detail.lines().findFirst().orElse("");
            boolean cut = firstLine.length() > CELL_LIMIT || !firstLine.equals(detail);
            if (firstLine.length() > CELL_LIMIT) {
                firstLine = firstLine.substring(0, CELL_LIMIT);
            }
            s.append("| ").append(cell(rule.id())).append(" | ").append(cell(rule.title())).append(" | ")
                    .append(HtmlReport.symbol(rule.outcome().name())).append(' ').append(rule.outcome().name())
                    .append(" | ").append(Text.duration(rule.tookMillis())).append(" | ").append(cell(firstLine))
                    .append(cut ? " …" : "").append(" |\n");
        }
        s.append('\n');
        // The failures' messages in full, below the table: a cell cannot hold a multi-line message.
        for (RuleResult rule : r.rules()) {
            if (rule.outcome() == Outcome.FAILED && !rule.detail().isBlank()) {
                s.append("### ✗ ").append(inline(rule.id())).append(' ').append(inline(rule.title())).append("\n\n");
                fenced(s, rule.detail());
            }
        }
    }

    private static void timelines(StringBuilder s, Report r) {
        s.append("## Contention timelines\n\n");
        for (Timeline t : r.timelines()) {
            int overlaps = Math.max(t.overlaps().size(), t.overlapsFound());
            s.append("- Rule ").append(inline(t.rule())).append(", lock ").append(code(t.lockName())).append(": ")
                    .append(Math.max(t.grants().size(), t.grantsRecorded())).append(" grants")
                    .append(t.grantsRecorded() > t.grants().size() ? " (the first " + t.grants().size() + " drawn)" : "")
                    .append(", ").append(TimelineSvg.lanes(t).size())
                    .append(" clients, ").append(Text.ms(t.spanNanos())).append(", ")
                    .append(overlaps == 0 ? "no overlap of two valid holders"
                            : "**" + overlaps + (overlaps == 1 ? " overlap**" : " overlaps**"))
                    .append('\n');
        }
        s.append('\n');
        for (Timeline t : r.timelines()) {
            if (t.overlaps().isEmpty()) {
                continue;
            }
            Map<Long, Grant> byLease = new HashMap<>();
            t.grants().forEach(g -> byLease.put(g.lease(), g));
            s.append("### Overlaps in rule ").append(inline(t.rule())).append(", lock ").append(code(t.lockName()))
                    .append("\n\n");
            for (int n = 0; n < t.overlaps().size(); n++) {
                Overlap o = t.overlaps().get(n);
                String[] span = Text.msPair(o.fromNanos(), o.toNanos());
                s.append(n + 1).append(". leases ").append(lease(byLease, o.leaseA())).append(" and ")
                        .append(lease(byLease, o.leaseB())).append(" both valid from ").append(span[0])
                        .append(" to ").append(span[1]).append(" (").append(Text.ms(o.toNanos() - o.fromNanos()))
                        .append(')');
                if (o.message() != null && !o.message().isBlank()) {
                    s.append(": ").append(inline(o.message().strip().replaceAll("\\s*\\R\\s*", " ")));
                }
                s.append('\n');
            }
            s.append('\n');
        }
    }

    private static String lease(Map<Long, Grant> byLease, long lease) {
        Grant g = byLease.get(lease);
        return g == null ? Long.toString(lease)
                : lease + " (" + inline(g.client()) + (g.token() == null ? "" : ", token " + g.token()) + ")";
    }

    private static void bench(StringBuilder s, Report r) {
        s.append("## Benchmark\n\n");
        s.append("| Scenario | Clients | Operations | ops/s | p50 | p99 | p99.9 | max |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (BenchRow row : r.bench()) {
            s.append("| ").append(cell(row.scenario())).append(row.floor() ? " *(raw floor)*" : "")
                    .append(row.shares().isEmpty() ? "" : " *(contended)*").append(" | ").append(row.clients())
                    .append(" | ").append(Text.count(row.operations())).append(" | ").append(Text.rate(row.perSecond()))
                    .append(" | ").append(Text.micros(row.p50Micros())).append(" | ").append(Text.micros(row.p99Micros()))
                    .append(" | ").append(Text.micros(row.p999Micros())).append(" | ").append(Text.micros(row.maxMicros()))
                    .append(" |\n");
        }
        s.append('\n');
        for (BenchRow row : r.bench()) {
            if (row.shares().isEmpty()) {
                continue;
            }
            long total = row.shares().stream().mapToLong(Share::operations).sum();
            s.append("Operations per client, ").append(inline(row.scenario())).append(":\n\n");
            for (Share share : row.shares()) {
                s.append("- ").append(inline(share.client())).append(": ").append(Text.count(share.operations()));
                if (total > 0) {
                    s.append(String.format(Locale.ROOT, " (%.1f%%)", 100.0 * share.operations() / total));
                }
                s.append('\n');
            }
            s.append('\n');
        }
    }

    /** Text in a table cell: Markdown's own characters escaped, the cell's separator included, on one line. */
    static String cell(String text) {
        return inline(text.replaceAll("\\s*\\R\\s*", " "));
    }

    /**
     * Text in running Markdown, escaped with backslashes (which CommonMark allows before any ASCII
     * punctuation) only where a character would start markup, so that the raw file stays readable:
     * {@code <} before a tag or an autolink (a lock name must never become HTML), {@code &} before an
     * entity, {@code ]} before a link's target, {@code _} at a word's edge, and always {@code \}, {@code `},
     * {@code *}, {@code ~} and a table's {@code |}.
     */
    static String inline(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            char next = i + 1 < text.length() ? text.charAt(i + 1) : ' ';
            char previous = i > 0 ? text.charAt(i - 1) : ' ';
            boolean escape = switch (c) {
                case '\\', '`', '*', '~', '|' -> true;
                case '<' -> Character.isLetter(next) || next == '/' || next == '!' || next == '?';
                case '&' -> Character.isLetter(next) || next == '#';
                case ']' -> next == '(' || next == '[' || next == ':';
                case '_' -> !Character.isLetterOrDigit(previous) || !Character.isLetterOrDigit(next);
                default -> false;
            };
            if (escape) {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    /**
     * A code span holding the text: delimited by one backtick more than the longest run of them in the text
     * (and padded with spaces when the text starts or ends with one), since a code span cannot escape them;
     * on one line.
     */
    static String code(String text) {
        String t = text == null ? "" : text.replaceAll("\\R", " ");
        String fence = "`".repeat(longestRun(t, '`') + 1);
        String pad = t.startsWith("`") || t.endsWith("`") ? " " : "";
        return fence + pad + t + pad + fence;
    }

    private static int longestRun(String text, char c) {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            run = text.charAt(i) == c ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        return longest;
    }

    /** A fenced block longer than any run of backticks in the text, so that the text cannot close it. */
    private static void fenced(StringBuilder s, String text) {
        String fence = "`".repeat(Math.max(3, longestRun(text, '`') + 1));
        s.append(fence).append('\n').append(text.strip()).append('\n').append(fence).append("\n\n");
    }
}
