package io.distlock.cli.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Headless Chromium for the tests that look at a report the way a reader does: a screenshot of a page, or
 * its DOM as the browser built it. Each call runs Debian's {@code /usr/bin/chromium} as a child process
 * with a profile of its own, waits for it to exit (60 s at most, then kills it and everything it started),
 * and fails the test if Chromium is missing or fails: a report test must not pass without a browser.
 */
public final class Chromium {

    /** Where Debian's {@code chromium} package puts the browser. */
    public static final Path BINARY = Path.of("/usr/bin/chromium");

    /** How long one run may take; a cold start on a loaded CI machine takes a few seconds. */
    public static final long TIMEOUT_SECONDS = 60;

    /** The window's width for {@link #dumpDom}, px. */
    public static final int DOM_WIDTH = 1280;
    /** The window's height for {@link #dumpDom}, px. */
    public static final int DOM_HEIGHT = 2400;

    private Chromium() {
    }

    /**
     * Renders {@code html} in a {@code width} × {@code height} px window (device scale 1) and saves what
     * the window shows as a PNG.
     *
     * @param html   the page, a local file
     * @param png    where to save the screenshot; its directory is created if needed
     * @param width  the window's width in px, which is the PNG's width
     * @param height the window's height in px, which is the PNG's height
     * @return {@code png}
     * @throws AssertionError if Chromium is missing, fails, times out or writes no screenshot
     */
    public static Path screenshot(Path html, Path png, int width, int height) {
        Path target = png.toAbsolutePath();
        try {
            Files.createDirectories(target.getParent());
            Files.deleteIfExists(target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + target, e);
        }
        run(BINARY, TIMEOUT_SECONDS, List.of("--hide-scrollbars", "--window-size=" + width + "," + height,
                "--screenshot=" + target), html);
        try {
            if (!Files.isRegularFile(target) || Files.size(target) == 0) {
                throw new AssertionError("Chromium exited normally but wrote no screenshot at " + target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return png;
    }

    /**
     * The DOM of {@code html} once Chromium has loaded it (and run its scripts, if it has any), serialized as
     * HTML ({@code --dump-dom}): what the browser parsed, so that a test sees a page the way a reader's
     * browser does, not as the writer meant it. The window is {@value #DOM_WIDTH} × {@value #DOM_HEIGHT} px,
     * as wide as the screenshots, so that a script measuring the layout measures theirs.
     *
     * @param html the page, a local file
     * @return the serialized DOM
     * @throws AssertionError if Chromium is missing, fails, times out or prints nothing
     */
    public static String dumpDom(Path html) {
        String dom = run(BINARY, TIMEOUT_SECONDS, List.of("--window-size=" + DOM_WIDTH + "," + DOM_HEIGHT, "--dump-dom"),
                html);
        if (!dom.contains("<html")) {
            throw new AssertionError("Chromium printed no DOM for " + html + ":\n" + dom);
        }
        return dom;
    }

    /**
     * Runs {@code binary} (Chromium, or a stand-in in ReportChromiumTest) on {@code html} with
     * {@code options}, for {@code timeoutSeconds} at most; its standard output.
     */
    static String run(Path binary, long timeoutSeconds, List<String> options, Path html) {
        if (!Files.isExecutable(binary)) {
            throw new AssertionError("Chromium is not installed at " + binary + ": the report tests render the"
                    + " report in it. Install it (sudo apt-get install -y chromium); the project's test.sh installs it.");
        }
        Path work;
        try {
            work = Files.createTempDirectory("distlock-chromium");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for Chromium", e);
        }
        try {
            List<String> command = new ArrayList<>(List.of(binary.toString(),
                    "--headless=new",
                    // Root in a container has no user namespace for the sandbox; the page is our own file.
                    "--no-sandbox",
                    "--disable-gpu",
                    // A container's /dev/shm is often 64 MB, too small for a tall screenshot.
                    "--disable-dev-shm-usage",
                    "--force-device-scale-factor=1",
                    "--no-first-run",
                    "--no-default-browser-check",
                    "--disable-extensions",
                    "--disable-background-networking",
                    "--disable-sync",
                    "--user-data-dir=" + work.resolve("profile")));
            command.addAll(options);
            command.add(html.toAbsolutePath().toUri().toString());
            Path out = work.resolve("stdout");
            Path err = work.resolve("stderr");
            // Both streams to files rather than pipes: Chromium cannot block on a full pipe while the test
            // waits for it, and stdout is read whole once it has exited.
            Process process = new ProcessBuilder(command).directory(work.toFile()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            boolean exited;
            try {
                exited = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killTree(process);
                throw new AssertionError("interrupted while Chromium rendered " + html, e);
            }
            if (!exited) {
                killTree(process);
                throw new AssertionError("Chromium did not finish " + String.join(" ", options) + " on " + html
                        + " within " + timeoutSeconds + " s; it was killed. Its stderr ends with:\n" + tail(err));
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("Chromium exited with " + process.exitValue() + " on " + html
                        + ". Its stderr ends with:\n" + tail(err));
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + binary, e);
        } finally {
            deleteQuietly(work);
        }
    }

    /**
     * Kills Chromium and every process it started (renderer, GPU, zygote, crash handler): the descendants
     * are listed before the parent dies, since they stop being its descendants once it has.
     */
    private static void killTree(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            // Chromium logs D-Bus complaints in a container; they say nothing about the page.
            List<String> useful = lines.stream().filter(l -> !l.contains("dbus")).toList();
            return String.join("\n", useful.subList(Math.max(0, useful.size() - 30), useful.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    /** Best effort: a Chromium helper that outlives the browser may still hold a file of the profile. */
    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // Left in the temporary directory; the OS cleans it.
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // Idem.
        }
    }
}
