package io.distlock.rediswait;

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
        // Not ImportOption.Predefined.DO_NOT_INCLUDE_TESTS: the build directory is configurable.
        ImportOption mainClassesOnly = location -> !location.contains("/test-classes/");
        backend = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock.rediswait");
    }

    @Test
    void dependsOnTheContractAndTheSharedRedisPrimitiveOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "io.distlock", "io.distlock.spi", "io.distlock.rediswait..", "io.distlock.redis.support")
                .because("a backend sees lock-api's exported packages and the Redis family's shared per-node primitive,"
                        + " never the engine, the TCK, the single-Redis provider or Jedis directly: every Redis call,"
                        + " WAIT, ROLE and SENTINEL included, goes through RedisNode")
                .check(backend);
    }

    @Test
    void leaseTimingNeverReadsTheWallClock() {
        noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .because("validity is the engine's, on the monotonic clock, counted from the attempt's send time")
                .check(backend);
    }

    @Test
    void theProviderIsTheOnlyPublicClassOutsideInternal() {
        classes().that().arePublic().and().resideOutsideOfPackage("io.distlock.rediswait.internal..")
                .should().haveSimpleName("RedisWaitBackend")
                .check(backend);
    }
}
