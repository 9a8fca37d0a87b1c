package io.distlock.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The distribution's real launcher, {@code bin/distlock}, run as a person runs it: a child process with
 * its own environment, standard input closed (no terminal), output captured. The distribution is
 * built before the tests ({@code process-test-classes}); its home comes from {@code distlock.cli.home}.
 */
public final class Distlock {

    /** @return the unpacked distribution's home (bin/ and lib/) */
    public static Path home() {
        String home = System.getProperty("distlock.cli.home");
        if (home == null) {
            throw new IllegalStateException("distlock.cli.home is not set: run the tests through Maven (lock-cli's pom sets it)");
        }
        Path path = Path.of(home);
        if (!Files.isExecutable(path.resolve("bin/distlock"))) {
            throw new IllegalStateException(path + "/bin/distlock is missing: the distribution is built at process-test-classes");
        }
        return path;
    }

    private final Map<String, String> environment = new HashMap<>();

    private Distlock() {
    }

    /** @return a launcher whose child gets this JVM's environment, without distlock's credential variables */
    public static Distlock launcher() {
        Distlock d = new Distlock();
        d.environment.put("JAVA_HOME", System.getProperty("java.home"));
        return d;
    }

    /** Sets an environment variable of the child (DISTLOCK_PASSWORD, DISTLOCK_CLASSPATH, ...). */
    public Distlock env(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /**
     * Runs {@code bin/distlock args...} on a terminal, as a person at one does: util-linux's {@code script}
     * gives it a pseudo-terminal, and {@code typed} is what the person types.
     */
    public Result runOnTerminal(String typed, Duration timeout, String... args) {
        StringBuilder line = new StringBuilder(quote(home().resolve("bin/distlock").toString()));
        for (String arg : args) {
            line.append(' ').append(quote(arg));
        }
        Running running = launch(List.of("script", "--quiet", "--return", "--command", line.toString(), "/dev/null"),
                ProcessBuilder.Redirect.PIPE);
        try (var in = running.process.getOutputStream()) {
            in.write(typed.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return running.await(timeout);
    }

    private static String quote(String arg) {
        return "'" + arg.replace("'", "'\\''") + "'";
    }

    /** Starts {@code bin/distlock args...}; the caller waits for it or signals it. */
    public Running start(String... args) {
        List<String> command = new ArrayList<>();
        command.add(home().resolve("bin/distlock").toString());
        command.addAll(List.of(args));
        return launch(command, ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    }

    private Running launch(List<String> command, ProcessBuilder.Redirect input) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectInput(input);
        builder.environment().remove("DISTLOCK_PASSWORD");
        builder.environment().remove("DISTLOCK_USER");
        builder.environment().remove("DISTLOCK_CLASSPATH");
        builder.environment().putAll(environment);
        try {
            return new Running(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code bin/distlock args...} to its end (at most {@code timeout}). */
    public Result run(Duration timeout, String... args) {
        return start(args).await(timeout);
    }

    /** Runs it with a timeout of two minutes. */
    public Result run(String... args) {
        return run(Duration.ofMinutes(2), args);
    }

    /** A launched command: its output is read as it comes, so that it never blocks on a full pipe. */
    public static final class Running {
        public final Process process;
        private final CompletableFuture<String> out;
        private final CompletableFuture<String> err;
        private final StringBuffer outSoFar = new StringBuffer();

        Running(Process process) {
            this.process = process;
            this.out = read(process.getInputStream(), outSoFar);
            this.err = read(process.getErrorStream(), new StringBuffer());
        }

        private static CompletableFuture<String> read(InputStream in, StringBuffer into) {
            return CompletableFuture.supplyAsync(() -> {
                byte[] buffer = new byte[8192];
                try (in) {
                    java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
                    int n;
                    while ((n = in.read(buffer)) > 0) {
                        all.write(buffer, 0, n);
                        into.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                    }
                    return all.toString(StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return into.toString();
                }
            });
        }

        /** @return what it printed on standard output so far */
        public String outputSoFar() {
            return outSoFar.toString();
        }

        /** Sends SIGINT, as Ctrl-C on a terminal does. */
        public void interrupt() {
            try {
                new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** What the JVM that the launcher became is doing (jcmd Thread.print): for the failure message of a command that hangs. */
        private static String threadDump(long pid) {
            try {
                Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
                CompletableFuture<String> dump = CompletableFuture.supplyAsync(() -> {
                    try (InputStream in = jcmd.getInputStream()) {
                        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    } catch (IOException e) {
                        return "(unreadable: " + e + ")";
                    }
                });
                if (!jcmd.waitFor(20, TimeUnit.SECONDS)) {
                    jcmd.destroyForcibly();
                }
                return dump.get(5, TimeUnit.SECONDS);
            } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                return "(no thread dump: " + e + ")";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "(no thread dump: interrupted)";
            }
        }

        /** Waits for the end; kills the process (and fails) if it takes longer than {@code timeout}. */
        public Result await(Duration timeout) {
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    String threads = threadDump(process.pid());
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    throw new AssertionError("bin/distlock did not end within " + timeout + "; its output so far:\n" + outSoFar
                            + "\nits threads then:\n" + threads);
                }
                return new Result(process.exitValue(), out.get(30, TimeUnit.SECONDS), err.get(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IllegalStateException(e);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * @param exitCode the process's exit code
     * @param out      its standard output
     * @param err      its standard error
     */
    public record Result(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }
}
