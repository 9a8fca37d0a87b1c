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
 * the consumers' own, the main README's backend table gives each URI as its module's README does,
 * and Spring's BOM aligns Spring where lock-spring and ShedLock's Spring integration meet.
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
                        "examples/module-path/spring/src/main/java/module-info.java",
                        "examples/module-path/spring-with-shedlock/pom.xml")),
                new TreeSet<>(quoted), "the quotes the READMEs make of the consumers");
    }

    /**
     * The main README reads in five minutes: at most 1,300 words of prose (code and comments aside),
     * about what a reader gets through in that time. Detail lives in docs/ and each module's README.
     */
    @Test
    void theMainReadmeReadsInFiveMinutes() {
        String prose = Readme.text("README.md").replaceAll("(?s)```.*?```", "").replaceAll("(?s)<!--.*?-->", "");
        int words = prose.trim().split("\\s+").length;
        assertTrue(words <= 1_300, "README.md has " + words + " words of prose; move detail to docs/ or a module's README");
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
        assertEquals(List.of("lock-etcd", "lock-hazelcast", "lock-redis-cluster", "lock-redis-single", "lock-redis-wait", "lock-redlock",
                        "lock-tair", "lock-zookeeper"),
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

    /**
     * lock-spring and ShedLock's Spring integration ask for different Spring Framework patch
     * releases; with Spring's BOM imported as lock-spring's README shows (the consumer
     * spring-with-shedlock), every Spring Framework jar is the one version lock-spring alone brings.
     */
    @Test
    void springsBomAlignsSpringBesideShedLock() throws IOException {
        Map<String, String> together = springFramework("spring-with-shedlock");
        assertTrue(together.keySet().containsAll(List.of("spring-core", "spring-context", "spring-messaging", "spring-tx")), together.toString());
        assertTrue(Files.readString(Readme.consumer("spring-with-shedlock").resolve("target/module-path.txt")).contains("shedlock-spring"),
                "shedlock-spring is beside lock-spring");
        String springAlone = springFramework("spring").get("spring-core");
        assertEquals(Map.of(springAlone, new TreeSet<>(together.keySet())), together.entrySet().stream().collect(
                Collectors.groupingBy(Map.Entry::getValue, Collectors.mapping(Map.Entry::getKey, Collectors.toCollection(TreeSet::new)))),
                "every Spring Framework jar is the version lock-spring brings alone");
    }

    /** @return artifact id to version of every Spring Framework jar on a consumer's module path */
    private static Map<String, String> springFramework(String consumer) throws IOException {
        Map<String, String> versions = new TreeMap<>();
        for (String jar : Files.readString(Readme.consumer(consumer).resolve("target/module-path.txt")).strip().split(":")) {
            Path version = Path.of(jar).getParent();
            if (version.getParent().getParent().endsWith(Path.of("org", "springframework"))) {
                versions.put(version.getParent().getFileName().toString(), version.getFileName().toString());
            }
        }
        return versions;
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
