package io.distlock;

import io.distlock.spi.DriverContext;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Locks#connect(String, LockOptions)}: a string URI with options, as the other entry points parse and check it. */
class LocksTest {

    /** What the last {@link Recording#connect} was given. */
    static final AtomicReference<URI> SEEN_URI = new AtomicReference<>();
    static final AtomicReference<LockOptions> SEEN_OPTIONS = new AtomicReference<>();

    /** Scheme {@code recording}: remembers its arguments, then fails as an unreachable server does. */
    public static final class Recording implements LockBackend {
        @Override
        public BackendDescriptor descriptor() {
            return new BackendDescriptor("recording", Guarantee.EFFICIENCY, EnumSet.noneOf(Feature.class));
        }

        @Override
        public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
            SEEN_URI.set(uri);
            SEEN_OPTIONS.set(options);
            throw new BackendUnavailableException(uri.getHost() + ":" + uri.getPort(), "recording server is unreachable", null);
        }
    }

    @TempDir
    Path dir;

    @Test
    void aStringUriWithOptionsReachesTheBackendAsGiven() throws IOException {
        LockOptions options = LockOptions.builder().connectTimeout(Duration.ofMillis(750)).build();
        withRecordingProvider(() -> assertThatThrownBy(() -> Locks.connect("recording://user:pw@127.0.0.1:7/x?a=b", options))
                .isInstanceOf(BackendUnavailableException.class));
        assertThat(SEEN_URI.get()).isEqualTo(URI.create("recording://user:pw@127.0.0.1:7/x?a=b"));
        assertThat(SEEN_OPTIONS.get()).isSameAs(options);
    }

    @Test
    void aStringUriWithOptionsIsCheckedLikeTheOthers() {
        LockOptions options = LockOptions.defaults();
        assertThatThrownBy(() -> Locks.connect("redis://user:s3cr3t@host:port with space", options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed URI")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cr3t"));
        assertThatThrownBy(() -> Locks.connect("gopher://h:1", options)).isInstanceOf(NoSuchBackendException.class);
        assertThatThrownBy(() -> Locks.connect((String) null, options)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Locks.connect("redis://h:1", null)).isInstanceOf(NullPointerException.class);
    }

    /** Runs {@code body} with a context class loader that also sees the {@link Recording} provider. */
    private void withRecordingProvider(Runnable body) throws IOException {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(LockBackend.class.getName()), Recording.class.getName() + "\n");
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, previous)) {
            thread.setContextClassLoader(loader);
            body.run();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
