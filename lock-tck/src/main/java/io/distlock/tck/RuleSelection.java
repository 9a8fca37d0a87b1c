package io.distlock.tck;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a verification class on a selection of rules, for a second verification of the same backend
 * in another set-up: for example the safety and security groups over TLS with authentication,
 * {@code @RuleSelection(value = "1,6", mustPass = "6")}. The build's
 * {@code -Ddistlock.tck.rules}, when set, narrows the selection further. The verdict is written as
 * for any verification, and says it shows a partial run.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface RuleSelection {

    /** @return the rules ({@code 2.1}) and groups ({@code 4}) to run, comma-separated */
    String value();

    /**
     * @return rules and groups, comma-separated, each of whose rules that runs must pass, not be
     *         skipped: a skip there (a hook part missing, SLF4J not captured) fails the class after its
     *         verdict is written — except a rule whose feature the backend does not declare, which it
     *         makes no claim to. Empty by default: skips are reported, as everywhere.
     */
    String mustPass() default "";
}
