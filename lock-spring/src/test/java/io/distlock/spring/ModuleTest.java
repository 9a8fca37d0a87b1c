package io.distlock.spring;

import io.distlock.Locks;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.integration.support.locks.LockRegistry;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the module's shape, and resolves it on a real module path: lock-api, this module, and the
 * Spring jars as automatic modules under the names their manifests give.
 */
class ModuleTest {

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void exportsTheRegistryAndRequiresSpringByItsAutomaticModuleNames() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(location(DistlockLockRegistry.class))
                .find("io.distlock.spring").orElseThrow().descriptor();
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source).containsExactly("io.distlock.spring");
        assertThat(descriptor.exports()).noneMatch(ModuleDescriptor.Exports::isQualified);
        assertThat(descriptor.packages()).containsExactly("io.distlock.spring");
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).isEmpty();
        assertThat(descriptor.requires().stream().map(r -> r.name() + (r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)
                ? " transitive" : "")).collect(Collectors.toSet())).containsExactlyInAnyOrder(
                "java.base", "io.distlock transitive", "spring.integration.core transitive", "spring.beans transitive",
                "org.apache.commons.logging");
    }

    @Test
    void resolvesOnAModulePath() throws Exception {
        ModuleFinder modulePath = ModuleFinder.of(location(Locks.class), location(DistlockLockRegistry.class),
                location(LockRegistry.class), location(DisposableBean.class), location(LogFactory.class));
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(modulePath, ModuleFinder.of(), Set.of("io.distlock.spring"));
        // Commons Logging is an explicit module that Spring (automatic modules) logs through: resolved
        // only because this module requires it.
        assertThat(configuration.modules()).extracting(m -> m.name()).contains("io.distlock.spring", "io.distlock",
                "spring.integration.core", "spring.beans", "org.apache.commons.logging");
    }
}
