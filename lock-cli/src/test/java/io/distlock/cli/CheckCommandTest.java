package io.distlock.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.cli.report.Chromium;
import io.distlock.cli.report.Dom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code distlock check} through the real {@code bin/distlock}: a quick audit of every backend passes,
 * an audit of a double-granting backend fails naming the rule and drawing the overlap, and a Ctrl-C
 * leaves nothing held.
 */
class CheckCommandTest {

    static List<String> uris() {
        return Servers.uris();
    }

    /** The TCK's broken backends (broken://&lt;defect&gt;), added to the distribution as a user adds a backend of their own. */
    static String brokenBackends() {
        return List.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)).stream()
                .filter(p -> p.contains("lock-tck") && (p.endsWith("-tests.jar") || p.replaceFirst("/$", "").endsWith("test-classes")))
                .findFirst().orElseThrow(() -> new IllegalStateException("lock-tck's test-jar is not on the class path"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("uris")
    void aQuickAuditOfEveryBackendPassesAndLeavesNothingHeld(String uri) {
        Distlock.Result r = Distlock.launcher().run(Duration.ofMinutes(3), "check", uri, "--quick", "--clients", "4");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out()).contains("RULE", "VERDICT", "PASSED  1.1", "every rule that ran passed").doesNotContain("FAILED");
        Matcher prefix = Pattern.compile("on names under (distlock-check/[0-9a-f]{8}/)").matcher(r.out());
        assertThat(prefix.find()).as(r.out()).isTrue();
        try (LockClient look = Locks.connect(uri)) {
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(look.holders(prefix.group(1), 100)).as("what the audit left held").isEmpty());
        }
    }

    @Test
    void aFullAuditWritesTheReportWithATimelinePerContentionRule(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("report");
        Distlock.Result r = Distlock.launcher().run(Duration.ofMinutes(4), "check", Servers.uri("redis"), "--duration", "2s",
                "--report", report.toString());
        assertThat(r.exitCode()).as(r.toString()).isZero();
        JsonObject json = JsonParser.parseString(Files.readString(report.resolve("report.json"))).getAsJsonObject();
        assertThat(json.get("command").getAsString()).isEqualTo("check");
        assertThat(json.get("passed").getAsBoolean()).isTrue();
        assertThat(json.getAsJsonObject("backend").get("scheme").getAsString()).isEqualTo("redis");
        JsonArray rules = json.getAsJsonArray("rules");
        assertThat(rules.size()).isGreaterThanOrEqualTo(30);
        JsonArray timelines = json.getAsJsonArray("timelines");
        assertThat(timelines).extracting(t -> t.getAsJsonObject().get("rule").getAsString()).containsExactly("1.1", "1.4", "1.7");
        for (JsonElement t : timelines) {
            JsonObject timeline = t.getAsJsonObject();
            assertThat(timeline.getAsJsonArray("clients")).hasSizeGreaterThanOrEqualTo(8);
            assertThat(timeline.getAsJsonArray("grants").size()).isGreaterThan(10);
            assertThat(timeline.getAsJsonArray("overlaps")).isEmpty();
        }

        // The page as a person sees it: headless Chromium's DOM and a 1280 px screenshot, kept.
        String dom = Chromium.dumpDom(report.resolve("index.html"));
        assertThat(Dom.count(dom, "<tr class=\"rule ")).isEqualTo(rules.size());
        List<String> charts = Dom.svgs(dom, "timeline");
        assertThat(charts).hasSize(3);
        for (String chart : charts) {
            assertThat(Dom.count(chart, "<g class=\"lane\"")).as("one lane per client").isGreaterThanOrEqualTo(8);
            assertThat(Dom.count(chart, "<text class=\"token\"")).as("grants labelled with their tokens").isPositive();
            assertThat(chart).doesNotContain("<rect class=\"overlap\"");
        }
        screenshot(report, "check-redis.png");
    }

    @Test
    void anAuditOfADoubleGrantingBackendFailsNamingTheRuleAndDrawsTheOverlap(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("report");
        Distlock.Result r = Distlock.launcher().env("DISTLOCK_CLASSPATH", brokenBackends())
                .run(Duration.ofMinutes(2), "check", "broken://constant-owner", "--quick", "--rules", "1.1,1.2,2.1",
                        "--report", report.toString());
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.FAILED);
        assertThat(r.out()).contains("FAILED 1.1 at most one valid lease", "overlapping valid leases", "overlap(s) of two valid holders");
        JsonObject json = JsonParser.parseString(Files.readString(report.resolve("report.json"))).getAsJsonObject();
        assertThat(json.get("passed").getAsBoolean()).isFalse();
        JsonObject timeline = json.getAsJsonArray("timelines").get(0).getAsJsonObject();
        assertThat(timeline.get("rule").getAsString()).isEqualTo("1.1");
        assertThat(timeline.getAsJsonArray("overlaps")).isNotEmpty();
        assertThat(timeline.get("overlapsFound").getAsInt()).isGreaterThanOrEqualTo(timeline.getAsJsonArray("overlaps").size());
        assertThat(timeline.getAsJsonArray("grants").size()).isLessThanOrEqualTo(300);

        String dom = Chromium.dumpDom(report.resolve("index.html"));
        assertThat(Dom.between(dom, "<table id=\"verdicts\">", "</table>")).contains("1.1").contains("FAILED");
        String chart = Dom.svgs(dom, "timeline").get(0);
        assertThat(chart).as("the double grant drawn").contains("<rect class=\"overlap\"");
        assertThat(dom).contains("<ul class=\"overlaps\">");
        screenshot(report, "check-double-grant.png");
    }

    private static void screenshot(Path report, String name) throws java.io.IOException {
        Path dir = Files.createDirectories(Path.of(System.getProperty("distlock.cli.screenshots", "target/report-screenshots")));
        Path png = Chromium.screenshot(report.resolve("index.html"), dir.resolve(name), 1280, 1800);
        assertThat(Files.size(png)).isGreaterThan(10_000);
    }

    @Test
    void ctrlCDuringAnAuditLeavesNothingHeld(@TempDir Path tmp) throws IOException {
        String uri = Servers.uri("zookeeper");
        Distlock.Running check = Distlock.launcher().env("JAVA_OPTS", "-Djava.io.tmpdir=" + tmp)
                .start("check", uri, "--rules", "1.1", "--duration", "60s");
        await().atMost(Duration.ofSeconds(60)).until(() -> check.outputSoFar().contains("running 1.1"));
        Matcher prefix = Pattern.compile("on names under (distlock-check/[0-9a-f]{8}/)").matcher(check.outputSoFar());
        assertThat(prefix.find()).isTrue();
        try (LockClient look = Locks.connect(uri)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !look.holders(prefix.group(1), 10).isEmpty());
            check.interrupt();
            Distlock.Result r = check.await(Duration.ofSeconds(30));
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.INTERRUPTED);
            assertThat(r.out()).contains("interrupted: released what the audit held");
            // The audit's locks are ephemeral nodes of its clients' sessions: without the command's shutdown
            // hook closing them they would stay for the session timeout (10 s), not the 2 s allowed here.
            await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                    assertThat(look.holders(prefix.group(1), 100)).as("what the audit left held").isEmpty());
        }
        try (var left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString())).as("what the audit left in java.io.tmpdir")
                    .noneMatch(f -> f.startsWith("distlock-check"));
        }
    }

    @Test
    void onATerminalEachRuleHasABarThatItsVerdictReplaces() {
        Distlock.Result r = Distlock.launcher().runOnTerminal("", Duration.ofMinutes(1), "check", Servers.uri("redis"),
                "--rules", "1.2,2.1");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out()).containsPattern("\r1\\.2 +release touches only the caller's own lease \\[#*\\.*\\]")
                .contains("\rPASSED  1.2").doesNotContain("running 1.2");
    }

    @Test
    void badInputIsRefusedBeforeAnythingRuns() {
        Distlock.Result clients = Distlock.launcher().run("check", Servers.uri("redis"), "--clients", "1");
        assertThat(clients.exitCode()).as(clients.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(clients.err()).contains("--clients must be 2 to 32");
        Distlock.Result rules = Distlock.launcher().run("check", Servers.uri("redis"), "--rules", "4.9");
        assertThat(rules.exitCode()).as(rules.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(rules.err()).contains("names none of the audit's rules");
        Distlock.Result scheme = Distlock.launcher().run("check", "nosuch://x");
        assertThat(scheme.exitCode()).as(scheme.toString()).isEqualTo(ExitCodes.USAGE);
    }
}
