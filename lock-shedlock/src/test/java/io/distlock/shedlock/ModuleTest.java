package io.distlock.shedlock;

import io.distlock.Locks;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the module's shape, and proves that it resolves on a real module path: lock-api, this
 * module, ShedLock's core (a named module since 7.x, {@code net.javacrumbs.shedlock.core}) and
 * SLF4J, without JSpecify (which ShedLock requires only statically).
 */
class ModuleTest {

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void exportsItsPackageAndRequiresTheApiAndShedLockTransitively() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(location(DistlockLockProvider.class))
                .find("io.distlock.shedlock").orElseThrow().descriptor();
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source).containsExactly("io.distlock.shedlock");
        assertThat(descriptor.provides()).isEmpty();
        assertThat(descriptor.requires()).filteredOn(r -> !r.name().equals("java.base"))
                .extracting(ModuleDescriptor.Requires::name)
                .containsExactlyInAnyOrder("io.distlock", "net.javacrumbs.shedlock.core");
        assertThat(descriptor.requires()).filteredOn(r -> !r.name().equals("java.base"))
                .allMatch(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE));
    }

    @Test
    void resolvesOnTheModulePath() throws Exception {
        ModuleFinder modulePath = ModuleFinder.of(location(Locks.class), location(DistlockLockProvider.class),
                location(LockProvider.class), location(Logger.class));
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(modulePath, ModuleFinder.of(), Set.of("io.distlock.shedlock"));
        assertThat(configuration.findModule("net.javacrumbs.shedlock.core")).isPresent();
        assertThat(configuration.findModule("org.jspecify")).isEmpty();
    }
}
