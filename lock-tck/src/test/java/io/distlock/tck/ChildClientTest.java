package io.distlock.tck;

import io.distlock.BackendUnavailableException;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client in a separate process: a real child JVM, on the reference backend of its own JVM
 * ({@code memory://<server>} without a gateway: the child's server is its own).
 */
class ChildClientTest {

    private final TestEnvironment env = new TestEnvironment();

    private ChildClient launch(String uri) {
        return ChildClient.launch(SeparateProcess.of(uri), env, text -> "[test] " + text, "C");
    }

    @Test
    void grantsReleasesAndEndsWhenClosed() {
        ProcessHandle process;
        try (ChildClient child = launch("memory://child-grants")) {
            process = ProcessHandle.of(child.pid()).orElseThrow();
            assertThat(process.pid()).isNotEqualTo(ProcessHandle.current().pid());

            ChildClient.Grant first = child.tryAcquire("a lock", Duration.ofSeconds(10), null).orElseThrow();
            assertThat(first.token()).hasValue(1);
            assertThat(first.receivedAtNanos() - first.sentAtNanos()).isPositive();
            assertThat(first.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
            assertThat(child.tryAcquire("a lock", Duration.ofSeconds(10), Duration.ofMillis(20)))
                    .as("the child's own lease is held: its waiting attempt is contention").isEmpty();

            child.release(first);
            ChildClient.Grant second = child.tryAcquire("a lock", Duration.ofSeconds(10), null).orElseThrow();
            assertThat(second.token()).hasValue(2);
            assertThat(child).hasToString("C (separate process, pid " + process.pid() + "): memory client, 2 grants, tokens 1..2");
        }
        assertThat(process.onExit()).succeedsWithin(Duration.ofSeconds(10));
    }

    @Test
    void aFailedConnectShowsTheChildsStandardError() {
        try (ChildClient child = launch("nosuch://x")) {
            assertThatThrownBy(child::connect).isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("[test] C (separate process, pid " + child.pid() + ") failed to connect:"
                            + " io.distlock.NoSuchBackendException")
                    .hasMessageContaining("--- its standard error, last lines ---")
                    .hasMessageContaining("at io.distlock.tck.ChildClientMain");
        }
    }

    @Test
    void anUnreachableServerIsABackendUnavailableException() {
        try (ChildClient child = launch("memory://down-child")) {
            assertThatThrownBy(child::connect).isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("the server is down")
                    .hasMessageContaining("(in the client in a separate process, pid " + child.pid() + ")");
        }
    }

    /** The parent's end: a child whose standard input closes (its parent died or is done) ends by itself. */
    @Test
    void aChildEndsWhenItsInputCloses() throws Exception {
        Process process = new ProcessBuilder(ChildClient.command()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("started " + process.pid());
            process.getOutputStream().write("connect uri=memory%3A%2F%2Fchild-orphan connectTimeout=1000000000"
                    .concat(" operationTimeout=1000000000 clockDriftFactor=0.01 clockDriftMinimum=2000000")
                    .concat(" minRetryBackoff=5000000 maxRetryBackoff=100000000\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
            assertThat(out.readLine()).isEqualTo("connected memory");

            process.getOutputStream().close();

            assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("the child ended once its input closed").isTrue();
            assertThat(Optional.ofNullable(out.readLine())).as("nothing more on its output").isEmpty();
        } finally {
            process.destroyForcibly();
        }
    }
}
