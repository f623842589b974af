package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability round 4, finding 6: the JVM trusts an ahead-of-time cache's contents.
 * {@code lib/hintmap.aot} with 8 bytes overwritten at 40 offsets crashed it (exit 134, an
 * {@code hs_err_pid*.log} left in the caller's directory) in 9 of 40 tries, and a FIFO at that
 * path blocked every command. The launcher now passes the cache only when it is a regular file
 * whose checksum is the one written with it ({@code lib/hintmap.aot.cksum}). Each case runs the
 * installed distribution (a fresh copy of the tarball) as a user would, in a directory of its own,
 * under a time limit.
 */
class AotCacheIntegrityIT {
    private static final String KERNEL =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    private static final int SECONDS = 120;

    @TempDir
    Path prefix;

    Path home;
    Path cache;
    Path file;
    Path cwd;

    record Run(int exit, String out, String err) {}

    @BeforeEach
    void install() throws Exception {
        String version = HintFiles.version();
        Path tarball = Cli.home().resolve("target/hintmap-" + version + "-bin.tar.gz");
        assertTrue(Files.isRegularFile(tarball), tarball + " is made by package (src/dist/assemble.sh)");
        Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", prefix.toString()).inheritIO().start();
        assertTrue(tar.waitFor(SECONDS, TimeUnit.SECONDS));
        assertEquals(0, tar.exitValue());
        home = prefix.resolve("hintmap-" + version);
        cache = home.resolve("lib/hintmap.aot");
        file = prefix.resolve("app.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16).maxNameBytes(128))) {
            store.record(KERNEL, 420_000, 1 << 20);
        }
        cwd = Files.createDirectory(prefix.resolve("cwd"));
    }

    private Run run(String... args) throws Exception {
        return run(Map.of(), args);
    }

    /** {@code bin/hintmap ARGS} in {@link #cwd}; fails, killing it, when it runs past the limit (a hang). */
    private Run run(Map<String, String> env, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(home.resolve("bin/hintmap").toString()));
        command.addAll(List.of(args));
        Path err = Files.createTempFile(prefix, "err", ".txt");
        Path out = Files.createTempFile(prefix, "out", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectError(err.toFile())
                .redirectOutput(out.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            fail(command + " did not finish in " + SECONDS + " s (blocked on the cache?)");
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** Whether the launcher's JDK can use the cache at all (24+; the build made none otherwise). */
    private boolean cacheApplies() throws Exception {
        Path jdk = Path.of(run("--java-home").out().strip());
        int major = Integer.parseInt(Files.readString(jdk.resolve("release")).replaceAll("(?s).*JAVA_VERSION=\"(\\d+).*", "$1"));
        if (major < 24) {
            System.out.println("SKIP: the launcher's JDK is " + major + "; the ahead-of-time cache needs 24+");
            return false;
        }
        assertTrue(Files.isRegularFile(cache), "the build trained " + cache);
        return true;
    }

    /** The command still answers, exit 0, and no JVM crash report is left where it ran. */
    private void assertAnswersWithoutACrash() throws Exception {
        Run stat = run("stat", file.toString());
        assertEquals(0, stat.exit(), stat.out() + stat.err());
        assertTrue(stat.out().contains("capacity         16 regions, names up to 128 bytes"), stat.out());
        Run dump = run("dump", "--format", "csv", file.toString());
        assertEquals(0, dump.exit(), dump.err());
        assertTrue(dump.out().contains(KERNEL), dump.out());
        try (Stream<Path> left = Files.list(cwd)) {
            assertEquals(List.of(), left.map(p -> p.getFileName().toString()).toList(), "no hs_err_pid*.log");
        }
    }

    private static boolean usesTheCache(Run run) {
        return run.out().lines().anyMatch(l -> l.contains(" dev.hintmap.cli.HintmapCli source: shared objects file"));
    }

    @Test
    void aCacheDamagedAtFortyOffsetsIsNotUsedAndTheCommandAnswers() throws Exception {
        if (!cacheApplies()) {
            return;
        }
        long size = Files.size(cache);
        try (RandomAccessFile raf = new RandomAccessFile(cache.toFile(), "rw")) {
            byte[] junk = "\u00de\u00ad\u00be\u00ef\u00de\u00ad\u00be\u00ef".getBytes(StandardCharsets.ISO_8859_1);
            for (int k = 1; k <= 40; k++) {
                raf.seek(size / 41 * k); // as the finding did: 8 bytes at 40 offsets spread over the file
                raf.write(junk);
            }
        }
        assertEquals(size, Files.size(cache));
        assertAnswersWithoutACrash();
        Run loads = run(Map.of("HINTMAP_JAVA_OPTS", "-Xlog:class+load=info"), "--version");
        assertEquals(0, loads.exit(), loads.err());
        assertTrue(!usesTheCache(loads), "the damaged cache is not used");
    }

    @Test
    void aFifoAtTheCachesPathDoesNotBlockTheCommand() throws Exception {
        if (!cacheApplies()) {
            return;
        }
        Files.delete(cache);
        assertEquals(0, new ProcessBuilder("mkfifo", cache.toString()).start().waitFor());
        assertAnswersWithoutACrash();
    }

    @Test
    void anIntactCacheIsStillUsed() throws Exception {
        if (!cacheApplies()) {
            return;
        }
        Run loads = run(Map.of("HINTMAP_JAVA_OPTS", "-Xlog:class+load=info"), "--version");
        assertEquals(0, loads.exit(), loads.err());
        assertTrue(usesTheCache(loads), "the classes come from the cache:\n" + loads.out().lines()
                .filter(l -> l.contains("HintmapCli")).toList());
    }
}
