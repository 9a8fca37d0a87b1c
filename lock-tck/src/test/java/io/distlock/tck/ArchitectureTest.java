package io.distlock.tck;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

class ArchitectureTest {

    static JavaClasses tck;

    @BeforeAll
    static void importClasses() {
        // Not ImportOption.Predefined.DO_NOT_INCLUDE_TESTS: it only recognises .../target/test-classes,
        // and the build directory is configurable (-Ddistlock.target=target-b).
        ImportOption mainClassesOnly = location -> !location.contains("/test-classes/");
        tck = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock.tck");
    }

    @Test
    void usesTheContractAsAnOutsiderWould() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.distlock.engine..", "io.distlock.redis..")
                .because("the TCK verifies backends through the public contract only")
                .check(tck);
    }

    @Test
    void measuresTimeOnTheMonotonicClock() {
        noClasses().should().callMethod(System.class, "currentTimeMillis")
                .because("histories compare instants across threads; only System.nanoTime is monotonic")
                .check(tck);
    }
}
