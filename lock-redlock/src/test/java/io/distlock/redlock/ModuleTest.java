package io.distlock.redlock;

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
 * driver jars, through {@code provides}), where reading the single-Redis module's primitive relies
 * on its qualified export to this module.
 */
class ModuleTest {

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void providesTheBackendAndExportsNothing() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(location(RedlockBackend.class))
                .find("io.distlock.redlock").orElseThrow().descriptor();
        assertThat(descriptor.exports()).isEmpty();
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).singleElement().satisfies(provides -> {
            assertThat(provides.service()).isEqualTo("io.distlock.spi.LockBackend");
            assertThat(provides.providers()).containsExactly(RedlockBackend.class.getName());
        });
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
                .containsExactlyInAnyOrder("java.base", "io.distlock", "io.distlock.redis");
    }

    @Test
    void isFoundOnTheClasspathWithItsDeclaration() {
        assertThat(Locks.backends()).filteredOn(d -> d.scheme().equals("redlock")).singleElement().satisfies(d -> {
            assertThat(d.guarantee()).isEqualTo(Guarantee.EFFICIENCY);
            assertThat(d.features()).containsExactlyInAnyOrder(Feature.LEASE_EXTENSION, Feature.AUTO_RENEWAL,
                    Feature.LOSS_NOTIFICATION, Feature.QUORUM);
        });
    }

    @Test
    void isFoundOnTheModulePath() throws Exception {
        List<String> driverJars = List.of("jedis", "commons-pool2", "slf4j-api", "gson", "json", "redis-authx",
                "error_prone");
        Stream<Path> jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> driverJars.stream().anyMatch(name -> Path.of(entry).getFileName().toString().startsWith(name)))
                .map(Path::of);
        Path[] modulePath = Stream.concat(Stream.of(location(Locks.class), location(Class.forName("io.distlock.redis.RedisLockBackend")),
                location(RedlockBackend.class)), jars).toArray(Path[]::new);
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(modulePath), ModuleFinder.of(), Set.of("io.distlock"));
        assertThat(configuration.findModule("io.distlock.redlock"))
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
            assertThat(schemes).containsExactlyInAnyOrder("redis", "rediss", "redlock");
            // Loading the driver class links it against io.distlock.redis.internal: the qualified export at work.
            Class<?> driver = layer.findLoader("io.distlock.redlock").loadClass("io.distlock.redlock.internal.RedlockDriver");
            assertThat(driver.getModule().canRead(layer.findModule("io.distlock.redis").orElseThrow())).isTrue();
            assertThat(layer.findModule("io.distlock.redis").orElseThrow()
                    .isExported("io.distlock.redis.internal", driver.getModule())).isTrue();
            assertThat(layer.findModule("io.distlock.redis").orElseThrow().isExported("io.distlock.redis.internal")).isFalse();
            assertThat(Arrays.stream(driver.getDeclaredMethods()).map(m -> m.getName())).contains("tryAcquire");
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
