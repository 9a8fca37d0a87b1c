package io.distlock.rediswait;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.Locks;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the module's shape, and proves discovery on both paths: the classpath (through
 * META-INF/services) and a real module path (a {@link ModuleLayer} of the compiled modules and the
 * driver jars, through {@code provides}), where reading the Redis family's primitive relies on
 * lock-redis-support's qualified export to this module. On both, this artifact alone brings its
 * own scheme and no other.
 */
class ModuleTest {

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void providesTheBackendAndExportsNothing() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(location(RedisWaitBackend.class))
                .find("io.distlock.rediswait").orElseThrow().descriptor();
        assertThat(descriptor.exports()).isEmpty();
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).singleElement().satisfies(provides -> {
            assertThat(provides.service()).isEqualTo("io.distlock.spi.LockBackend");
            assertThat(provides.providers()).containsExactly(RedisWaitBackend.class.getName());
        });
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
                .containsExactlyInAnyOrder("java.base", "io.distlock", "io.distlock.redis.support");
    }

    @Test
    void isFoundOnTheClasspathWithItsDeclaration() {
        assertThat(Locks.backends()).as("the schemes of this artifact and what it brings, alone on a classpath")
                .extracting(BackendDescriptor::scheme).containsExactly("redis-wait");
        assertThat(Locks.backends()).singleElement().satisfies(d -> {
            assertThat(d.guarantee()).isEqualTo(Guarantee.EFFICIENCY);
            assertThat(d.features()).containsExactlyInAnyOrder(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL,
                    Feature.LOSS_NOTIFICATION, Feature.WAIT_NOTIFICATION);
        });
    }

    @Test
    void isFoundOnTheModulePath() throws Exception {
        List<String> driverJars = List.of("jedis", "commons-pool2", "slf4j-api", "gson", "json", "redis-authx",
                "error_prone");
        Stream<Path> jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> driverJars.stream().anyMatch(name -> Path.of(entry).getFileName().toString().startsWith(name)))
                .map(Path::of);
        Path[] modulePath = Stream.concat(Stream.of(location(Locks.class), location(Class.forName("io.distlock.redis.support.RedisNode")),
                location(RedisWaitBackend.class)), jars).toArray(Path[]::new);
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(modulePath), ModuleFinder.of(), Set.of("io.distlock"));
        assertThat(configuration.findModule("io.distlock.rediswait"))
                .as("resolveAndBind pulls the provider in through `uses`").isPresent();
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
        ClassLoader loader = layer.findLoader("io.distlock");
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            List<?> backends = (List<?>) loader.loadClass("io.distlock.Locks").getMethod("backends").invoke(null);
            Set<String> schemes = backends.stream().map(d -> {
                try {
                    return (String) d.getClass().getMethod("scheme").invoke(d);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }).collect(Collectors.toSet());
            // This artifact alone brings its own scheme and no other (no redis://: lock-redis-single is not in it).
            assertThat(schemes).containsExactly("redis-wait");
            // Loading the driver class links it against io.distlock.redis.support: the qualified export at work.
            Class<?> driver = layer.findLoader("io.distlock.rediswait").loadClass("io.distlock.rediswait.internal.RedisWaitDriver");
            assertThat(layer.findModule("io.distlock.redis.support").orElseThrow()
                    .isExported("io.distlock.redis.support", driver.getModule())).isTrue();
            assertThat(layer.findModule("io.distlock.redis.support").orElseThrow().isExported("io.distlock.redis.support")).isFalse();
            assertThat(layer.findModule("io.distlock.redis")).as("the single-Redis backend's module").isEmpty();
            assertThat(Arrays.stream(driver.getDeclaredMethods()).map(m -> m.getName())).contains("tryAcquire", "extend");
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
