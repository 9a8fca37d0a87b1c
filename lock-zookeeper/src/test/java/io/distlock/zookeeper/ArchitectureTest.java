package io.distlock.zookeeper;

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
        backend = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock.zookeeper");
    }

    @Test
    void dependsOnTheContractAndItsDriverOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "javax.net.ssl", "io.distlock", "io.distlock.spi", "io.distlock.zookeeper..",
                        "org.apache.curator..", "org.apache.zookeeper", "org.apache.zookeeper.data",
                        "org.apache.zookeeper.client", "org.apache.zookeeper.server.auth")
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
        classes().that().arePublic().and().resideOutsideOfPackage("io.distlock.zookeeper.internal..")
                .should().haveSimpleName("ZooKeeperLockBackend")
                .check(backend);
    }
}
