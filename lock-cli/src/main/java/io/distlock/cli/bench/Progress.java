package io.distlock.cli.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the bench says while it runs. On a terminal, a bar per stage, redrawn in place ({@code \r})
 * ten times a second, within 80 columns; elsewhere (a pipe, a log, a test) one plain line when a stage
 * starts, so that the output reads the same later: {@code uncontended + raw floor: measuring 6.7 s ...}.
 */
public abstract class Progress implements AutoCloseable {

    private Progress() {
    }

    /**
     * @param out     where to write
     * @param inPlace true on a terminal: bars redrawn in place; false: plain lines
     * @return the progress display
     */
    public static Progress to(PrintWriter out, boolean inPlace) {
        return inPlace ? new Bar(out) : new Lines(out);
    }

    /**
     * A stage begins (and the previous one, if any, ends).
     *
     * @param phase  what runs ("contended, 4 clients")
     * @param stage  what it does now ("warming up", "measuring")
     * @param length how long it should take
     */
    public abstract void stage(String phase, String stage, Duration length);

    /** A line of its own (a header, a skipped floor's reason); ends a bar in progress first. */
    public abstract void note(String line);

    /** Ends the stage in progress, if any. */
    public abstract void end();

    /** Ends the stage in progress and stops redrawing. Idempotent. */
    @Override
    public abstract void close();

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1_000.0);
    }

    private static final class Lines extends Progress {
        private final PrintWriter out;

        Lines(PrintWriter out) {
            this.out = out;
        }

        @Override
        public synchronized void stage(String phase, String stage, Duration length) {
            out.println(phase + ": " + stage + " " + seconds(length) + " ...");
            out.flush();
        }

        @Override
        public synchronized void note(String line) {
            out.println(line);
            out.flush();
        }

        @Override
        public void end() {
        }

        @Override
        public void close() {
        }
    }

    private static final class Bar extends Progress {
        private static final int WIDTH = 24;
        private final PrintWriter out;
        private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "distlock-bench-progress");
            t.setDaemon(true);
            return t;
        });
        private String label;
        private long startNanos;
        private long lengthNanos;

        Bar(PrintWriter out) {
            this.out = out;
            ticker.scheduleAtFixedRate(this::draw, 100, 100, TimeUnit.MILLISECONDS);
        }

        @Override
        public synchronized void stage(String phase, String stage, Duration length) {
            end();
            label = phase + ": " + stage;
            startNanos = System.nanoTime();
            lengthNanos = Math.max(1, length.toNanos());
            draw();
        }

        private synchronized void draw() {
            if (label == null) {
                return;
            }
            long elapsed = System.nanoTime() - startNanos;
            double done = Math.min(1.0, (double) elapsed / lengthNanos);
            int filled = (int) Math.round(done * WIDTH);
            out.print(String.format(Locale.ROOT, "\r%-36s [%s%s] %5.1f / %.1f s ", label, "#".repeat(filled),
                    "-".repeat(WIDTH - filled), Math.min(elapsed, lengthNanos) / 1e9, lengthNanos / 1e9));
            out.flush();
        }

        @Override
        public synchronized void note(String line) {
            end();
            out.println(line);
            out.flush();
        }

        @Override
        public synchronized void end() {
            if (label != null) {
                startNanos = System.nanoTime() - lengthNanos;
                draw();
                out.println();
                out.flush();
                label = null;
            }
        }

        @Override
        public void close() {
            ticker.shutdownNow();
            end();
        }
    }
}
