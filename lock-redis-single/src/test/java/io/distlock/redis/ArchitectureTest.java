package io.distlock.redis;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

class ArchitectureTest {

    static JavaClasses backend;

    @BeforeAll
    static void importClasses() {
        // Not ImportOption.Predefined.DO_NOT_INCLUDE_TESTS: it only recognises .../target/test-classes,
        // and the build directory is configurable (-Ddistlock.target=target-b).
        ImportOption mainClassesOnly = location -> !location.contains("/test-classes/");
        backend = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock.redis");
    }

    @Test
    void dependsOnTheContractAndItsDriverOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "javax.net.ssl", "io.distlock", "io.distlock.spi", "io.distlock.redis..",
                        "redis.clients..", "org.apache.commons.pool2..", "org.slf4j..")
                .because("a backend sees lock-api's exported packages and its own driver, never the engine,"
                        + " the TCK or another backend's internals")
                .check(backend);
    }

    @Test
    void leaseTimingNeverReadsTheWallClock() {
        noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .because("lease timing is the engine's, on the monotonic clock")
                .check(backend);
    }

    @Test
    void theProviderIsTheOnlyPublicClassOutsideInternal() {
        classes().that().arePublic().and().resideOutsideOfPackage("io.distlock.redis.internal..")
                .should().haveNameMatching("io\\.distlock\\.redis\\.Rediss?LockBackend")
                .check(backend);
    }

    @Test
    void theSharedPrimitiveDoesNotDependOnTheSingleRedisProvider() {
        noClasses().that().resideInAPackage("io.distlock.redis.internal")
                .should().dependOnClassesThat().resideInAPackage("io.distlock.redis")
                .because("io.distlock.redis.internal is exported to the other Redis-family backends (Redlock):"
                        + " it must stand on its own")
                .check(backend);
    }
}
