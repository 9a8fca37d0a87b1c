package io.distlock.redlock;

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
        backend = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock.redlock");
    }

    @Test
    void dependsOnTheContractAndTheSharedRedisPrimitiveOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "io.distlock", "io.distlock.spi", "io.distlock.redlock..", "io.distlock.redis.support")
                .because("a backend sees lock-api's exported packages and the Redis family's shared per-node primitive,"
                        + " never the engine, the TCK, the single-Redis provider or Jedis directly")
                .check(backend);
    }

    @Test
    void leaseTimingNeverReadsTheWallClock() {
        noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .because("validity is ttl − elapsed − drift on the monotonic clock")
                .check(backend);
    }

    @Test
    void theProviderIsTheOnlyPublicClassOutsideInternal() {
        classes().that().arePublic().and().resideOutsideOfPackage("io.distlock.redlock.internal..")
                .should().haveSimpleName("RedlockBackend")
                .check(backend);
    }

    @Test
    void noThreadsOrExecutorsInTheFanOut() {
        noClasses().should().dependOnClassesThat().resideInAPackage("java.util.concurrent..")
                .orShould().callConstructor(Thread.class, Runnable.class)
                .because("the fan-out runs on the calling thread: write to every node, then read every reply")
                .check(backend);
    }
}
