package io.distlock.etcd;

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
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the module's shape, and proves discovery on the classpath (this test's runtime) and
 * resolution on a real module path: a {@link ModuleLayer} from lock-api, this module and every jar
 * of its runtime classpath but the test tools — what a module-path user has (jetcd, gRPC, Netty and
 * the rest as automatic modules).
 */
class ModuleTest {

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void providesTheBackendAndExportsNothing() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(location(EtcdLockBackend.class))
                .find("io.distlock.etcd").orElseThrow().descriptor();
        assertThat(descriptor.exports()).isEmpty();
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).hasSize(1);
        ModuleDescriptor.Provides provides = descriptor.provides().iterator().next();
        assertThat(provides.service()).isEqualTo("io.distlock.spi.LockBackend");
        assertThat(provides.providers()).containsExactly(EtcdLockBackend.class.getName());
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name).containsExactlyInAnyOrder(
                "java.base", "io.distlock", "jetcd.core", "jetcd.api", "jetcd.common", "io.grpc", "io.grpc.stub", "io.netty.handler",
                "com.google.common", "dev.failsafe.core", "io.vertx.core", "io.netty.codec.http2", "io.netty.handler.proxy",
                "io.netty.transport.unix.common", "org.slf4j");
    }

    @Test
    void isFoundOnTheClasspath() {
        assertThat(Locks.backends()).filteredOn(d -> d.scheme().equals("etcd"))
                .singleElement().extracting(BackendDescriptor::guarantee).isEqualTo(Guarantee.CORRECTNESS);
    }

    @Test
    void resolvesOnTheModulePath() throws Exception {
        // The test classpath minus what only the tests use: the driver's whole runtime closure.
        Stream<Path> driverJars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of)
                .filter(path -> path.getFileName().toString().endsWith(".jar"))
                .filter(path -> !path.toString().matches(".*(junit|opentest4j|apiguardian|assertj|awaitility|hamcrest"
                        + "|archunit|lock-tck|slf4j-simple|surefire|byte-buddy|testcontainers|docker|jna|commons-compress"
                        + "|duct-tape|jackson-annotations).*"));
        Path[] modulePath = Stream.concat(Stream.of(location(Locks.class), location(EtcdLockBackend.class)), driverJars)
                .toArray(Path[]::new);
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(modulePath), ModuleFinder.of(), Set.of("io.distlock"));
        assertThat(configuration.findModule("io.distlock.etcd"))
                .as("resolveAndBind pulls the provider in through `uses`").isPresent();
    }
}
