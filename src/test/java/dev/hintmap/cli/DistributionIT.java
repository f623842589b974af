package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution the build makes, installed as the README says: {@code hintmap-VERSION-bin.tar.gz}
 * unpacked into a temporary prefix, its {@code bin/hintmap} linked from a directory on PATH, run with
 * JAVA_HOME unset and only the system's {@code java} (17 here) on PATH.
 */
class DistributionIT {
    @TempDir static Path prefix;
    static Path home;
    static Path linked;

    record Run(int exit, String out, String err) {}

    static Run run(Path launcher, Map<String, String> extraEnv, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("JAVA_HOME");
        pb.environment().put("PATH", linked.getParent() + ":/usr/local/bin:/usr/bin:/bin");
        pb.environment().putAll(extraEnv);
        Path err = Files.createTempFile(prefix, "err", ".txt");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished: " + command);
        return new Run(p.exitValue(), out, Files.readString(err));
    }

    @BeforeAll
    static void install() throws Exception {
        String version = HintFiles.version();
        Path tarball = Cli.home().resolve("target/hintmap-" + version + "-bin.tar.gz");
        assertTrue(Files.isRegularFile(tarball), tarball + " is made by package (src/dist/assemble.sh)");
        Path opt = Files.createDirectories(prefix.resolve("opt"));
        Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", opt.toString()).inheritIO().start();
        assertTrue(tar.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, tar.exitValue());
        home = opt.resolve("hintmap-" + version);
        Path bin = Files.createDirectories(prefix.resolve("bin"));
        linked = Files.createSymbolicLink(bin.resolve("hintmap"), home.resolve("bin/hintmap"));
    }

    @Test
    void theInstalledCommandReportsItsVersionAndReadsAFile() throws Exception {
        Run version = run(linked, Map.of(), "--version");
        assertEquals(0, version.exit(), version.err());
        assertEquals("hintmap " + HintFiles.version() + ", file format version " + HintFiles.FORMAT_VERSION,
                version.out().lines().findFirst().orElseThrow());
        assertEquals("", version.err());

        Path file = prefix.resolve("app.hints");
        String kernel = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu>(Params)";
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16).maxNameBytes(128))) {
            store.record(kernel, 420_000, 1 << 20);
        }
        Run stat = run(linked, Map.of(), "stat", file.toString());
        assertEquals(0, stat.exit(), stat.err());
        assertTrue(stat.out().contains("capacity         16 regions, names up to 128 bytes"), stat.out());
        assertEquals("", stat.err());
        Run dump = run(linked, Map.of(), "dump", "--format", "csv", file.toString());
        assertEquals(0, dump.exit(), dump.err());
        assertTrue(dump.out().contains(kernel), dump.out());
        Run missing = run(linked, Map.of(), "stat", prefix.resolve("none.hints").toString());
        assertEquals(ExitCode.BAD_FILE, missing.exit());
    }

    @Test
    void theLibrarysMessageForAVersionOneFileNamesACommandThatConvertsIt() throws Exception {
        Path file = prefix.resolve("old.hints");
        Files.copy(Cli.home().resolve("src/test/resources/vectors/golden-v1.hints"), file);
        dev.hintmap.HintFileException e = org.junit.jupiter.api.Assertions.assertThrows(dev.hintmap.HintFileException.class,
                () -> HintStore.open(file, HintStoreOptions.defaults().readOnly(true)));
        // "... with Maven alone: mvn dependency:unpack -Dartifact=G:A:V:tar.gz:bin -DoutputDirectory=. && sh DIR/bin/hintmap upgrade FILE)"
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "-Dartifact=dev\\.hintmap:hintmap:([^:]+):tar\\.gz:bin -DoutputDirectory=\\. && sh (\\S+) upgrade (\\S+)\\)")
                .matcher(e.getMessage());
        assertTrue(m.find(), e.getMessage());
        // the artifact it names is the tarball this build made (artifactId-version-classifier.type) ...
        assertTrue(Files.isRegularFile(Cli.home().resolve("target/hintmap-" + m.group(1) + "-bin.tar.gz")), m.group(1));
        assertEquals(file.toString(), m.group(3));
        // ... and, where it was unpacked, the command it names converts the file
        Run upgrade = run(Path.of("/bin/sh"), Map.of(), prefix.resolve("opt").resolve(m.group(2)).toString(), "upgrade", "-q",
                m.group(3));
        assertEquals(0, upgrade.exit(), upgrade.out() + upgrade.err());
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertTrue(store.info().regions() > 0);
        }
    }

    @Test
    void theDistributionCarriesManPagesCompletionAndTheJars() throws Exception {
        assertTrue(Files.isRegularFile(home.resolve("man/man1/hintmap.1")), "man/man1/hintmap.1");
        assertTrue(Files.isRegularFile(home.resolve("man/man1/hintmap-stat.1")), "man/man1/hintmap-stat.1");
        Path completion = home.resolve("completion/hintmap.bash");
        assertTrue(Files.readString(completion).contains("complete -F _complete_hintmap"), completion.toString());
        Process bash = new ProcessBuilder("bash", "-n", completion.toString()).redirectErrorStream(true).start();
        assertTrue(bash.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, bash.exitValue());
        for (String jar : new String[] {"hintmap.jar", "hintmap-cli.jar", "picocli.jar", "jackson-databind.jar", "jline-terminal.jar"}) {
            assertTrue(Files.isRegularFile(home.resolve("lib").resolve(jar)), jar);
        }
    }

    @Test
    void theDocumentsThatHelpAndTheManPagesCiteAreInTheDistribution() throws Exception {
        Run help = run(linked, Map.of(), "--help");
        assertEquals(0, help.exit(), help.err());
        String said = help.out().replaceAll("\\s+", " ");
        assertTrue(said.contains("in share/doc/hintmap/ of the installation"), help.out());
        assertTrue(said.contains("docs/FORMAT.md"), help.out());
        assertTrue(!said.contains("see docs/FORMAT.md"), "no path that only the sources have: " + help.out());
        Path docs = home.resolve("share/doc/hintmap");
        for (String doc : new String[] {"README.md", "docs/FORMAT.md", "docs/SECURITY.md", "docs/GUIDE.md"}) {
            assertTrue(Files.isRegularFile(docs.resolve(doc)), "share/doc/hintmap/" + doc);
        }
        assertTrue(Files.readString(home.resolve("man/man1/hintmap-stat.1")).contains("share/doc/hintmap/"),
                "the man pages cite the same place");
    }

    @Test
    void theDemoRunsFromTheDistributionOutsideTheSourceTreeWithJavaWriters(@TempDir Path elsewhere) throws Exception {
        // target/hintmap-VERSION itself, as the build leaves it, run from a directory outside the repository
        // with no HINTMAP_HOME: no native tools to find, so Java writers stand in for them
        Path launcher = Cli.home().resolve("target/hintmap-" + HintFiles.version() + "/bin/hintmap");
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "demo", "--seconds", "2").directory(elsewhere.toFile())
                .redirectErrorStream(true);
        pb.environment().remove("JAVA_HOME");
        pb.environment().remove("HINTMAP_HOME");
        pb.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
        pb.environment().put("HINTMAP_JAVA_OPTS", "-Djava.io.tmpdir=" + elsewhere); // where the demo makes its directory
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "the demo finished");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("demo: 3 Java writers (an installed hintmap has no native hm-bench; ./hintmap demo in the"
                + " source tree runs it)"), out);
        java.util.regex.Matcher created = java.util.regex.Pattern.compile("demo: created (\\S+) \\(capacity 64").matcher(out);
        assertTrue(created.find(), out);
        assertTrue(Path.of(created.group(1)).startsWith(elsewhere), "the demo file is in a new temporary directory: " + out);
        assertEquals(3, out.lines().filter(l -> l.matches("java writer  pid \\d+: [1-9][0-9,]* dispatches from \\d threads in .*"))
                .count(),
                "three Java writers recorded:\n" + out);
        assertTrue(out.contains("$ hintmap verify " + created.group(1) + "\nOK "), out);
    }

    /**
     * Start-up: a command loads every class it names from the ahead-of-time cache, none from the
     * JDK's modules or the jars, down to its exit (Runtime.exit's System.Logger, which the training
     * run once left out: ~25 classes read and linked at the end of every command). What the cache
     * cannot hold is generated at run time and has no file: FFM's method handle forms, annotation proxies.
     */
    @Test
    void aCommandLoadsEveryClassItNamesFromTheAheadOfTimeCacheDownToItsExit() throws Exception {
        Path jdk = Path.of(run(linked, Map.of(), "--java-home").out().strip());
        int major = Integer.parseInt(Files.readString(jdk.resolve("release")).replaceAll("(?s).*JAVA_VERSION=\"(\\d+).*", "$1"));
        if (major < 24) {
            System.out.println("SKIP: the launcher's JDK is " + major + "; the ahead-of-time cache needs 24+");
            return;
        }
        Path file = prefix.resolve("startup.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            store.record("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                    420_000, 1 << 20);
        }
        Run stat = run(linked, Map.of("HINTMAP_JAVA_OPTS", "-Xlog:class+load=info"), "stat", file.toString());
        assertEquals(0, stat.exit(), stat.err());
        List<String> fromFiles = stat.out().lines().filter(l -> l.contains("[class,load]"))
                .filter(l -> l.contains(" source: jrt:/") || l.contains(" source: file:") || l.contains(" source: jar:"))
                .toList();
        assertEquals(List.of(), fromFiles, "classes read from the JDK's modules or the jars, not the cache");
    }

    @Test
    void theAheadOfTimeCacheIsUsedWhereTheTarballWasUnpacked() throws Exception {
        Path jdk = Path.of(run(linked, Map.of(), "--java-home").out().strip());
        String release = Files.readString(jdk.resolve("release"));
        int major = Integer.parseInt(release.replaceAll("(?s).*JAVA_VERSION=\"(\\d+).*", "$1"));
        if (major < 24) {
            System.out.println("SKIP: the launcher's JDK is " + major + "; the ahead-of-time cache needs 24+");
            return;
        }
        assertTrue(Files.isRegularFile(home.resolve("lib/hintmap.aot")), "the build trained lib/hintmap.aot");
        Run loads = run(linked, Map.of("HINTMAP_JAVA_OPTS", "-Xlog:class+load=info"), "--version");
        assertEquals(0, loads.exit(), loads.err());
        for (String cls : new String[] {"dev.hintmap.cli.HintmapCli", "picocli.CommandLine"}) {
            assertTrue(loads.out().lines().anyMatch(l -> l.contains(" " + cls + " source: shared objects file")),
                    cls + " comes from the cache, not from its jar:\n"
                            + loads.out().lines().filter(l -> l.contains(cls + " ")).toList());
        }
    }
}
