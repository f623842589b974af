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
 * A Maven project that depends on hintmap, built as the user guide tells a user whose Maven runs on
 * Java 17 (JAVA_HOME unset, the system's java on PATH): with the guide's own pom lines (read from
 * docs/GUIDE.md) the build compiles against the library's Java 22 classes; without them it stops with
 * the error the guide quotes. A program written against the reference design's questions compiles
 * with {@code -Xlint:all -Werror} against the library jar alone and runs. The library comes from a
 * local repository of this build's jar and pom; Maven's plugins from the user's own repository,
 * read-only ({@code maven.repo.local.tail}), offline.
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

    /**
     * The reference design's optimizer, as its users write it: the six questions, and "hot by my
     * threshold" asked per question and through a read-only store of its own threshold.
     */
    private static final String SEED_APP = """
            package com.example.app;

            import dev.hintmap.HintStore;
            import dev.hintmap.HintStoreOptions;
            import dev.hintmap.RegionRecord;
            import java.nio.file.Path;
            import java.util.Optional;

            public final class Main {
                public static void main(String[] args) throws Exception {
                    String gemm = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
                    StringBuilder said = new StringBuilder();
                    try (HintStore store = HintStore.open(Path.of(args[0]), HintStoreOptions.defaults().hotThresholdNs(500_000))) {
                        said.append(store.isEmpty()).append(' ');
                        store.record(gemm, 420_000, 1 << 20);
                        store.record(gemm, 380_000, 1 << 20);
                        Optional<RegionRecord> r = store.recordFor(gemm);
                        said.append(store.isHot(gemm)).append(' ').append(store.dispatchCount(gemm)).append(' ')
                                .append(store.meanKernelNs(gemm)).append(' ').append(r.orElseThrow().kernelNsMax()).append(' ')
                                .append(store.size()).append(' ').append(store.isEmpty()).append(' ')
                                .append(store.isHot(gemm, 100_000)).append(' ');
                    }
                    try (HintStore mine = HintStore.open(Path.of(args[0]),
                            HintStoreOptions.defaults().readOnly(true).hotThresholdNs(100_000))) {
                        said.append(mine.isHot(gemm));
                    }
                    System.out.println(said);
                }
            }
            """;

    /** The pom lines of docs/GUIDE.md's "Adding the library": the xml block that sets the release. */
    static String guidePomLines() throws IOException {
        String guide = Files.readString(home.resolve("docs/GUIDE.md"));
        Matcher m = Pattern.compile("```xml\\n(<properties>\\n  <maven.compiler.release>.*?)```", Pattern.DOTALL).matcher(guide);
        assertTrue(m.find(), "docs/GUIDE.md shows the pom lines a consumer needs");
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
        return build(name, pomLines, APP);
    }

    static Build build(String name, String pomLines, String app) throws Exception {
        Path project = Files.createDirectories(work.resolve(name));
        Files.copy(home.resolve("mvnw"), project.resolve("mvnw"), StandardCopyOption.COPY_ATTRIBUTES);
        Path wrapper = Files.createDirectories(project.resolve(".mvn/wrapper"));
        Files.copy(home.resolve(".mvn/wrapper/maven-wrapper.properties"), wrapper.resolve("maven-wrapper.properties"));
        Path src = Files.createDirectories(project.resolve("src/main/java/com/example/app"));
        Files.writeString(src.resolve("Main.java"), app);
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
    void withTheGuidesPomLinesMavenOnJava17BuildsAgainstTheLibrary() throws Exception {
        Build mavenOn = build("probe", "");
        assertTrue(mavenOn.log().contains("release version") || mavenOn.log().contains("wrong version 66"),
                "the machine's Maven runs on a Java older than 22, or this test proves nothing:\n" + mavenOn.log());

        Build withGuide = build("with-guide", guidePomLines());
        assertEquals(0, withGuide.exit(), withGuide.log());
        Build withoutToolchain = build("release-only", "<properties><maven.compiler.release>22</maven.compiler.release></properties>");
        assertNotEquals(0, withoutToolchain.exit());
        assertTrue(withoutToolchain.log().contains("release version 22 not supported"), withoutToolchain.log());

        assertEquals("1 true", runApp("with-guide", "app.hints"));
    }

    /**
     * The issue this guards: a library jar whose manifest named the tool's libraries ({@code Class-Path:
     * lib/picocli.jar ...}) gave every consumer compiling with {@code -Xlint:all} a "bad path element"
     * warning per entry, and {@code -Werror} failed the build; the reference design's questions were
     * deprecated, five more warnings.
     */
    @Test
    void aProgramAskingTheReferenceDesignsQuestionsCompilesWithXlintAllAndWerror() throws Exception {
        String compiler = "<artifactId>maven-compiler-plugin</artifactId>\n      <version>3.14.0</version>";
        String pomLines = guidePomLines();
        assertTrue(pomLines.contains(compiler), "the guide's pom lines name the compiler plugin:\n" + pomLines);
        Build strict = build("seed-app", pomLines.replace(compiler, compiler
                + "\n      <configuration><compilerArgs><arg>-Xlint:all</arg><arg>-Werror</arg></compilerArgs></configuration>"),
                SEED_APP);
        assertEquals(0, strict.exit(), strict.log()); // -Werror: a single warning of javac fails it
        assertEquals("true false 2 400000 420000 1 false true true", runApp("seed-app", "seed.hints"));
    }

    /** Runs the built project's Main on the class path with the library jar alone; its output. */
    private static String runApp(String project, String hints) throws Exception {
        Path classes = work.resolve(project).resolve("target/classes");
        Path jar = repo.resolve("dev/hintmap/hintmap/" + HintFiles.version() + "/hintmap-" + HintFiles.version() + ".jar");
        List<String> run = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", classes + File.pathSeparator + jar, "com.example.app.Main",
                work.resolve(hints).toString()));
        Process p = new ProcessBuilder(run).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return out.strip();
    }
}
