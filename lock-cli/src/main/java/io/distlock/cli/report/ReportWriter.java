package io.distlock.cli.report;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;

/**
 * Writes a {@link Report} three ways into a directory: {@code index.html}, a self-contained page with
 * charts (no network needed to open or print it), {@code report.md} for a pull request or a ticket, and
 * {@code report.json}, the model itself for scripts.
 */
public final class ReportWriter {

    /** The HTML page's file name. */
    public static final String HTML = "index.html";
    /** The Markdown form's file name. */
    public static final String MARKDOWN = "report.md";
    /** The JSON form's file name. */
    public static final String JSON = "report.json";

    /**
     * Nulls kept, so that a script sees every key; no HTML escaping: the JSON is not embedded in a page. A
     * figure that is not a number (a rate over an empty window) is written as null: JSON has no NaN, and
     * Gson would otherwise refuse the whole report.
     */
    private static final Gson GSON = new GsonBuilder().setPrettyPrinting().serializeNulls().disableHtmlEscaping()
            .registerTypeAdapter(double.class, new NonFiniteAsNull())
            .registerTypeAdapter(Double.class, new NonFiniteAsNull())
            .create();

    private ReportWriter() {
    }

    /**
     * Writes {@code index.html}, {@code report.md} and {@code report.json} for {@code report} into
     * {@code dir}, creating the directory if it does not exist and replacing files of those names.
     *
     * @param report what the run saw
     * @param dir    where to write
     * @return the path of {@code index.html}, the file to open
     * @throws IOException if the directory cannot be created or a file cannot be written
     */
    public static Path write(Report report, Path dir) throws IOException {
        Objects.requireNonNull(report, "report");
        Files.createDirectories(dir);
        // The JSON first: it is the model and needs no rendering, so a report whose charts fail to
        // render (a bug) still leaves the data behind.
        writeAtomically(dir.resolve(JSON), GSON.toJson(report) + "\n");
        writeAtomically(dir.resolve(MARKDOWN), MarkdownReport.render(report));
        Path html = dir.resolve(HTML);
        writeAtomically(html, HtmlReport.render(report));
        return html;
    }

    /**
     * The report as report.json has it, for a command's {@code --json}.
     *
     * @param report the report
     * @return its JSON (a figure that is not a number is null)
     */
    public static String json(Report report) {
        return GSON.toJson(report);
    }

    /** Gson for report.json: the writer's settings, which a reader of the file needs too (NaN is null there). */
    static Gson gson() {
        return GSON;
    }

    /** NaN and the infinities as null, and null back as NaN: a record's double cannot be null. */
    private static final class NonFiniteAsNull extends TypeAdapter<Double> {
        @Override
        public void write(JsonWriter out, Double value) throws IOException {
            if (value == null || !Double.isFinite(value)) {
                out.nullValue();
            } else {
                out.value(value.doubleValue());
            }
        }

        @Override
        public Double read(JsonReader in) throws IOException {
            if (in.peek() == JsonToken.NULL) {
                in.nextNull();
                return Double.NaN;
            }
            return in.nextDouble();
        }
    }

    /**
     * Writes a sibling temporary file and moves it into place, so that a browser refreshing the report
     * (or a CI job collecting it) never sees half a file.
     */
    private static void writeAtomically(Path file, String content) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temporary, content, StandardCharsets.UTF_8);
        try {
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
