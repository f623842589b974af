package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code ./hintmap} wrapper decides on every command whether the distribution is
 * older than the sources, so that check is what every command pays before the JVM starts. Here the
 * wrapper runs in a stand-in repository: its {@code mvnw} and the distribution's launcher are stubs
 * that log their calls, and PATH holds only {@code sh}, {@code readlink} and a {@code find} that logs
 * its arguments: a wrapper that forks anything else (sed, head, dirname) fails.
 */
class LauncherFreshnessTest {
    static final String VERSION = "9.9.9-SNAPSHOT";

    @TempDir Path repo;
    Path bin;
    Path log;
    Path dist;
    Path source;

    @BeforeEach
    void standInRepository() throws IOException {
        log = repo.resolve("calls.log");
        Files.copy(Cli.home().resolve("hintmap"), repo.resolve("hintmap"));
        executable(repo.resolve("hintmap"));
        Files.writeString(repo.resolve("pom.xml"), """
                <project>
                  <groupId>dev.hintmap</groupId>
                  <artifactId>hintmap</artifactId>
                  <version>%s</version>
                </project>
                """.formatted(VERSION));
        source = Files.createDirectories(repo.resolve("src/main/java/dev/hintmap")).resolve("HintStore.java");
        Files.writeString(source, "class HintStore {}\n");
        script(repo.resolve("src/dist/bin/hintmap"), "echo \"java-home $*\" >>'" + log + "'; echo /opt/jdk-25");
        dist = repo.resolve("target/hintmap-" + VERSION + "/bin/hintmap");
        script(dist, "echo \"dist $*\" >>'" + log + "'; echo \"ran $*\"");
        script(repo.resolve("mvnw"), "echo \"mvnw $*\" >>'" + log + "'; /usr/bin/touch '" + dist + "'");
        bin = Files.createDirectory(repo.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("sh"), Path.of("/bin/sh"));
        Files.createSymbolicLink(bin.resolve("readlink"), Path.of("/usr/bin/readlink").toRealPath());
        script(bin.resolve("find"), "echo \"find $*\" >>'" + log + "'; exec /usr/bin/find \"$@\"");
        Instant now = Instant.now();
        try (Stream<Path> sources = Stream.concat(Stream.of(repo.resolve("pom.xml")), Files.walk(repo.resolve("src")))) {
            for (Path p : sources.toList()) {
                Files.setLastModifiedTime(p, FileTime.from(now.minusSeconds(100)));
            }
        }
        Files.setLastModifiedTime(dist, FileTime.from(now.minusSeconds(10)));
    }

    private static void script(Path path, String body) throws IOException {
        Files.createDirectories(path.getParent());
        Files.writeString(path, "#!/bin/sh\n" + body + "\n");
        executable(path);
    }

    private static void executable(Path path) throws IOException {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private String run(String... args) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(repo.resolve("hintmap").toString()).redirectErrorStream(true);
        pb.command().addAll(List.of(args));
        pb.environment().put("PATH", bin.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the wrapper finished");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private List<String> calls() throws IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Test
    void aFreshDistributionRunsAfterOneFindThatStopsAtTheFirstNewerSourceAndNothingElse() throws Exception {
        String out = run("stat", "/dev/shm/app.hints");
        assertEquals("ran stat /dev/shm/app.hints\n", out);
        List<String> calls = calls();
        assertEquals(2, calls.size(), calls.toString());
        assertTrue(calls.get(0).startsWith("find ") && calls.get(0).contains(" -newer " + dist + " ")
                && calls.get(0).endsWith(" -print -quit"), calls.get(0));
        assertEquals("dist stat /dev/shm/app.hints", calls.get(1));
    }

    @Test
    void aSourceNewerThanTheDistributionIsBuiltFirstAfterTheJdkCheck() throws Exception {
        Files.setLastModifiedTime(source, FileTime.from(Instant.now()));
        String out = run("stat", "/dev/shm/app.hints");
        assertTrue(out.contains("hintmap: building the command line tool"), out);
        List<String> calls = calls();
        assertEquals("java-home --java-home", calls.get(1), calls.toString());
        assertTrue(calls.get(2).startsWith("mvnw -q -B package -Dmaven.test.skip=true"), calls.toString());
        assertEquals("dist stat /dev/shm/app.hints", calls.get(3), calls.toString());
    }

    @Test
    void theBuildItStartsMakesTheManPagesTheReadmesInstallLinesLink() throws Exception {
        Files.setLastModifiedTime(source, FileTime.from(Instant.now()));
        run("stat", "/dev/shm/app.hints"); // the same build as before `demo` (which then also builds the C tools)
        String build = calls().stream().filter(c -> c.startsWith("mvnw ")).findFirst().orElseThrow();
        assertTrue(build.contains(" package "), build);
        assertFalse(build.contains("hintmap.man.skip"), "the distribution ./hintmap demo builds has its man pages: " + build);
    }

    @Test
    void javaHomeNamesTheJdkWithoutLookingAtTheBuild() throws Exception {
        Files.setLastModifiedTime(source, FileTime.from(Instant.now())); // stale: still nothing is built
        assertEquals("/opt/jdk-25\n", run("--java-home"));
        assertEquals(List.of("java-home --java-home"), calls());
        assertFalse(Files.readString(log).contains("mvnw"));
    }
}
