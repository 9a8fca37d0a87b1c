package io.distlock.tck.memory;

import io.distlock.LockClient;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.LockVerification;
import io.distlock.tck.PartitionedClient;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TCK is tested too: each deliberately broken variant ({@link Bug}) must fail every rule its entry
 * names, with a message that says what went wrong, while the reference of its shape passes the same rule.
 * The variants are split by the rules they fail ({@link BrokenBackendsTest}, {@link BrokenFaultHandlingTest})
 * so that Surefire's forks run the two halves side by side: the memory servers keep each JVM mostly waiting
 * on lease times, not computing.
 */
abstract class BrokenVariantCheck {

    /** {@code RuleBound}'s parameter: how long a rule may run before it fails as hung, in seconds. */
    private static final String RULE_BOUND = "distlock.tck.ruleBoundSeconds";

    @TempDir
    Path reports;

    /**
     * @param failsRule which of the rules a variant must fail belong to this half
     * @return one case per (variant, rule it must fail, message it must give)
     */
    static Stream<Arguments> variantsFailing(Predicate<String> failsRule) {
        return Bug.variants().stream().flatMap(bug -> bug.failures().stream()
                .filter(failure -> failsRule.test(failure.rule()))
                .map(failure -> Arguments.of(bug, failure.rule(), failure.message())));
    }

    @ParameterizedTest(name = "{0} fails {1}")
    @MethodSource("brokenVariants")
    void brokenVariantFailsItsRule(Bug bug, String rule, String expectedMessage) throws IOException {
        String method = ruleMethod(rule);
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .configurationParameter(Variant.BUG, bug.name())
                // A variant whose rule hangs is failed by the rule's bound: 10 s, not the default
                // five minutes, for the build's time (the rule itself takes well under a second).
                .configurationParameter(RULE_BOUND, bug == Bug.HANGING_ACQUIRE ? "10" : "")
                .selectors(DiscoverySelectors.selectMethod(Variant.class, method))
                .execute();

        List<Event> failed = results.testEvents().failed().list();
        assertThat(failed).as("failures of %s in %s: %s", bug, method, describe(results)).hasSize(1);
        Throwable failure = failed.get(0).getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow();
        assertThat(failure).hasMessageContaining(expectedMessage);

        assertThat(failure).hasMessageStartingWith("[" + rule + "]");
        try (Stream<Path> verdicts = Files.list(reports)) {
            Path verdict = verdicts.filter(p -> p.getFileName().toString().startsWith("broken-")).findFirst().orElseThrow();
            assertThat(Files.readString(verdict, StandardCharsets.UTF_8))
                    .contains("| " + rule + " |", "| failed |", "declaration NOT upheld: failed rules " + rule);
        }

        // A broken session store is held against the reference shaped like one.
        EngineExecutionResults reference = run(bug.shape().reference, method);
        assertThat(reference.testEvents().succeeded().count())
                .as("the reference passes %s: %s", method, describe(reference))
                .isEqualTo(1);
    }

    /** The test method of the rule numbered {@code rule}: the one whose display name starts with the number. */
    private static String ruleMethod(String rule) {
        List<String> methods = Arrays.stream(LockVerification.class.getMethods())
                .filter(m -> m.isAnnotationPresent(Test.class) && m.getAnnotation(DisplayName.class).value().startsWith(rule + " "))
                .map(Method::getName).collect(Collectors.toList());
        assertThat(methods).as("the rules numbered %s", rule).hasSize(1);
        return methods.get(0);
    }

    private EngineExecutionResults run(Class<?> verification, String method) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter("distlock.tck.reportDir", reports.toString())
                .selectors(DiscoverySelectors.selectMethod(verification, method))
                .execute();
    }

    static String describe(EngineExecutionResults results) {
        return results.testEvents().list().stream()
                .filter(e -> e.getPayload(TestExecutionResult.class).isPresent())
                .map(e -> e.getTestDescriptor().getDisplayName() + " -> "
                        + e.getRequiredPayload(TestExecutionResult.class))
                .collect(Collectors.joining("\n"));
    }

    /**
     * The verification of one broken variant: the configuration parameter {@value #BUG} names its {@link Bug},
     * whose {@link Bug.Shape} says how it is set up. Its clients connect as {@code locker} to the variant's
     * server, with every hook the reference has, so that a rule fails for the variant's defect, not for a
     * missing hook. Its name does not end in "Test": Surefire does not run it, the testkit does.
     */
    @ExtendWith(Variant.Named.class)
    static class Variant extends MemoryVerification {
        static final String BUG = "distlock.tck.memory.bug";

        private final Bug bug;

        Variant(Bug bug) {
            super(bug.shape().scheme, bug.server(), bug.shape().revocationTellsHolder);
            this.bug = bug;
        }

        @Override
        protected int routes() {
            return bug.shape().routes;
        }

        @Override
        protected boolean sessionStore() {
            return bug.shape().sessionStore;
        }

        /** A defect of the {@code Lock} view is staged on every client the rules open, partitioned ones included. */
        @Override
        protected LockClient newClient() {
            LockClient client = super.newClient();
            return bug.inView() ? new BrokenViewClient(client, bug) : client;
        }

        @Override
        protected Optional<ClientPartition> clientPartition() {
            ClientPartition real = super.clientPartition().orElseThrow();
            if (!bug.inView()) {
                return Optional.of(real);
            }
            return Optional.of(ClientPartition.of(() -> {
                PartitionedClient cut = real.open();
                return new PartitionedClient(new BrokenViewClient(cut.client(), bug), cut.links(), cut::close);
            }, real.operationTimeout(), real.reconnect(), real.sessionTimeout()));
        }

        /** Gives {@link Variant}'s constructor the {@link Bug} the configuration parameter {@value #BUG} names. */
        static final class Named implements ParameterResolver {
            @Override
            public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
                return parameter.getParameter().getType() == Bug.class;
            }

            @Override
            public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
                return Bug.valueOf(context.getConfigurationParameter(BUG).orElseThrow(() ->
                        new ParameterResolutionException("name the broken variant with the configuration parameter " + BUG)));
            }
        }
    }

}
