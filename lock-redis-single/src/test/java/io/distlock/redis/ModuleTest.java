package io.distlock.redis;

import io.distlock.BackendDescriptor;
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
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the module's shape, and proves discovery on both paths: the classpath (this test's own
 * runtime, through META-INF/services) and a real module path (a {@link ModuleLayer} built from the
 * compiled modules and the driver jars, through {@code provides}).
 */
class ModuleTest {

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void providesTheBackendAndExportsNothing() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(location(RedisLockBackend.class))
                .find("io.distlock.redis").orElseThrow().descriptor();
        // Users get nothing; what the Redis family shares is lock-redis-support's, not this backend's.
        assertThat(descriptor.exports()).isEmpty();
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).hasSize(1);
        ModuleDescriptor.Provides provides = descriptor.provides().iterator().next();
        assertThat(provides.service()).isEqualTo("io.distlock.spi.LockBackend");
        assertThat(provides.providers()).containsExactly(RedisLockBackend.class.getName(), RedissLockBackend.class.getName());
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name).containsExactlyInAnyOrder(
                "java.base", "io.distlock", "io.distlock.redis.support");
    }

    @Test
    void isFoundOnTheClasspath() {
        assertThat(Locks.backends()).as("the schemes of this artifact and what it brings, alone on a classpath")
                .extracting(BackendDescriptor::scheme).containsExactly("redis", "rediss");
        assertThat(Locks.backends()).filteredOn(d -> d.scheme().equals("redis"))
                .singleElement().extracting(BackendDescriptor::guarantee).isEqualTo(Guarantee.EFFICIENCY);
    }

    @Test
    void isFoundOnTheModulePath() throws Exception {
        // The module path a user would have: lock-api, lock-redis-support, this module, jedis and what jedis needs.
        List<String> driverJars = List.of("jedis", "commons-pool2", "slf4j-api", "gson", "json", "redis-authx",
                "error_prone");
        Stream<Path> jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> driverJars.stream().anyMatch(name -> Path.of(entry).getFileName().toString().startsWith(name)))
                .map(Path::of);
        Path[] modulePath = Stream.concat(Stream.of(location(Locks.class), location(Class.forName("io.distlock.redis.support.RedisNode")),
                        location(RedisLockBackend.class)), jars)
                .toArray(Path[]::new);
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(modulePath), ModuleFinder.of(), Set.of("io.distlock"));
        assertThat(configuration.findModule("io.distlock.redis"))
                .as("resolveAndBind pulls the provider in through `uses`").isPresent();
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
        ClassLoader loader = layer.findLoader("io.distlock");
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            List<?> backends = (List<?>) loader.loadClass("io.distlock.Locks").getMethod("backends").invoke(null);
            Map<String, Object> byScheme = backends.stream().collect(Collectors.toMap(d -> {
                try {
                    return (String) d.getClass().getMethod("scheme").invoke(d);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }, d -> d));
            assertThat(byScheme).containsOnlyKeys("redis", "rediss");
            assertThat(byScheme.get("redis").getClass().getModule().getName()).isEqualTo("io.distlock");
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
