package io.distlock;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The BOM lists every published artifact of the reactor (every module but the BOM itself and
 * unpublished tools), and the documentation advises only those, so that a consumer who imports it can add any backend, or the TCK, without
 * a version. Guards against a new backend module that someone forgets to add. (The poms are read
 * as text: the test runs inside module io.distlock, which does not read java.xml.)
 */
class BomTest {

    /**
     * Reactor modules that are not published artifacts: the BOM itself, the benchmarks, and the distlock
     * command, which is a distribution (bin/ and lib/), not a library to depend on.
     */
    private static final List<String> UNPUBLISHED = List.of("bom", "lock-bench", "lock-cli");

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
        assertThat(managedDistlockArtifacts(bom)).containsExactlyInAnyOrderElementsOf(published);
    }

    @Test
    void pinsJedisHazelcastSlf4jApiAndNettyAsTheReactorDoesAndNoOtherThirdPartyArtifact() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        String bom = Files.readString(root.resolve("bom/pom.xml"));
        List<String> thirdParty = new ArrayList<>();
        Matcher dependencies = DEPENDENCY.matcher(bom);
        while (dependencies.find()) {
            String dependency = dependencies.group(1);
            if (!"io.distlock".equals(element(dependency, "groupId"))) {
                thirdParty.add(element(dependency, "groupId") + ":" + element(dependency, "artifactId")
                        + ":" + element(dependency, "version"));
            }
        }
        assertThat(thirdParty).containsExactly("redis.clients:jedis:${jedis.version}",
                "com.hazelcast:hazelcast:${hazelcast.version}", "org.slf4j:slf4j-api:${slf4j.version}",
                "io.netty:netty-bom:${netty.version}");
        assertThat(element(bom, "hazelcast.version")).as("the BOM's Hazelcast is the client the reactor builds and tests"
                + " with (the newest with CP Subsystem code)")
                .isEqualTo(element(Files.readString(root.resolve("pom.xml")), "hazelcast.version"));
        assertThat(element(bom, "jedis.version")).as("the BOM's Jedis is the one the reactor builds and tests with"
                + " (tair-jedis asks for an older one)")
                .isEqualTo(element(Files.readString(root.resolve("pom.xml")), "jedis.version"));
        assertThat(element(bom, "netty.version")).as("the BOM's Netty is the one the reactor builds and tests with")
                .isEqualTo(element(Files.readString(root.resolve("pom.xml")), "netty.version"));
        String reactorSlf4j = element(Files.readString(root.resolve("pom.xml")), "slf4j.version");
        assertThat(element(bom, "slf4j.version")).as("the BOM's slf4j-api is the one the reactor builds and tests with")
                .isEqualTo(reactorSlf4j)
                .startsWith("2.0.");
    }

    /**
     * Every distlock artifact the documentation names is one the BOM of this version manages: a
     * user who follows the advice gets an artifact that exists. Planned backends are named by what
     * they are (etcd, Tair), never by an artifact id until the BOM has them. Paths such as
     * {@code lock-bench/bench.sh} are not artifacts.
     */
    @Test
    void theDocumentationNamesOnlyArtifactsTheBomManages() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> managed = managedDistlockArtifacts(Files.readString(root.resolve("bom/pom.xml")));
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("lock-tck/SPEC.md")));
        try (Stream<Path> files = Files.walk(root, 3)) {
            files.filter(f -> f.getFileName().toString().endsWith(".md"))
                    .filter(f -> !f.toString().contains("/target") && !f.toString().contains("/."))
                    .filter(f -> !documents.contains(f))
                    .forEach(documents::add);
        }
        Pattern artifact = Pattern.compile("(?<![\\w/.-])(lock-[a-z0-9-]+|distlock-bom)(?![\\w/-])");
        for (Path document : documents) {
            Matcher m = artifact.matcher(Files.readString(document));
            while (m.find()) {
                if (!UNPUBLISHED.contains(m.group(1)) && !m.group(1).equals("distlock-bom")) {
                    assertThat(managed).as("%s names %s, which the BOM does not manage", root.relativize(document), m.group(1))
                            .contains(m.group(1));
                }
            }
        }
    }

    /**
     * The README's Install section lists the artifacts to choose from: exactly those of the BOM.
     */
    @Test
    void theReadmeListsEveryArtifactOfTheBom() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        String readme = Files.readString(root.resolve("README.md"));
        Matcher section = Pattern.compile("<!-- artifacts: the BOM's, checked by BomTest -->(.*?)<!-- /artifacts -->",
                Pattern.DOTALL).matcher(readme);
        assertThat(section.find()).as("README.md has the marked artifact list").isTrue();
        List<String> listed = new ArrayList<>();
        Matcher names = Pattern.compile("^\\|\\s*`(lock-[a-z0-9-]+)`", Pattern.MULTILINE).matcher(section.group(1));
        while (names.find()) {
            listed.add(names.group(1));
        }
        assertThat(listed).containsExactlyInAnyOrderElementsOf(
                managedDistlockArtifacts(Files.readString(root.resolve("bom/pom.xml"))));
    }

    private static List<String> managedDistlockArtifacts(String bom) {
        List<String> listed = new ArrayList<>();
        Matcher dependencies = DEPENDENCY.matcher(bom);
        while (dependencies.find()) {
            String dependency = dependencies.group(1);
            if ("io.distlock".equals(element(dependency, "groupId"))) {
                assertThat(element(dependency, "version")).isEqualTo("${project.version}");
                listed.add(element(dependency, "artifactId"));
            }
        }
        return listed;
    }
}
