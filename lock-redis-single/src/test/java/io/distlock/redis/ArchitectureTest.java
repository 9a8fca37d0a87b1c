package io.distlock.redis;

import com.tngtech.archunit.core.domain.JavaClass;
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
        // The package alone: io.distlock.redis.support (a subpackage by name) is lock-redis-support's, on this classpath.
        backend = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock.redis")
                .that(JavaClass.Predicates.resideInAPackage("io.distlock.redis"));
    }

    @Test
    void dependsOnTheContractAndTheRedisFamilysSupportOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "io.distlock", "io.distlock.spi", "io.distlock.redis", "io.distlock.redis.support")
                .because("a backend sees lock-api's exported packages and the Redis family's driver and per-node"
                        + " primitive, never the engine, the TCK, another backend's internals or Jedis directly")
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
    void theProvidersAreTheOnlyPublicClasses() {
        classes().that().arePublic()
                .should().haveNameMatching("io\\.distlock\\.redis\\.Rediss?LockBackend")
                .check(backend);
    }
}
