package io.distlock.micrometer;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Pins the module's shape: it reads the contract and Micrometer, and exports the listener. */
class ModuleTest {

    @Test
    void exportsTheListenerAndNeedsOnlyTheContractAndMicrometer() throws Exception {
        Path jar = Path.of(MicrometerLockListener.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ModuleDescriptor descriptor = ModuleFinder.of(jar).find("io.distlock.micrometer").orElseThrow().descriptor();
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source).containsExactly("io.distlock.micrometer");
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
                .containsExactlyInAnyOrder("java.base", "io.distlock", "micrometer.core");
    }
}
