package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Building the Java library with its tests skipped needs no C toolchain: the project without its
 * {@code native-bench/} directory still packages (the library: the distribution, which DistributionIT
 * checks, is skipped here) (any make or gcc the build ran would fail there),
 * with Maven itself on the JDK 22+ of {@code JAVA_HOME}; and the jar it packages is byte for byte
 * the one this build packaged (a reproducible build). And {@code -Dmaven.test.skip=true}, the
 * README's install line, runs no test of any kind: no test source set compiled, and every execution
 * that tests (surefire's, Lincheck's, failsafe's, jcstress, the C and Python tests, the fuzzing of
 * {@code -Pfuzz}) says it skipped.
 */
class BuildWithoutCToolchainIT {
    @TempDir Path dir;

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    /** Each entry as "name time sha256", the manifest without the line naming Maven's JVM. */
    private static List<String> entries(Path jar) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
            for (java.util.zip.ZipEntry e : java.util.Collections.list(zip.entries())) {
                byte[] bytes;
                try (var in = zip.getInputStream(e)) {
                    bytes = in.readAllBytes();
                }
                if (e.getName().equals("META-INF/MANIFEST.MF")) {
                    bytes = new String(bytes, StandardCharsets.UTF_8).replaceAll("Build-Tool-Jdk-Spec: [0-9]+\\r\\n", "")
                            .getBytes(StandardCharsets.UTF_8);
                }
                out.add(e.getName() + " " + e.getTime() + " "
                        + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
            }
        }
        return out;
    }

    @Test
    void packageWithSkippedTestsBuildsTheSameJarWithoutNativeBench() throws Exception {
        Path home = Path.of(System.getProperty("hintmap.home", ".")).toAbsolutePath().normalize();
        for (String part : List.of("pom.xml", "mvnw", ".mvn", "src/main")) {
            copyTree(home.resolve(part), dir.resolve(part));
        }
        Path log = dir.resolve("build.log");
        ProcessBuilder build = new ProcessBuilder(dir.resolve("mvnw").toString(), "-o", "-B", "-q", "package",
                "-DskipTests", "-Dmaven.javadoc.skip=true", "-Dhintmap.dist.skip=true")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        // Maven on a JDK 22+ (JAVA_HOME) while the PATH's java is older, as on this machine: every
        // step that runs java must still get the toolchain's, not the PATH's.
        build.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = build.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the build finished");
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertTrue(Files.isRegularFile(dir.resolve("target/hintmap.jar")), out);
        assertTrue(Files.notExists(dir.resolve("native-bench")));
        // Reproducible (project.build.outputTimestamp): the same sources and pom, built elsewhere at
        // another time, give the same entries, in the same order, with the same time stamps and bytes.
        // Two depend on the JVM Maven runs on, 17 outside and 25 here, as reproducible-builds.org
        // allows (the JDK is part of the build environment): the manifest's Build-Tool-Jdk-Spec, and
        // module-info.class, which that JVM's jar tool rewrites (MJAR-289, docs/DESIGN.md §2).
        List<String> outer = entries(home.resolve("target/hintmap.jar"));
        List<String> inner = entries(dir.resolve("target/hintmap.jar"));
        assertEquals(outer.size(), inner.size());
        for (int i = 0; i < outer.size(); i++) {
            String a = outer.get(i);
            String b = inner.get(i);
            if (a.startsWith("module-info.class ")) {
                assertEquals(a.substring(0, a.lastIndexOf(' ')), b.substring(0, b.lastIndexOf(' ')));
            } else {
                assertEquals(a, b);
            }
        }
    }

    /** The phases whose executions test (from process-test-classes on; package and install build artifacts). */
    private static final Set<String> TEST_PHASES = Set.of("process-test-classes", "test", "pre-integration-test",
            "integration-test", "post-integration-test", "verify");

    /**
     * The ids of the pom's exec-maven-plugin executions bound to a test phase, profiles included: the C and
     * Python tests, jcstress, the fuzzing. Read from the pom, so a new one is checked without a change here.
     */
    private static Set<String> testingExecs(Path pom) throws Exception {
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        Set<String> ids = new java.util.TreeSet<>();
        NodeList plugins = doc.getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element plugin = (Element) plugins.item(i);
            if (!child(plugin, "artifactId").equals("exec-maven-plugin")) {
                continue;
            }
            NodeList executions = plugin.getElementsByTagName("execution");
            for (int j = 0; j < executions.getLength(); j++) {
                Element e = (Element) executions.item(j);
                if (TEST_PHASES.contains(child(e, "phase"))) {
                    ids.add(child(e, "id"));
                }
            }
        }
        return ids;
    }

    private static String child(Element parent, String name) {
        for (var n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().strip();
            }
        }
        return "";
    }

    @Test
    void theReadmesInstallLineWithMavenTestSkipRunsNoTestExecution() throws Exception {
        Path home = Path.of(System.getProperty("hintmap.home", ".")).toAbsolutePath().normalize();
        // Every source set and the Python module, not native-bench/: a C build or test that ran would fail.
        for (String part : List.of("pom.xml", "mvnw", ".mvn", "src/main", "src/test", "src/lincheck", "src/jcstress",
                "src/examples/java", "src/dist", "python")) {
            copyTree(home.resolve(part), dir.resolve(part));
        }
        Path log = dir.resolve("build.log");
        // verify: the README says install, which adds no execution after verify's (and would write ~/.m2).
        ProcessBuilder build = new ProcessBuilder(dir.resolve("mvnw").toString(), "-o", "-B", "verify", "-Pfuzz",
                "-Dmaven.test.skip=true", "-Dmaven.javadoc.skip=true", "-Dhintmap.dist.skip=true")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        build.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = build.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the build finished");
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);

        // Each execution's section of the log: "--- plugin:version:goal (id) @ hintmap ---" and its lines.
        Map<String, String> sections = new LinkedHashMap<>();
        Matcher header = Pattern.compile("(?m)^\\[INFO\\] --- ([\\w.-]+):[\\w.-]+:([\\w-]+) \\(([\\w-]+)\\) @ hintmap ---$")
                .matcher(out);
        List<int[]> at = new ArrayList<>();
        List<String> names = new ArrayList<>();
        while (header.find()) {
            at.add(new int[] {header.start(), header.end()});
            names.add(header.group(1) + ":" + header.group(2) + " (" + header.group(3) + ")");
        }
        for (int i = 0; i < names.size(); i++) {
            sections.put(names.get(i), out.substring(at.get(i)[1], i + 1 < at.size() ? at.get(i + 1)[0] : out.length()));
        }
        Set<String> execs = testingExecs(dir.resolve("pom.xml"));
        assertTrue(execs.containsAll(Set.of("native-tools", "native-tests", "python-tests", "jcstress", "native-fuzz-short")),
                "the pom's testing executions: " + execs);
        List<String> testing = new ArrayList<>();
        sections.forEach((name, body) -> {
            boolean tests = name.startsWith("surefire:") || name.startsWith("failsafe:") || name.startsWith("compiler:testCompile")
                    || (name.startsWith("exec:") && execs.contains(name.substring(name.indexOf('(') + 1, name.length() - 1)));
            if (tests) {
                testing.add(name);
                assertTrue(body.contains("Tests are skipped.") || body.contains("skipping execute as per configuration")
                        || body.contains("Not compiling test sources"), name + " ran under -Dmaven.test.skip=true:" + body);
            }
        });
        List<String> expected = new ArrayList<>(List.of("surefire:test (default-test)", "surefire:test (lincheck)",
                "failsafe:integration-test (default)", "compiler:testCompile (lincheck-compile)"));
        execs.forEach(id -> expected.add("exec:exec (" + id + ")"));
        assertTrue(testing.containsAll(expected), "every testing execution is in the log: " + testing);
        for (String made : List.of("test-classes", "lincheck-classes", "jcstress-classes", "surefire-reports",
                "surefire-reports-lincheck", "failsafe-reports", "jcstress")) {
            assertTrue(Files.notExists(dir.resolve("target").resolve(made)), "target/" + made + " made:\n" + out);
        }
        assertTrue(Files.isRegularFile(dir.resolve("target/hintmap.jar")), "the library was built");
    }
}
