package io.distlock;

import org.junit.jupiter.api.Test;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Pins what the module shows the world: exports, uses, provides, requires. */
class ModuleTest {

    static ModuleFinder compiledModule() throws Exception {
        Path classes = Path.of(Locks.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return ModuleFinder.of(classes);
    }

    @Test
    void exportsOnlyTheApiAndTheSpi() throws Exception {
        ModuleDescriptor descriptor = compiledModule().find("io.distlock").orElseThrow().descriptor();
        Set<String> exports = descriptor.exports().stream()
                .map(e -> e.isQualified() ? e.source() + " to " + e.targets() : e.source())
                .collect(Collectors.toSet());
        assertThat(exports).containsExactlyInAnyOrder("io.distlock", "io.distlock.spi");
        assertThat(descriptor.packages()).containsExactlyInAnyOrder("io.distlock", "io.distlock.spi", "io.distlock.engine");
        assertThat(descriptor.uses()).containsExactly("io.distlock.spi.LockBackend");
        assertThat(descriptor.provides()).isEmpty();
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name).containsExactly("java.base");
        assertThat(descriptor.isOpen()).isFalse();
    }

    @Test
    void resolvesOnAModulePathWithTheJdkAlone() throws Exception {
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(compiledModule(), ModuleFinder.of(), Set.of("io.distlock"));
        assertThat(configuration.findModule("io.distlock")).isPresent();
    }
}
