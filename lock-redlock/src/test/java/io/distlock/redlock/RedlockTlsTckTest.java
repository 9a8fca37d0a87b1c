package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The TCK's safety and security groups (rules 1.x and 6.x, {@code distlock.tck.rules=1,6}) over
 * {@code redlock://...?tls=true} with a least-privilege ACL user ({@link RedlockTlsVerification}). Run through the JUnit test kit because the rule
 * selection is a launcher-wide configuration parameter: set here, it selects for this run only.
 */
class RedlockTlsTckTest {

    @Test
    void theSafetyAndSecurityRulesPassOverTls(@TempDir Path reports) {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .configurationParameter("distlock.tck.rules", "1,6")
                .selectors(DiscoverySelectors.selectClass(RedlockTlsVerification.class))
                .execute();
        List<String> failures = results.testEvents().failed().stream()
                .map(e -> e.getTestDescriptor().getDisplayName() + ": " + e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                        .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).map(Throwable::toString).orElse(""))
                .collect(Collectors.toList());
        assertThat(failures).as("failed safety or security rules over TLS").isEmpty();
        assertThat(results.containerEvents().failed().count()).as("the class itself failed (server start?)").isZero();
        List<String> ran = results.testEvents().succeeded().stream()
                .map(e -> e.getTestDescriptor().getDisplayName().split(" ")[0]).collect(Collectors.toList());
        assertThat(ran).as("rules that passed").contains("1.1", "1.2")
                .allSatisfy(rule -> assertThat(rule).matches("[16]\\..*"));
        // Every part of the security hook is given, so no rule of group 6 may be skipped.
        assertThat(ran).as("security rules that passed").contains("6.1", "6.2", "6.3", "6.4");
    }
}
