package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
 * the one this build packaged (a reproducible build).
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
}
