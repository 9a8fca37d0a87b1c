package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.NoSuchBackendException;
import io.distlock.spi.LockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DiscoveryTest {

    @TempDir
    Path dir;

    /** Runs {@code body} with a context class loader that sees exactly the given providers. */
    private <T> T withProviders(List<Class<? extends LockBackend>> providers, Callable<T> body) throws Exception {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        StringBuilder lines = new StringBuilder();
        providers.forEach(p -> lines.append(p.getName()).append('\n'));
        Files.writeString(services.resolve(LockBackend.class.getName()), lines);
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, previous)) {
            thread.setContextClassLoader(loader);
            return body.call();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Test
    void unknownSchemeListsInstalledSchemesAndNamesTheArtifact() throws Exception {
        withProviders(List.of(TestBackends.Alpha.class), () -> {
            assertThatThrownBy(() -> Locks.connect("zookeeper://127.0.0.1:1"))
                    .isInstanceOfSatisfying(NoSuchBackendException.class, e -> {
                        assertThat(e.scheme()).isEqualTo("zookeeper");
                        assertThat(e.installedSchemes()).containsExactly("alpha");
                    })
                    .hasMessageContaining("'zookeeper'")
                    .hasMessageContaining("[alpha]")
                    .hasMessageContaining("io.distlock:lock-zookeeper");
            assertThatThrownBy(() -> Locks.connect("gopher://x"))
                    .isInstanceOf(NoSuchBackendException.class)
                    .hasMessageContaining("knows no backend");
            // Tair was planned until lock-tair was published: now its artifact is advised like any other.
            assertThatThrownBy(() -> Locks.connect("tair://127.0.0.1:6379"))
                    .isInstanceOf(NoSuchBackendException.class)
                    .hasMessageContaining("io.distlock:lock-tair")
                    .hasMessageNotContaining("planned");
            return null;
        });
    }

    @Test
    void theArtifactsAdvisedAreExactlyTheBackendsTheBomManages() throws IOException {
        String bom = Files.readString(Path.of("..", "bom", "pom.xml"));
        java.util.Set<String> backends = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<artifactId>(lock-[^<]+)</artifactId>").matcher(bom);
        while (m.find()) {
            // A backend is an artifact whose module provides one; the integrations (metrics,
            // ShedLock, Spring, the fenced write) and the API and TCK are advised for no scheme.
            Path moduleInfo = Path.of("..", m.group(1), "src", "main", "java", "module-info.java");
            if (Files.exists(moduleInfo) && Files.readString(moduleInfo).contains("provides io.distlock.spi.LockBackend")) {
                backends.add("io.distlock:" + m.group(1));
            }
        }
        assertThat(backends).as("the BOM's backends, found by their module-info").contains("io.distlock:lock-redis-single");
        assertThat(new java.util.TreeSet<>(Discovery.PUBLISHED_ARTIFACTS.values())).isEqualTo(backends);
        for (String scheme : Discovery.PLANNED_BACKENDS.keySet()) {
            assertThat(Discovery.PUBLISHED_ARTIFACTS).as("a scheme is planned or published, not both").doesNotContainKey(scheme);
        }
    }

    @Test
    void twoProvidersForOneSchemeAreNamedBoth() throws Exception {
        withProviders(List.of(TestBackends.Alpha.class, TestBackends.AlphaTwin.class), () -> {
            assertThatThrownBy(() -> Locks.connect("alpha://h:1"))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("two distlock backends claim scheme 'alpha'")
                    .hasMessageContaining(TestBackends.Alpha.class.getName())
                    .hasMessageContaining(TestBackends.AlphaTwin.class.getName());
            assertThatThrownBy(Locks::backends).hasMessageContaining("two distlock backends");
            return null;
        });
    }

    @Test
    void aProviderThatFailsToLoadIsAnErrorCarryingTheCause() throws Exception {
        withProviders(List.of(TestBackends.Alpha.class, TestBackends.Broken.class), () -> {
            assertThatThrownBy(() -> Locks.connect("alpha://h:1"))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("failed to load")
                    .hasMessageContaining(TestBackends.Broken.class.getName())
                    .hasRootCauseMessage("driver jar missing");
            return null;
        });
    }

    @Test
    void backendsListsDescriptorsAndSchemeIsCaseInsensitive() throws Exception {
        withProviders(List.of(TestBackends.Alpha.class), () -> {
            assertThat(Locks.backends()).extracting(d -> d.scheme()).containsExactly("alpha");
            assertThatThrownBy(() -> Locks.connect("ALPHA://10.255.255.1:7"))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("10.255.255.1:7");
            return null;
        });
    }

    @Test
    void connectionFailuresKeepTheirTypeAndNeverShowThePassword() throws Exception {
        withProviders(List.of(TestBackends.Alpha.class), () -> {
            assertThatThrownBy(() -> Locks.connect(URI.create("alpha://user:hunter2@127.0.0.1:9"), LockOptions.defaults()))
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2"));
            return null;
        });
    }

    @Test
    void malformedUrisAreRejectedWithoutEchoingThePassword() {
        assertThatThrownBy(() -> Locks.connect("redis://user:s3cr3t@host:port with space"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed URI")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cr3t"));
        assertThatThrownBy(() -> Locks.connect("//127.0.0.1:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no scheme");
        assertThatThrownBy(() -> Locks.connect("127.0.0.1:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed URI");
        assertThatThrownBy(() -> Locks.connect((String) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Locks.connect(URI.create("redis://h:1"), null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void redactionHidesPasswordsInUserInfoAndQuery() throws IOException {
        assertThat(Redaction.redact("redis://alice:pw@h:1/0")).isEqualTo("redis://alice:***@h:1/0");
        assertThat(Redaction.redact("redis://:pw@h:1")).isEqualTo("redis://:***@h:1");
        assertThat(Redaction.redact("etcd://h:1?password=pw&x=1")).isEqualTo("etcd://h:1?password=***&x=1");
        assertThat(Redaction.redact("redis://h:1")).isEqualTo("redis://h:1");
    }

    @Test
    void redactionHidesTheTlsStorePasswordsOfARedissUri() {
        String redacted = Redaction.redact("rediss://bob:s3cret@h:1?trustStore=/t.p12&trustStorePassword=tpw1"
                + "&keyStore=/k.p12&keyStorePassword=kpw2&poolSize=2");
        assertThat(redacted).isEqualTo("rediss://bob:***@h:1?trustStore=/t.p12&trustStorePassword=***"
                + "&keyStore=/k.p12&keyStorePassword=***&poolSize=2");
        assertThat(redacted).doesNotContain("s3cret", "tpw1", "kpw2");
    }
}
