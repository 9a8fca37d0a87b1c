package example.modulepath;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The READMEs of the repository, read by the tests that run what they say. A command a test runs
 * stands in a README right after a marker naming it, so that a reader sees that it is tested and a
 * test finds it:
 *
 * <pre>
 * &lt;!-- tested as module-path/zookeeper by examples/module-path --&gt;
 * ```sh
 * java ...
 * ```
 * </pre>
 */
final class Readme {

    /** The repository's root (set by this project's pom). */
    static final Path ROOT = Path.of(System.getProperty("distlock.root", "../../..")).toAbsolutePath().normalize();

    private static final Pattern TESTED = Pattern.compile("<!-- tested as (\\S+) by examples/module-path -->\\s*```\\w*\\n(.*?)```",
            Pattern.DOTALL);

    private Readme() {
    }

    /**
     * @param name a module-path consumer, say {@code zookeeper}
     * @return its directory, {@code examples/module-path/<name>}
     */
    static Path consumer(String name) {
        return ROOT.resolve("examples/module-path").resolve(name);
    }

    /**
     * @param readme a README's path from the root, say {@code lock-zookeeper/README.md}
     * @return its text
     */
    static String text(String readme) {
        try {
            return Files.readString(ROOT.resolve(readme));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param readme a README's path from the root
     * @param id     the name in its marker
     * @return the code block that follows the marker {@code <!-- tested as <id> by examples/module-path -->}
     * @throws AssertionError if the README has no such block, or two
     */
    static String block(String readme, String id) {
        List<String> found = new ArrayList<>();
        Matcher marked = TESTED.matcher(text(readme));
        while (marked.find()) {
            if (marked.group(1).equals(id)) {
                found.add(marked.group(2));
            }
        }
        if (found.size() != 1) {
            throw new AssertionError(readme + " has " + found.size() + " blocks marked <!-- tested as " + id
                    + " by examples/module-path --> (one expected)");
        }
        return found.get(0);
    }

    /**
     * Replaces literal strings in one pass (a replacement is never replaced again), each of which
     * must occur: a README that no longer says what a test replaces fails loudly.
     *
     * @param text         a README's block
     * @param replacements what to replace (the README's port, say) with what (a free one)
     * @return the text with every occurrence replaced
     * @throws AssertionError if a string to replace does not occur
     */
    static String replace(String text, Map<String, String> replacements) {
        for (String literal : replacements.keySet()) {
            if (!text.contains(literal)) {
                throw new AssertionError("the README's block no longer contains '" + literal + "':\n" + text);
            }
        }
        Pattern any = Pattern.compile(replacements.keySet().stream().sorted((a, b) -> b.length() - a.length())
                .map(Pattern::quote).collect(Collectors.joining("|")));
        return any.matcher(text).replaceAll(match -> Matcher.quoteReplacement(replacements.get(match.group())));
    }

    /**
     * @param block a shell block
     * @return its commands, one per element: a line continued with a backslash is joined to the next
     */
    static List<String> commands(String block) {
        List<String> commands = new ArrayList<>();
        for (String command : block.replace("\\\n", " ").split("\n")) {
            if (!command.isBlank()) {
                commands.add(command.strip());
            }
        }
        return commands;
    }
}
