package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Maven project that depends on hintmap, built as the README tells a user whose Maven runs on
 * Java 17 (JAVA_HOME unset, the system's java on PATH): with the README's own pom lines (read from
 * README.md) the build compiles against the library's Java 22 classes; without them it stops with
 * the error the README quotes. The library comes from a local repository of this build's jar and
 * pom; Maven's plugins from the user's own repository, read-only ({@code maven.repo.local.tail}),
 * offline.
 */
class ConsumerBuildIT {
    @TempDir static Path work;
    static Path home;
    static Path repo;

    private static final String APP = """
            package com.example.app;

            import dev.hintmap.HintStore;
            import dev.hintmap.HintStoreOptions;
            import java.nio.file.Path;

            public final class Main {
                public static void main(String[] args) throws Exception {
                    try (HintStore store = HintStore.open(Path.of(args[0]), HintStoreOptions.defaults())) {
                        store.record("gemm_bf16", 420_000, 1 << 20);
                        System.out.println(store.region("gemm_bf16").dispatchCount() + " " + store.isHot("gemm_bf16"));
                    }
                }
            }
            """;

    /** The pom lines of the README's "Using it from Java": the xml block that sets the release. */
    static String readmePomLines() throws IOException {
        String readme = Files.readString(home.resolve("README.md"));
        Matcher m = Pattern.compile("```xml\\n(<properties>\\n  <maven.compiler.release>.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(m.find(), "README.md shows the pom lines a consumer needs");
        return m.group(1);
    }

    @BeforeAll
    static void localRepositoryWithThisBuildsLibrary() throws IOException {
        home = Path.of(System.getProperty("hintmap.home", ".")).toAbsolutePath().normalize();
        String version = HintFiles.version();
        Path dir = Files.createDirectories(work.resolve("repo/dev/hintmap/hintmap").resolve(version));
        Files.copy(home.resolve("target/hintmap.jar"), dir.resolve("hintmap-" + version + ".jar"));
        Files.copy(home.resolve("pom.xml"), dir.resolve("hintmap-" + version + ".pom"));
        repo = work.resolve("repo");
    }

    record Build(int exit, String log) {}

    static Build build(String name, String pomLines) throws Exception {
        Path project = Files.createDirectories(work.resolve(name));
        Files.copy(home.resolve("mvnw"), project.resolve("mvnw"), StandardCopyOption.COPY_ATTRIBUTES);
        Path wrapper = Files.createDirectories(project.resolve(".mvn/wrapper"));
        Files.copy(home.resolve(".mvn/wrapper/maven-wrapper.properties"), wrapper.resolve("maven-wrapper.properties"));
        Path src = Files.createDirectories(project.resolve("src/main/java/com/example/app"));
        Files.writeString(src.resolve("Main.java"), APP);
        Files.writeString(project.resolve("pom.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId>
                  <artifactId>app</artifactId>
                  <version>1</version>
                  <dependencies>
                    <dependency>
                      <groupId>dev.hintmap</groupId>
                      <artifactId>hintmap</artifactId>
                      <version>%s</version>
                    </dependency>
                  </dependencies>
                %s
                </project>
                """.formatted(HintFiles.version(), pomLines));
        Path userRepo = Path.of(System.getProperty("user.home"), ".m2", "repository");
        ProcessBuilder pb = new ProcessBuilder(project.resolve("mvnw").toString(), "-o", "-B", "compile",
                "-Dmaven.repo.local=" + repo, "-Dmaven.repo.local.tail=" + userRepo)
                .directory(project.toFile()).redirectErrorStream(true);
        pb.environment().remove("JAVA_HOME");
        pb.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
        Path log = work.resolve(name + ".log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the build finished");
        return new Build(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    @Test
    void withTheReadmesPomLinesMavenOnJava17BuildsAgainstTheLibrary() throws Exception {
        Build mavenOn = build("probe", "");
        assertTrue(mavenOn.log().contains("release version") || mavenOn.log().contains("wrong version 66"),
                "the machine's Maven runs on a Java older than 22, or this test proves nothing:\n" + mavenOn.log());

        Build withReadme = build("with-readme", readmePomLines());
        assertEquals(0, withReadme.exit(), withReadme.log());
        Build withoutToolchain = build("release-only", "<properties><maven.compiler.release>22</maven.compiler.release></properties>");
        assertNotEquals(0, withoutToolchain.exit());
        assertTrue(withoutToolchain.log().contains("release version 22 not supported"), withoutToolchain.log());

        Path classes = work.resolve("with-readme/target/classes");
        Path jar = repo.resolve("dev/hintmap/hintmap/" + HintFiles.version() + "/hintmap-" + HintFiles.version() + ".jar");
        List<String> run = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", classes + File.pathSeparator + jar, "com.example.app.Main",
                work.resolve("app.hints").toString()));
        Process p = new ProcessBuilder(run).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals("1 true", out.strip());
    }
}
