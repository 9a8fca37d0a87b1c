package io.distlock.tair;

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
        backend = new ClassFileImporter().withImportOption(mainClassesOnly).importPackages("io.distlock.tair");
    }

    @Test
    void dependsOnTheContractTheSharedRedisPrimitiveJedisAndTairStringOnly() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "io.distlock", "io.distlock.spi", "io.distlock.tair..", "io.distlock.redis.support",
                        "redis.clients.jedis", "redis.clients.jedis.exceptions", "com.aliyun.tair",
                        "com.aliyun.tair.tairstring", "com.aliyun.tair.tairstring.params")
                .because("a backend sees lock-api's exported packages and the Redis family's shared per-node primitive,"
                        + " never the engine, the TCK or the single-Redis provider; only the commands differ, so Jedis"
                        + " is touched for the connection a RedisNode lends and TairString for CAS and CAD")
                .check(backend);
    }

    @Test
    void noScriptIsEverSent() {
        noClasses().should().dependOnClassesThat().haveSimpleName("RedisScript")
                .orShould().dependOnClassesThat().haveSimpleName("PendingReply")
                .orShould().callMethod(redis.clients.jedis.Jedis.class, "eval", String.class)
                .because("no Lua on this backend's path: CAS and CAD replace the scripts")
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
        classes().that().arePublic().and().resideOutsideOfPackage("io.distlock.tair.internal..")
                .should().haveSimpleName("TairLockBackend")
                .check(backend);
    }
}
