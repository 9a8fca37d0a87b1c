package io.distlock.redis.support;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

class ArchitectureTest {

    static JavaClasses support;

    @BeforeAll
    static void importClasses() {
        // Not ImportOption.Predefined.DO_NOT_INCLUDE_TESTS: it only recognises .../target/test-classes,
        // and the build directory is configurable (-Ddistlock.target=target-b).
        ImportOption mainClassesOnly = location -> !location.contains("/test-classes/");
        support = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock.redis.support");
    }

    @Test
    void dependsOnTheContractAndItsDriverOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "javax.net.ssl", "io.distlock", "io.distlock.spi", "io.distlock.redis.support",
                        "redis.clients..", "org.apache.commons.pool2..", "org.slf4j..")
                .because("the Redis family's library sees lock-api's exported packages and Jedis, never the engine,"
                        + " the TCK or a backend")
                .check(support);
    }

    @Test
    void standsOnItsOwnWithoutAnyBackendOfTheFamily() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.distlock.redis", "io.distlock.redlock..",
                        "io.distlock.rediswait..", "io.distlock.tair..")
                .because("every Redis-family backend depends on this module, and none of them may come with another")
                .check(support);
    }

    @Test
    void leaseTimingNeverReadsTheWallClock() {
        noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .because("lease timing is the engine's, on the monotonic clock")
                .check(support);
    }
}
