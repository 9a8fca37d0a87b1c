package io.distlock.tck;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Pins what the published TCK module shows: its verification and its fixtures, nothing else. */
class ModuleTest {

    @Test
    void exportsTheVerificationAndTheFixturesOnly() throws Exception {
        Path classes = Path.of(LockVerification.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ModuleDescriptor descriptor = ModuleFinder.of(classes).find("io.distlock.tck").orElseThrow().descriptor();
        Set<String> exports = descriptor.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        assertThat(exports).containsExactlyInAnyOrder("io.distlock.tck", "io.distlock.tck.fixtures");
        assertThat(descriptor.exports()).noneMatch(ModuleDescriptor.Exports::isQualified);
        assertThat(descriptor.opens()).extracting(o -> o.source() + " to " + o.targets())
                .as("JUnit reaches the verification's lifecycle methods reflectively, and nothing else is opened")
                .containsExactly("io.distlock.tck to [org.junit.platform.commons]");
        assertThat(descriptor.requires()).filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .extracting(ModuleDescriptor.Requires::name)
                .as("Testcontainers stays optional (only the Docker fixture path uses it), and SLF4J (only rule 6.4's"
                        + " capture, when a build names CapturingSlf4jProvider)")
                .containsExactlyInAnyOrder("testcontainers", "com.github.dockerjava.api", "org.slf4j");
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).isEmpty();
        Set<String> transitive = descriptor.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
        assertThat(transitive).as("a verification subclass sees the contract and JUnit").containsExactlyInAnyOrder(
                "io.distlock", "org.junit.jupiter.api");
    }
}
