package io.distlock.redis.support;

import io.distlock.Locks;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the module's shape: no backend, and its one package exported to exactly the Redis-family
 * backends — the modules of this build that depend on lock-redis-support — never to users. The
 * list in module-info is the one place that names the family; this test keeps it honest both ways
 * (a member missing from it could not compile; one left there after its module stopped depending
 * on this one fails here).
 */
class ModuleTest {

    private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);
    private static final Pattern MODULE_NAME = Pattern.compile("^\\s*(?:open\\s+)?module\\s+([\\w.]+)", Pattern.MULTILINE);

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static ModuleDescriptor descriptor() throws Exception {
        return ModuleFinder.of(location(RedisNode.class)).find("io.distlock.redis.support").orElseThrow().descriptor();
    }

    @Test
    void providesNothingAndRequiresTheContractAndJedis() throws Exception {
        ModuleDescriptor descriptor = descriptor();
        assertThat(descriptor.provides()).as("a library, not a backend").isEmpty();
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name).containsExactlyInAnyOrder(
                "java.base", "io.distlock", "redis.clients.jedis", "org.apache.commons.pool2", "org.slf4j");
    }

    @Test
    void exportsItsPackageToExactlyTheModulesThatDependOnIt() throws Exception {
        assertThat(descriptor().exports()).singleElement().satisfies(exports -> {
            assertThat(exports.source()).isEqualTo("io.distlock.redis.support");
            assertThat(exports.isQualified()).as("never to users").isTrue();
            assertThat(new TreeSet<>(exports.targets())).isEqualTo(modulesDependingOnThisOne())
                    .contains("io.distlock.redis", "io.distlock.redlock", "io.distlock.rediswait", "io.distlock.tair");
        });
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

    @Test
    void bringsNoBackendOnTheClasspath() {
        assertThat(Locks.backends()).as("lock-redis-support alone").isEmpty();
    }

    @Test
    void bringsNoBackendOnTheModulePath() throws Exception {
        List<String> driverJars = List.of("jedis", "commons-pool2", "slf4j-api", "gson", "json", "redis-authx", "error_prone");
        Stream<Path> jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> driverJars.stream().anyMatch(name -> Path.of(entry).getFileName().toString().startsWith(name)))
                .map(Path::of);
        Path[] modulePath = Stream.concat(Stream.of(location(Locks.class), location(RedisNode.class)), jars).toArray(Path[]::new);
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(modulePath), ModuleFinder.of(), Set.of("io.distlock", "io.distlock.redis.support"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
        ClassLoader loader = layer.findLoader("io.distlock");
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            List<?> backends = (List<?>) loader.loadClass("io.distlock.Locks").getMethod("backends").invoke(null);
            assertThat(backends).as("lock-redis-support alone on a module path").isEmpty();
            assertThat(layer.findModule("io.distlock.redis.support").orElseThrow().isExported("io.distlock.redis.support"))
                    .as("exported to users").isFalse();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
