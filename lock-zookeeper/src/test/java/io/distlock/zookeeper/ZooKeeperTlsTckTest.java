package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

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
    void theSafetyAndSecurityRulesPassOverTlsWithDigestAuthentication(@TempDir Path reports) {
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
        assertThat(ran).as("rules that passed").contains("1.1", "1.2")
                .allSatisfy(rule -> assertThat(rule).matches("[16]\\..*"));
        System.out.printf("[ZooKeeperTlsTckTest] rules passed: %s%n", ran);
    }
}
