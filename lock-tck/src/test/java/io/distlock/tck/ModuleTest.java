package io.distlock.tck;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins what the published TCK module shows: its verification, nothing else. The servers it runs on
 * are another module's (lock-tck-fixtures), so that a backend that wants only the rules gets none.
 */
class ModuleTest {

    @Test
    void exportsTheVerificationOnly() throws Exception {
        Path classes = Path.of(LockVerification.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ModuleDescriptor descriptor = ModuleFinder.of(classes).find("io.distlock.tck").orElseThrow().descriptor();
        Set<String> exports = descriptor.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        assertThat(exports).containsExactly("io.distlock.tck");
        assertThat(descriptor.exports()).noneMatch(ModuleDescriptor.Exports::isQualified);
        assertThat(descriptor.opens()).extracting(o -> o.source() + " to " + o.targets())
                .as("JUnit reaches the verification's lifecycle methods reflectively, and nothing else is opened")
                .containsExactly("io.distlock.tck to [org.junit.platform.commons]");
        assertThat(descriptor.requires()).filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .extracting(ModuleDescriptor.Requires::name)
                .as("SLF4J stays optional (only rule 6.4's capture, when a build names CapturingSlf4jProvider)")
                .containsExactly("org.slf4j");
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).isEmpty();
        Set<String> transitive = descriptor.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
        assertThat(transitive).as("a verification subclass sees the contract and JUnit").containsExactlyInAnyOrder(
                "io.distlock", "org.junit.jupiter.api");
    }
}
