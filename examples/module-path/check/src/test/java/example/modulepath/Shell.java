package example.modulepath;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a README's shell commands as a user pastes them: {@code bash -c} in a given directory, with
 * standard input closed (a consumer that waits for its input to end then ends too) and both outputs
 * kept in {@code target/commands/}. {@code mvn} on the {@code PATH} is the repository's Maven
 * wrapper, with the caller's {@code MAVEN_ARGS} (the local repository the artifacts were installed in).
 */
final class Shell {

    private static final Path LOGS = Path.of("target", "commands").toAbsolutePath();
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static Path mavenShim;

    private Shell() {
    }

    /** What a finished command did. */
    record Result(String command, int exitCode, String out, String err) {
        /** @return the command and both its outputs, for an assertion's message */
        String describe() {
            return "$ " + command + "\nexit code " + exitCode + "\n--- standard output\n" + out + "--- standard error\n" + tail(err);
        }

        private static String tail(String text) {
            return text.length() <= 6000 ? text : "…" + text.substring(text.length() - 6000);
        }
    }

    /**
     * Runs {@code script} to its end.
     *
     * @param directory where it runs
     * @param script    one or more commands
     * @param timeout   how long it may take (scaled by {@code distlock.tck.timeoutFactor})
     * @return its exit code and outputs
     * @throws AssertionError if it does not end in time (it is then killed)
     */
    static Result run(Path directory, String script, Duration timeout) {
        Started started = start(directory, script);
        try {
            if (!started.process.waitFor(scaled(timeout).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("still running after " + scaled(timeout) + ", killed: " + started.result(-1).describe());
            }
            return started.result(started.process.exitValue());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } finally {
            started.close();
        }
    }

    /**
     * Starts {@code script} and leaves it running (a server in the foreground).
     *
     * @param directory where it runs
     * @param script    the commands
     * @return the running script; {@link Started#close()} ends it and every process it started
     */
    static Started start(Path directory, String script) {
        try {
            Files.createDirectories(LOGS);
            int n = COUNT.incrementAndGet();
            Path out = LOGS.resolve(n + ".out");
            Path err = LOGS.resolve(n + ".err");
            ProcessBuilder builder = new ProcessBuilder(List.of("bash", "-c", script))
                    .directory(directory.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().put("PATH", mavenShim() + ":" + System.getenv("PATH"));
            Process process = builder.start();
            process.getOutputStream().close();
            return new Started(script, process, out, err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A script that was started; closing it ends it and every process it started.
     *
     * @param script  the commands
     * @param process the {@code bash} running them
     * @param out     where its standard output goes
     * @param err     where its standard error goes
     */
    record Started(String script, Process process, Path out, Path err) implements AutoCloseable {

        /** @return true while the script runs */
        boolean isAlive() {
            return process.isAlive();
        }

        /**
         * @param exitCode the exit code to report
         * @return what it printed so far
         */
        Result result(int exitCode) {
            try {
                return new Result(script, exitCode, Files.readString(out), Files.readString(err));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            List<ProcessHandle> processes = process.descendants().toList();
            processes.forEach(ProcessHandle::destroy);
            process.destroy();
            for (ProcessHandle handle : processes) {
                handle.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(timedOut -> {
                    handle.destroyForcibly();
                    return handle;
                }).join();
            }
        }
    }

    /** @return a directory holding {@code mvn}: the repository's wrapper */
    private static synchronized Path mavenShim() throws IOException {
        if (mavenShim == null) {
            Path directory = Files.createDirectories(Path.of("target", "maven-shim").toAbsolutePath());
            Path mvn = directory.resolve("mvn");
            Files.writeString(mvn, "#!/bin/sh\nexec '" + Readme.ROOT.resolve("mvnw") + "' -B --no-transfer-progress \"$@\"\n");
            Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
            mavenShim = directory;
        }
        return mavenShim;
    }

    /**
     * @param timeout a bound
     * @return the bound times {@code distlock.tck.timeoutFactor}
     */
    static Duration scaled(Duration timeout) {
        return timeout.multipliedBy(Math.max(1, Math.round(Double.parseDouble(System.getProperty("distlock.tck.timeoutFactor", "1")))));
    }
}
