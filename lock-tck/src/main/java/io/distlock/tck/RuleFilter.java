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
 * -Ddistlock.tck.rules=4.9,1}. A class annotated {@link RuleSelection} runs only its own selection
 * (narrowed by the parameter, if set). A rule left out is reported as disabled, naming the filter.
 */
final class RuleFilter implements ExecutionCondition {

    static final String RULES_PROPERTY = "distlock.tck.rules";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("a class");
        }
        String display = context.getDisplayName();
        String rule = display.indexOf(' ') > 0 ? display.substring(0, display.indexOf(' ')) : display;
        RuleSelection own = context.getTestClass().map(c -> c.getAnnotation(RuleSelection.class)).orElse(null);
        if (own != null && !matches(rule, own.value())) {
            return ConditionEvaluationResult.disabled("not selected: @RuleSelection(\"" + own.value() + "\")");
        }
        String selection = context.getConfigurationParameter(RULES_PROPERTY).orElse("").trim();
        if (selection.isEmpty()) {
            return ConditionEvaluationResult.enabled(own != null ? "selected by @RuleSelection" : "every rule runs");
        }
        if (matches(rule, selection)) {
            return ConditionEvaluationResult.enabled("selected by " + RULES_PROPERTY);
        }
        return ConditionEvaluationResult.disabled("not selected: " + RULES_PROPERTY + "=" + selection);
    }

    /**
     * @param rule      a rule number, {@code 4.10}
     * @param selection rules and groups, comma-separated ({@code 1,4.10})
     * @return whether the selection names the rule or its group
     */
    static boolean matches(String rule, String selection) {
        List<String> wanted = Arrays.stream(selection.split(",")).map(String::trim).filter(w -> !w.isEmpty())
                .collect(Collectors.toList());
        for (String w : wanted) {
            if (rule.equals(w) || rule.startsWith(w + ".")) {
                return true;
            }
        }
        return false;
    }
}
