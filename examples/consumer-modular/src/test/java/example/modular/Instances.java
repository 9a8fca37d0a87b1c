package example.modular;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Service instances as separate JVMs, started together: each runs the nightly job once, reports
 * whether it ran it, and stays up (holding its client) until its standard input is closed.
 */
final class Instances {

    private static final String PREFIX = "nightly-reconciliation: ";

    private Instances() {
    }

    /**
     * @param launch the command that starts one instance, without its URI argument
     * @param uri    the backend
     * @param count  how many instances
     * @param log    where their standard error goes
     * @return each instance's outcome, {@code ran} or {@code skipped}
     */
    static List<String> run(List<String> launch, String uri, int count, Path log) throws Exception {
        List<Process> processes = new ArrayList<>();
        List<CompletableFuture<String>> outcomes = new ArrayList<>();
        ExecutorService readers = Executors.newCachedThreadPool();   // blocking reads: not the common pool
        try {
            for (int i = 0; i < count; i++) {
                List<String> command = new ArrayList<>(launch);
                command.add(uri);
                Process process = new ProcessBuilder(command)
                        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
                processes.add(process);
                outcomes.add(CompletableFuture.supplyAsync(() -> outcome(process, readers), readers));
            }
            List<String> result = new ArrayList<>();
            Duration timeout = Duration.ofSeconds(60).multipliedBy(timeoutFactor());
            for (int i = 0; i < count; i++) {
                try {
                    result.add(outcomes.get(i).get(timeout.toMillis(), TimeUnit.MILLISECONDS));
                } catch (TimeoutException | ExecutionException e) {
                    throw new AssertionError("instance " + (i + 1) + " of " + count + " on " + uri
                            + " reported no outcome (its standard error is in " + log + ")", e);
                }
            }
            for (Process process : processes) {
                process.getOutputStream().close();      // the instances end, closing their clients
            }
            for (Process process : processes) {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
                    throw new AssertionError("an instance on " + uri + " did not exit cleanly (see " + log + ")");
                }
            }
            return result;
        } finally {
            processes.forEach(Process::destroyForcibly);
            readers.shutdownNow();
        }
    }

    /** The outcome line of one instance; its other output is ignored. */
    private static String outcome(Process process, ExecutorService readers) {
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(PREFIX)) {
                    String outcome = line.substring(PREFIX.length());
                    readers.execute(() -> drain(out));
                    return outcome;
                }
            }
            throw new IllegalStateException("the instance exited without an outcome (exit value " + process.waitFor() + ")");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // keep the pipe from filling
            }
        } catch (IOException ignored) {
            // the process is gone
        }
    }

    private static long timeoutFactor() {
        return Math.max(1, Math.round(Double.parseDouble(System.getProperty("distlock.tck.timeoutFactor", "1"))));
    }
}
