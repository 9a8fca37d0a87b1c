package io.distlock;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The BOM lists every published artifact of the reactor (every module but the BOM itself and
 * unpublished tools), so that a consumer who imports it can add any backend, or the TCK, without
 * a version. Guards against a new backend module that someone forgets to add. (The poms are read
 * as text: the test runs inside module io.distlock, which does not read java.xml.)
 */
class BomTest {

    /** Reactor modules that are not published artifacts. */
    private static final List<String> UNPUBLISHED = List.of("bom", "lock-bench");

    private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

    private static String element(String xml, String name) {
        Matcher m = Pattern.compile("<" + name + ">\\s*([^<]*?)\\s*</" + name + ">").matcher(xml);
        return m.find() ? m.group(1) : null;
    }

    /** The project's own artifactId: the first one after the parent block, if any. */
    private static String ownArtifactId(Path pom) throws IOException {
        String xml = Files.readString(pom);
        int parentEnd = xml.indexOf("</parent>");
        return element(parentEnd < 0 ? xml : xml.substring(parentEnd), "artifactId");
    }

    @Test
    void listsEveryPublishedModuleOfTheReactor() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> published = new ArrayList<>();
        Matcher modules = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
        while (modules.find()) {
            if (!UNPUBLISHED.contains(modules.group(1))) {
                published.add(ownArtifactId(root.resolve(modules.group(1)).resolve("pom.xml")));
            }
        }
        assertThat(published).contains("lock-api", "lock-tck", "lock-redis-single");

        String bom = Files.readString(root.resolve("bom/pom.xml"));
        assertThat(bom).as("the BOM has no parent: importing it must not import the build's own"
                + " dependency management").doesNotContain("<parent>");
        List<String> listed = new ArrayList<>();
        Matcher dependencies = DEPENDENCY.matcher(bom);
        while (dependencies.find()) {
            String dependency = dependencies.group(1);
            assertThat(element(dependency, "groupId")).isEqualTo("io.distlock");
            assertThat(element(dependency, "version")).isEqualTo("${project.version}");
            listed.add(element(dependency, "artifactId"));
        }
        assertThat(listed).containsExactlyInAnyOrderElementsOf(published);
    }
}
