package io.distlock.fenced.jdbc;

import io.distlock.Locks;
import org.junit.jupiter.api.Test;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Pins the module's shape: one exported package, nothing required but the lock API and java.sql. */
class ModuleTest {

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void exportsItsPackageAndNeedsOnlyTheLockApiAndJavaSql() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(location(FencedWrites.class))
                .find("io.distlock.fenced.jdbc").orElseThrow().descriptor();
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactly("io.distlock.fenced.jdbc");
        assertThat(descriptor.exports()).allMatch(e -> !e.isQualified());
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
                .containsExactlyInAnyOrder("java.base", "io.distlock", "java.sql");
        assertThat(descriptor.requires()).filteredOn(r -> !r.name().equals("java.base"))
                .allMatch(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE),
                        "Lease, Connection and SQLException are in its API");
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).isEmpty();
    }

    @Test
    void resolvesOnAModulePathWithTheLockApiAlone() throws Exception {
        Configuration configuration = ModuleLayer.boot().configuration().resolve(
                ModuleFinder.of(location(Locks.class), location(FencedWrites.class)), ModuleFinder.of(),
                Set.of("io.distlock.fenced.jdbc"));
        assertThat(configuration.modules()).extracting(m -> m.name())
                .containsExactlyInAnyOrder("io.distlock", "io.distlock.fenced.jdbc");
    }
}
