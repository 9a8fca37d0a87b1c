package io.distlock.cli.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The {@link Chromium} helper's own failures, with stand-ins for the browser: a report test must fail, not
 * skip, without Chromium, and a browser that hangs must not outlive the test, nor anything it started.
 */
class ReportChromiumTest {

    @TempDir
    Path dir;

    @Test
    void withoutChromiumTheTestFailsAndSaysHowToInstallIt() throws IOException {
        Path missing = dir.resolve("no-such-chromium");

        assertThatThrownBy(() -> Chromium.run(missing, 5, List.of("--dump-dom"), page()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Chromium is not installed at " + missing)
                .hasMessageContaining("apt-get install -y chromium");
    }

    @Test
    void aChromiumThatFailsFailsTheTestWithWhatItSaid() throws IOException {
        Path failing = standIn("echo 'cannot open display' >&2\nexit 3\n");

        assertThatThrownBy(() -> Chromium.run(failing, 30, List.of("--dump-dom"), page()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("exited with 3")
                .hasMessageContaining("cannot open display");
    }

    @Test
    void aChromiumThatHangsIsKilledWithEverythingItStarted() throws IOException {
        // The stand-in starts a child, as Chromium starts its renderer and GPU processes, then waits for it.
        Path childPid = dir.resolve("child.pid");
        Path hanging = standIn("sleep 600 &\necho $! > '" + childPid + "'\nwait\n");

        assertThatThrownBy(() -> Chromium.run(hanging, 2, List.of("--dump-dom"), page()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("did not finish")
                .hasMessageContaining("it was killed");

        long child = Long.parseLong(Files.readString(childPid).strip());
        await().atMost(Duration.ofSeconds(10)).until(() -> !running(child));
    }

    @Test
    void theDomIsWhatChromiumPrints() throws IOException {
        Path printing = standIn("echo '<html><head></head><body>hi</body></html>'\n");

        assertThat(Chromium.run(printing, 30, List.of("--dump-dom"), page())).contains("<body>hi</body>");
    }

    private Path page() throws IOException {
        return Files.writeString(dir.resolve("page.html"), "<!DOCTYPE html><title>t</title><p>hi</p>");
    }

    private Path standIn(String body) throws IOException {
        Path script = dir.resolve("chromium-" + Integer.toHexString(body.hashCode()));
        Files.writeString(script, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    /**
     * Whether the process is still running: gone, or a zombie (killed, its parent gone too, and nobody in a
     * container's init to reap it), is not running.
     */
    private static boolean running(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return false;
        }
        String s;
        try {
            s = Files.readString(stat);
        } catch (IOException vanished) {
            return false;
        }
        // "pid (comm) S ...": the state follows the command's closing parenthesis.
        char state = s.charAt(s.lastIndexOf(')') + 2);
        return state != 'Z' && state != 'X';
    }
}
