package example.modulepath;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the READMEs say that the module-path consumers show without a server: the code they quote is
 * the consumers' own, and the main README's backend table gives each URI as its module's README does.
 */
class ReadmeTextTest {

    private static final Pattern VERBATIM = Pattern.compile("<!-- verbatim from (examples/module-path/\\S+) -->\\s*```\\w*\\n(.*?)```",
            Pattern.DOTALL);

    /** Every README quotes a module-path consumer's code (or pom) as it is: what a user copies is what runs. */
    @Test
    void theReadmesQuoteTheConsumersVerbatim() throws IOException {
        List<String> quoted = new ArrayList<>();
        for (Path readme : readmes()) {
            Matcher quote = VERBATIM.matcher(Files.readString(readme));
            while (quote.find()) {
                String source = Files.readString(Readme.ROOT.resolve(quote.group(1)));
                assertTrue(stripped(source).contains(stripped(quote.group(2))),
                        Readme.ROOT.relativize(readme) + " quotes " + quote.group(1) + " but the file says otherwise:\n" + quote.group(2));
                quoted.add(quote.group(1));
            }
        }
        assertEquals(new TreeSet<>(List.of(
                        "examples/module-path/shedlock/src/main/java/example/shedlock/SchedulerLockConfig.java",
                        "examples/module-path/shedlock/src/main/java/module-info.java",
                        "examples/module-path/spring/src/main/java/example/spring/OrdersApplication.java",
                        "examples/module-path/spring/src/main/java/module-info.java")),
                new TreeSet<>(quoted), "the quotes the READMEs make of the consumers");
    }

    /**
     * The main README's backend table gives each backend's URI exactly as the backend's own README
     * does (port optional where it is, the password-only form of Redis included).
     */
    @Test
    void theBackendTableGivesEachUriAsItsModuleReadmeDoes() {
        String readme = Readme.text("README.md");
        Matcher table = Pattern.compile("<!-- backends:[^>]*-->\\s*\\n(.*?)<!-- /backends -->", Pattern.DOTALL).matcher(readme);
        assertTrue(table.find(), "README.md marks its backend table with <!-- backends: ... --> and <!-- /backends -->");
        Map<String, List<String>> uris = new TreeMap<>();
        for (String row : table.group(1).split("\n")) {
            Matcher cells = Pattern.compile("^\\| \\[?`(lock-[a-z-]+)`(?:]\\([^)]*\\))? \\| ([^|]+) \\|").matcher(row);
            if (cells.find()) {
                List<String> spans = new ArrayList<>();
                Matcher span = Pattern.compile("`([a-z-]+://[^`]+)`").matcher(cells.group(2));
                while (span.find()) {
                    spans.add(span.group(1));
                }
                uris.put(cells.group(1), spans);
            }
        }
        assertEquals(List.of("lock-etcd", "lock-redis-single", "lock-redis-wait", "lock-redlock", "lock-tair", "lock-zookeeper"),
                List.copyOf(uris.keySet()), "one row per backend");
        uris.forEach((artifact, spans) -> {
            assertFalse(spans.isEmpty(), artifact + "'s row gives its URI");
            String own = Readme.text(artifact + "/README.md");
            for (String uri : spans) {
                assertTrue(own.contains(uri), "README.md gives " + artifact + "'s URI as " + uri + ", which "
                        + artifact + "/README.md does not");
            }
        });
    }

    private static List<Path> readmes() throws IOException {
        try (Stream<Path> modules = Files.list(Readme.ROOT)) {
            return Stream.concat(Stream.of(Readme.ROOT.resolve("README.md")),
                    modules.map(module -> module.resolve("README.md")).filter(Files::isRegularFile).sorted()).toList();
        }
    }

    /** The lines without their indentation: a README may indent less than the source. */
    private static String stripped(String text) {
        return text.lines().map(String::strip).collect(Collectors.joining("\n"));
    }
}
