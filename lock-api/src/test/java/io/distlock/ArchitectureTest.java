package io.distlock;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

class ArchitectureTest {

    static JavaClasses api;

    @BeforeAll
    static void importClasses() {
        // Not ImportOption.Predefined.DO_NOT_INCLUDE_TESTS: it only recognises .../target/test-classes,
        // and the build directory is configurable (-Ddistlock.target=target-b).
        ImportOption mainClassesOnly = location -> !location.contains("/test-classes/");
        api = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock");
    }

    @Test
    void theApiDependsOnTheJdkOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage("java..", "javax.net.ssl..", "javax.crypto..", "io.distlock..")
                .because("lock-api must stay JDK-only (javax.net.ssl is the JDK's TLS, for TlsSettings; javax.crypto its AES,"
                        + " for owner tokens): users add it without pulling any driver")
                .check(api);
    }

    @Test
    void leaseTimingNeverReadsTheWallClock() {
        noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .because("validity is measured on the monotonic clock; the wall clock jumps")
                .check(api);
    }

    @Test
    void theSpiDoesNotReachIntoTheEngine() {
        noClasses().that().resideInAnyPackage("io.distlock.spi..")
                .should().dependOnClassesThat().resideInAnyPackage("io.distlock.engine..")
                .check(api);
    }
}
