package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Building the Java library with its tests skipped needs no C toolchain: the project without its
 * {@code native-bench/} directory still packages (any make or gcc the build ran would fail there),
 * with Maven itself on the JDK 22+ of {@code JAVA_HOME}.
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

    @Test
    void packageWithSkippedTestsBuildsTheJarWithoutNativeBench() throws Exception {
        Path home = Path.of(System.getProperty("hintmap.home", ".")).toAbsolutePath().normalize();
        for (String part : List.of("pom.xml", "mvnw", ".mvn", "src/main")) {
            copyTree(home.resolve(part), dir.resolve(part));
        }
        Path log = dir.resolve("build.log");
        ProcessBuilder build = new ProcessBuilder(dir.resolve("mvnw").toString(), "-o", "-B", "-q", "package",
                "-DskipTests", "-Dmaven.javadoc.skip=true")
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
    }
}
