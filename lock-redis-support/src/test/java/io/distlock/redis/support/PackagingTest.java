package io.distlock.redis.support;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.distlock.tck.fixtures.BackendPackaging;
import io.distlock.tck.fixtures.BackendPackagingCheck;
import io.distlock.tck.fixtures.RedisFamilyPackaging;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaging checks every module on the SPI runs (BackendPackagingCheck), as the Redis family's
 * library: no backend on either path, and its one package exported to exactly the Redis-family
 * backends — the modules of this build that depend on lock-redis-support — never to users. The
 * list in module-info is the one place that names the family; this test keeps it honest both ways
 * (a member missing from it could not compile; one left there after its module stopped depending
 * on this one fails here).
 */
class PackagingTest extends BackendPackagingCheck {

    private static final String FAMILY = "io.distlock.redis.support";
    private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);
    private static final Pattern MODULE_NAME = Pattern.compile("^\\s*(?:open\\s+)?module\\s+([\\w.]+)", Pattern.MULTILINE);

    PackagingTest() {
        super(BackendPackaging.library(FAMILY, RedisNode.class)
                .requires("redis.clients.jedis", "org.apache.commons.pool2", "org.slf4j")
                .exportsTo(FAMILY, "io.distlock.redis", "io.distlock.rediscluster", "io.distlock.redlock", "io.distlock.rediswait",
                        "io.distlock.tair")
                .driverJars(RedisFamilyPackaging.driverJars())
                .mayDependOn("Jedis, its pool and SLF4J", "javax.net.ssl", "redis.clients..", "org.apache.commons.pool2..",
                        "org.slf4j.."));
    }

    @Test
    void exportsItsPackageToExactlyTheModulesThatDependOnIt() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(moduleLocation()).find(FAMILY).orElseThrow().descriptor();
        assertThat(descriptor.exports()).singleElement().satisfies(exports -> {
            assertThat(exports.isQualified()).as("never to users").isTrue();
            assertThat(new TreeSet<>(exports.targets())).isEqualTo(modulesDependingOnThisOne());
        });
    }

    @Test
    void standsOnItsOwnWithoutAnyBackendOfTheFamily() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.distlock.redis", "io.distlock.rediscluster..",
                        "io.distlock.redlock..", "io.distlock.rediswait..", "io.distlock.tair..")
                .because("every Redis-family backend depends on this module, and none of them may come with another")
                .check(new ClassFileImporter().importPath(moduleLocation()));
    }

    /** @return the JPMS names of the reactor's modules whose pom depends on lock-redis-support (not in test scope) */
    private static Set<String> modulesDependingOnThisOne() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Set<String> names = new TreeSet<>();
        Matcher modules = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
        while (modules.find()) {
            Path module = root.resolve(modules.group(1));
            Path descriptor = module.resolve("src/main/java/module-info.java");
            if (dependsOnThisOne(Files.readString(module.resolve("pom.xml"))) && Files.isRegularFile(descriptor)) {
                Matcher name = MODULE_NAME.matcher(Files.readString(descriptor));
                assertThat(name.find()).as("a module name in %s", descriptor).isTrue();
                names.add(name.group(1));
            }
        }
        return names;
    }

    private static boolean dependsOnThisOne(String pom) {
        Matcher dependencies = DEPENDENCY.matcher(pom);
        while (dependencies.find()) {
            String dependency = dependencies.group(1);
            if (dependency.contains("<artifactId>lock-redis-support</artifactId>") && !dependency.contains("<scope>test</scope>")) {
                return true;
            }
        }
        return false;
    }
}
