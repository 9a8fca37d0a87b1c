package io.distlock.tck;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs only the rules asked for by number: the JUnit configuration parameter (or system property)
 * {@value #RULES_PROPERTY}, a comma-separated list of rules ({@code 2.1}) and groups ({@code 4}),
 * selects them; empty or absent runs every rule. For example {@code ./mvnw test -pl lock-redis-single
 * -Ddistlock.tck.rules=4.9,1}. A rule left out is reported as disabled, naming the filter.
 */
final class RuleFilter implements ExecutionCondition {

    static final String RULES_PROPERTY = "distlock.tck.rules";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("a class");
        }
        String selection = context.getConfigurationParameter(RULES_PROPERTY).orElse("").trim();
        if (selection.isEmpty()) {
            return ConditionEvaluationResult.enabled("every rule runs");
        }
        String display = context.getDisplayName();
        String rule = display.indexOf(' ') > 0 ? display.substring(0, display.indexOf(' ')) : display;
        List<String> wanted = Arrays.stream(selection.split(",")).map(String::trim).filter(w -> !w.isEmpty())
                .collect(Collectors.toList());
        for (String w : wanted) {
            if (rule.equals(w) || rule.startsWith(w + ".")) {
                return ConditionEvaluationResult.enabled("selected by " + RULES_PROPERTY);
            }
        }
        return ConditionEvaluationResult.disabled("not selected: " + RULES_PROPERTY + "=" + selection);
    }
}
