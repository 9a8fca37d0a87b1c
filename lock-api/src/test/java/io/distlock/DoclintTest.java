package io.distlock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build's doclint keeps the Javadoc of the public API whole: the compiler arguments the parent
 * pom gives the main code fail a compile that leaves a public member of an exported package without
 * a doc comment, and every module lints exactly the packages its module-info exports — a package
 * exported later is linted from then on, an internal one never is. (The poms are read as text, as
 * in {@link BomTest}.)
 */
class DoclintTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String PACKAGES_PROPERTY = "distlock.doclint.packages";
    /** What the parent's default of {@value #PACKAGES_PROPERTY} means: no package. */
    private static final String NONE = "-*";

    private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
    private static final Pattern EXPORTS = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern ARG = Pattern.compile("<arg>([^<]*)</arg>");

    @Test
    void everyModuleLintsExactlyThePackagesItExports() throws IOException {
        List<String> checked = new ArrayList<>();
        for (String module : reactorModules()) {
            Path moduleInfo = ROOT.resolve(module).resolve("src/main/java/module-info.java");
            if (!Files.exists(moduleInfo)) {
                continue;
            }
            // Unqualified exports only: a package exported to named friends is not public API.
            Set<String> exported = new TreeSet<>();
            Matcher exports = EXPORTS.matcher(withoutComments(Files.readString(moduleInfo)));
            while (exports.find()) {
                exported.add(exports.group(1));
            }
            assertThat(lintedPackages(module)).as("%s/pom.xml's %s: the packages its module-info exports", module,
                    PACKAGES_PROPERTY).isEqualTo(exported);
            checked.add(module);
        }
        assertThat(checked).contains("lock-api", "lock-tck", "lock-tck-fixtures", "lock-redis-single");
    }

    @Test
    void theBuildsCompilerArgumentsFailOnAMissingDocCommentInALintedPackageOnly(@TempDir Path sources) throws IOException {
        String undocumented = "/** An API type. */\npublic class Api {\n    public void undocumented() {\n    }\n}\n";
        String documented = "/** An API type. */\npublic class Api {\n    /** Documented. */\n    public void documented() {\n    }\n}\n";

        assertThat(compile(sources.resolve("a"), "exported", undocumented, "exported"))
                .as("a public method without a doc comment in a linted package fails the compile")
                .contains("Api.java:5: warning: no comment", "warnings found and -Werror specified");
        assertThat(compile(sources.resolve("b"), "exported", documented, "exported")).as("documented, it compiles").isEmpty();
        assertThat(compile(sources.resolve("c"), "internal", undocumented, "exported"))
                .as("a package the module does not export is not linted").isEmpty();
        assertThat(compile(sources.resolve("d"), "internal", undocumented, NONE))
                .as("nor is anything in a module that exports nothing (the parent's default)").isEmpty();
    }

    /**
     * Compiles {@code source} as class {@code Api} of package {@code pkg} with the arguments the
     * parent pom gives the main code, {@value #PACKAGES_PROPERTY} set to {@code linted}. (javac as a
     * {@code java.util.spi.ToolProvider}: these tests run in module io.distlock, which does not read
     * java.compiler.)
     *
     * @return what javac reported; empty if it compiled cleanly
     */
    private static String compile(Path dir, String pkg, String source, String linted) throws IOException {
        Path file = Files.createDirectories(dir.resolve(pkg)).resolve("Api.java");
        Files.writeString(file, "package " + pkg + ";\n\n" + source);
        List<String> args = new ArrayList<>(List.of("-d", Files.createDirectories(dir.resolve("classes")).toString()));
        for (String arg : mainCompilerArguments()) {
            args.add(arg.replace("${" + PACKAGES_PROPERTY + "}", linted));
        }
        args.add(file.toString());
        StringWriter out = new StringWriter();
        try (PrintWriter writer = new PrintWriter(out)) {
            int exit = ToolProvider.findFirst("javac").orElseThrow().run(writer, writer, args.toArray(String[]::new));
            assertThat(exit == 0).as("javac succeeded exactly when it reported nothing:%n%s", out).isEqualTo(out.toString().isBlank());
        }
        return out.toString().strip();
    }

    /**
     * The compiler plugin's arguments in the parent pom: those of every compile, then those of the
     * main code's ({@code default-compile}).
     */
    private static List<String> mainCompilerArguments() throws IOException {
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        int plugin = pom.indexOf("<artifactId>maven-compiler-plugin</artifactId>");
        String compiler = pom.substring(plugin, pom.indexOf("</plugin>", plugin));
        int mainCompile = compiler.indexOf("<id>default-compile</id>");
        assertThat(mainCompile).as("the parent configures the main code's compile (default-compile)").isPositive();
        List<String> args = new ArrayList<>();
        Matcher all = ARG.matcher(compiler);
        while (all.find()) {
            args.add(all.group(1).trim());
        }
        assertThat(args).as("the compile of every module, main code first").contains("-Werror", "-Xdoclint/package:${"
                + PACKAGES_PROPERTY + "}");
        return args;
    }

    /** The packages {@code module} lints: its pom's {@value #PACKAGES_PROPERTY}, else the parent's (none). */
    private static Set<String> lintedPackages(String module) throws IOException {
        Matcher property = Pattern.compile("<" + PACKAGES_PROPERTY + ">([^<]*)</" + PACKAGES_PROPERTY + ">")
                .matcher(Files.readString(ROOT.resolve(module).resolve("pom.xml")));
        String value = property.find() ? property.group(1).trim() : NONE;
        return value.equals(NONE) ? Set.of() : new TreeSet<>(List.of(value.split("\\s*,\\s*")));
    }

    private static List<String> reactorModules() throws IOException {
        List<String> modules = new ArrayList<>();
        Matcher m = MODULE.matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (m.find()) {
            modules.add(m.group(1));
        }
        return modules;
    }

    private static String withoutComments(String java) {
        return java.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
    }
}
