package io.distlock.zookeeper;

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
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Pins the module's shape, and proves discovery on the classpath (this test's runtime) and
 * resolution on a real module path (a {@link ModuleLayer} from the compiled modules and the driver
 * jars) — including that ZooKeeper's split package is why the jute jar cannot sit beside it.
 */
class ModuleTest {

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void providesTheBackendAndExportsNothing() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(location(ZooKeeperLockBackend.class))
                .find("io.distlock.zookeeper").orElseThrow().descriptor();
        assertThat(descriptor.exports()).isEmpty();
        assertThat(descriptor.uses()).isEmpty();
        assertThat(descriptor.provides()).hasSize(1);
        ModuleDescriptor.Provides provides = descriptor.provides().iterator().next();
        assertThat(provides.service()).isEqualTo("io.distlock.spi.LockBackend");
        assertThat(provides.providers()).containsExactly(ZooKeeperLockBackend.class.getName());
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name).containsExactlyInAnyOrder(
                "java.base", "io.distlock", "curator.framework", "curator.client", "zookeeper", "io.netty.handler",
                "io.netty.transport.classes.epoll", "org.slf4j");
    }

    @Test
    void isFoundOnTheClasspath() {
        assertThat(Locks.backends()).filteredOn(d -> d.scheme().equals("zookeeper"))
                .singleElement().extracting(BackendDescriptor::guarantee).isEqualTo(Guarantee.CORRECTNESS);
    }

    /** Netty, for tls=true: the TLS handler and what it needs, and the epoll classes ZooKeeper loads. */
    private static final List<String> NETTY = List.of("netty-handler", "netty-common", "netty-buffer", "netty-transport",
            "netty-resolver", "netty-codec-base", "netty-transport-native-unix-common", "netty-transport-classes-epoll");

    private static Stream<Path> jars(List<String> names) {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> names.stream().anyMatch(name -> Path.of(entry).getFileName().toString().matches(name + "-[0-9].*")))
                .map(Path::of);
    }

    @Test
    void resolvesOnTheModulePathWithoutTheJuteJar() throws Exception {
        // What a module-path user has: lock-api, this module, Curator and ZooKeeper (jute patched in
        // with --patch-module at run time, so not on the module path).
        List<String> driverJars = Stream.concat(Stream.of("curator-framework", "curator-client", "zookeeper", "slf4j-api", "guava",
                "failureaccess", "audience-annotations", "commons-io"), NETTY.stream()).toList();
        Path[] modulePath = Stream.concat(Stream.of(location(Locks.class), location(ZooKeeperLockBackend.class)),
                jars(driverJars)).toArray(Path[]::new);
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(modulePath), ModuleFinder.of(), Set.of("io.distlock"));
        assertThat(configuration.findModule("io.distlock.zookeeper"))
                .as("resolveAndBind pulls the provider in through `uses`").isPresent();
        assertThat(configuration.findModule("org.slf4j"))
                .as("Curator and ZooKeeper (automatic modules) log through SLF4J, an explicit module nothing else requires")
                .isPresent();
    }

    @Test
    void nettyForTlsResolvesOnTheModulePathBesideZooKeeper() throws Exception {
        // tls=true uses ZooKeeper's Netty socket: Netty's jars are named modules, resolved only when
        // required; ZooKeeper (automatic) cannot require them, this module does on its behalf.
        List<String> jars = Stream.concat(Stream.of("curator-framework", "curator-client", "zookeeper", "slf4j-api", "guava",
                "failureaccess", "audience-annotations", "commons-io"), NETTY.stream()).toList();
        Path[] modulePath = Stream.concat(Stream.of(location(Locks.class), location(ZooKeeperLockBackend.class)),
                jars(jars)).toArray(Path[]::new);
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(modulePath), ModuleFinder.of(), Set.of("io.distlock"));
        assertThat(configuration.findModule("io.netty.handler")).as("Netty's TLS handler").isPresent();
        assertThat(configuration.findModule("io.netty.transport.classes.epoll")).as("the epoll classes ZooKeeper loads").isPresent();
    }

    @Test
    void theJuteJarBesideZooKeeperSplitsAPackage() throws Exception {
        Path[] modulePath = Stream.concat(Stream.of(location(Locks.class), location(ZooKeeperLockBackend.class)),
                jars(Stream.concat(Stream.of("curator-framework", "curator-client", "zookeeper", "zookeeper-jute", "slf4j-api", "guava",
                        "failureaccess", "audience-annotations", "commons-io"), NETTY.stream()).toList())).toArray(Path[]::new);
        assertThatThrownBy(() -> ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(modulePath), ModuleFinder.of(), Set.of("io.distlock")))
                .as("why the README says --patch-module zookeeper=zookeeper-jute.jar")
                .hasMessageContaining("org.apache.zookeeper");
    }
}
