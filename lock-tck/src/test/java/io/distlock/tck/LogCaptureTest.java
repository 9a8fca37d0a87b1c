package io.distlock.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rule 6.4's capture sees every level of both logging systems while it runs, and nothing after.
 * The build runs this module's tests with {@code -Dslf4j.provider=io.distlock.tck.CapturingSlf4jProvider}.
 */
class LogCaptureTest {

    private static final String SECRET_A = "capture-secret-a1";

    @AfterEach
    void stop() {
        LogCapture.stop();
    }

    @Test
    void theBuildNamesTheCapturingProvider() {
        assertThat(CapturingSlf4jProvider.isSlf4jCaptured()).isTrue();
    }

    @Test
    void aSecretInADebugLineOfEitherSystemIsFoundAndMasked() {
        org.slf4j.Logger slf4j = org.slf4j.LoggerFactory.getLogger("capture-test");
        System.Logger jdk = System.getLogger("capture-test");
        assertThat(slf4j.isDebugEnabled()).as("DEBUG is off outside a capture").isFalse();

        LogCapture.start(Set.of(SECRET_A), "test");
        assertThat(slf4j.isTraceEnabled()).isTrue();
        slf4j.debug("connecting with {}", "pw=" + SECRET_A);
        jdk.log(System.Logger.Level.TRACE, "retrying, uri=redis://u:" + SECRET_A + "@h:1");
        slf4j.info("nothing to see");

        assertThat(LogCapture.lines()).isEqualTo(3);
        assertThat(LogCapture.leaks()).hasSize(2)
                .allSatisfy(line -> assertThat(line).doesNotContain(SECRET_A).contains("***"))
                .anySatisfy(line -> assertThat(line).startsWith("SLF4J DEBUG capture-test"))
                .anySatisfy(line -> assertThat(line).startsWith("JUL FINER capture-test"));

        LogCapture.stop();
        assertThat(slf4j.isDebugEnabled()).as("DEBUG is off again").isFalse();
        slf4j.warn("after: " + SECRET_A);
        assertThat(LogCapture.lines()).isEqualTo(3);
    }

    @Test
    void aSecretInAStackTraceIsFound() {
        LogCapture.start(Set.of(SECRET_A), "test");
        org.slf4j.LoggerFactory.getLogger("capture-test").debug("failed",
                new IllegalStateException("wrapped", new RuntimeException("AUTH " + SECRET_A)));
        assertThat(LogCapture.leaks()).hasSize(1);
    }
}
