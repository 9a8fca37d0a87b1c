package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The TCK's safety group (1.x) and security group (6.x) over {@code zookeeper://…?tls=true} with
 * digest authentication ({@link ZooKeeperTlsVerification}). Run through the JUnit test kit because
 * the rule selection is a launcher-wide configuration parameter: set here, it selects for this run only.
 */
class ZooKeeperTlsTckTest {

    static final String RULES = "1,6";

    @Test
    void theSafetyAndSecurityRulesPassOverTlsWithDigestAuthentication(@TempDir Path reports) throws IOException {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .configurationParameter("distlock.tck.rules", RULES)
                .selectors(DiscoverySelectors.selectClass(ZooKeeperTlsVerification.class))
                .execute();
        List<String> failures = results.testEvents().failed().stream()
                .map(e -> e.getTestDescriptor().getDisplayName() + ": " + e.getPayload(TestExecutionResult.class)
                        .flatMap(TestExecutionResult::getThrowable).map(Throwable::toString).orElse(""))
                .collect(Collectors.toList());
        assertThat(failures).as("failed rules over TLS with digest authentication").isEmpty();
        assertThat(results.containerEvents().failed().count()).as("the class itself failed (server start?)").isZero();
        List<String> ran = results.testEvents().succeeded().stream()
                .map(e -> e.getTestDescriptor().getDisplayName().split(" ")[0]).collect(Collectors.toList());
        assertThat(ran).as("rules that passed: the whole security group ran (none skipped by name)")
                .contains("1.1", "1.2", "6.1", "6.2", "6.3", "6.4")
                .allSatisfy(rule -> assertThat(rule).matches("[16]\\..*"));
        System.out.printf("[ZooKeeperTlsTckTest] rules passed: %s%n", ran);
        String verdict;
        try (Stream<Path> files = Files.list(reports)) {
            verdict = files.filter(f -> f.getFileName().toString().endsWith("-verdict.md")).map(ZooKeeperTlsTckTest::read)
                    .collect(Collectors.joining("\n"));
        }
        assertThat(verdict).as("the verdict").contains("security (group 6): shown");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
