package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A command interrupted while it writes its output leaves no temporary file behind (docs/DESIGN.md,
 * "Temporary files of the hintmap command"): SIGINT and SIGTERM remove it before the process ends;
 * after SIGKILL the next command that writes into the directory removes it, and says so, while a
 * temporary whose writer still runs is left alone. Real child processes ({@link HeldCommand}) are
 * held with their temporary half written and signalled there, so every signal lands mid-write.
 * Each child runs with SIGINT and SIGTERM at their default disposition ({@code env
 * --default-signal}): a JVM started from a shell that ignores them (a background job) keeps them
 * ignored and runs no hook.
 */
class InterruptedCommandTest {
    /** Regions of the input: about 2.5 MB of slots, so that the temporary is a large file. */
    private static final int REGIONS = 8_000;

    @TempDir
    Path dir;

    private Path hints;
    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void input() throws IOException {
        hints = dir.resolve("run.hints");
        try (HintStore store = HintStore.open(hints, HintStoreOptions.defaults().capacity(32_768).maxNameBytes(128))) {
            for (int i = 0; i < REGIONS; i++) {
                store.add(new RegionRecord(kernel(i), 1 + i % 7, 1_000L * (i + 1), 1_000L * (i + 1), 4096));
            }
        }
    }

    @AfterEach
    void killTheChildren() throws Exception {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor();
        }
    }

    static String kernel(int i) {
        return "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_" + (64 << (i % 3)) + "x128_32x3_nn_align4_v" + i
                + ">(cutlass_80_tensorop_s1688gemm_64x128_32x3_nn_align4::Params const&)";
    }

    private Set<String> entries() throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return new TreeSet<>(list.map(p -> p.getFileName().toString()).toList());
        }
    }

    /** A held child running {@code hintmap args}, and the temporary it is writing. */
    private record Held(Process process, Path temporary) {}

    private Held held(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT,TERM",
                ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), HeldCommand.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        children.add(p);
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String tmp = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = lines.readLine()) != null; ) {
                    if (line.startsWith(HeldCommand.HELD)) {
                        return line.substring(HeldCommand.HELD.length());
                    }
                    seen.append(line).append('\n');
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        }).get(120, TimeUnit.SECONDS);
        assertNotNull(tmp, "the child ended before its temporary was half written:\n" + seen);
        CompletableFuture.runAsync(() -> drain(lines)); // the rest of its output, so that it never blocks on a full pipe
        Path temporary = Path.of(tmp);
        assertTrue(Files.size(temporary) > 0, "the temporary exists while the command writes it: " + temporary);
        return new Held(p, temporary);
    }

    private static void drain(BufferedReader lines) {
        try {
            while (lines.readLine() != null) {
                // discarded
            }
        } catch (IOException e) {
            // the child is gone
        }
    }

    private static int ended(Process p) throws Exception {
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the interrupted command ended");
        return p.exitValue();
    }

    private String[] command(String command) throws IOException {
        return switch (command) {
            case "copy" -> new String[] {"copy", "-q", hints.toString(), dir.resolve("copy.hints").toString()};
            case "merge" -> new String[] {"merge", "-q", hints.toString(), "-o", dir.resolve("merged.hints").toString()};
            case "upgrade" -> new String[] {"upgrade", "-q", VersionTwoFiles.fromCurrent(hints).toString()};
            case "export" -> new String[] {"export", "--prometheus", hints.toString(), "-o", dir.resolve("run.prom").toString()};
            default -> throw new IllegalArgumentException(command);
        };
    }

    @ParameterizedTest(name = "{0} interrupted by SIG{1}")
    @CsvSource({"copy, INT", "copy, TERM", "merge, INT", "merge, TERM", "upgrade, INT", "upgrade, TERM", "export, TERM"})
    void aCommandInterruptedMidWriteRemovesItsTemporaryAndPublishesNothing(String command, String signal) throws Exception {
        String[] args = command(command);
        byte[] input = Files.readAllBytes(hints);
        Set<String> before = entries();
        Held held = held(args);
        assertTrue(entries().contains(held.temporary().getFileName().toString()));
        Cli.signal(held.process(), signal);
        assertEquals(128 + (signal.equals("INT") ? 2 : 15), ended(held.process()), "the JVM ends by the signal");
        assertEquals(before, entries(), "no temporary, no output, no backup: the directory as before");
        assertArrayEquals(input, Files.readAllBytes(hints), "the input (in place: FILE) is untouched");
    }

    /**
     * SIGKILL runs no hook: the temporary stays until the next command that writes into the
     * directory, which removes it (its writer is dead) and says so; an in-place upgrade killed
     * mid-write leaves FILE as it was and no backup, and its rerun finishes.
     */
    @Test
    void aKilledUpgradesTemporaryIsRemovedByItsRerunWhichConverts() throws Exception {
        String[] args = command("upgrade");
        byte[] v2 = Files.readAllBytes(hints);
        Held held = held(args);
        Cli.signal(held.process(), "KILL");
        assertEquals(128 + 9, ended(held.process()));
        assertTrue(Files.exists(held.temporary()), "SIGKILL leaves the temporary");
        assertArrayEquals(v2, Files.readAllBytes(hints), "FILE as it was");
        assertFalse(Files.exists(dir.resolve("run.hints.v2")), "no backup before publication");

        Cli.Result rerun = Cli.run("upgrade", hints.toString()).expect(ExitCode.OK);
        assertTrue(rerun.err().contains("upgrade: removed 1 temporary file(s) of "), rerun.err());
        assertEquals(Set.of("run.hints", "run.hints.v2"), entries());
        assertArrayEquals(v2, Files.readAllBytes(dir.resolve("run.hints.v2")));
        try (HintStore store = HintStore.open(hints, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(HintFiles.FORMAT_VERSION, store.info().formatVersion());
            assertEquals(REGIONS, store.size());
        }
    }

    /**
     * The next command writing into the directory removes a killed command's temporary, and
     * leaves alone that of a command still writing there (its writer runs: same pid and start time).
     */
    @Test
    void aKilledCommandsTemporaryIsRemovedByTheNextCommandAndALiveOnesIsLeftAlone() throws Exception {
        Held killed = held(command("copy"));
        Cli.signal(killed.process(), "KILL");
        ended(killed.process());
        assertTrue(Files.exists(killed.temporary()));
        Held live = held("merge", "-q", hints.toString(), "-o", dir.resolve("merged.hints").toString());
        assertFalse(Files.exists(killed.temporary()), "the next command removed the dead writer's temporary");

        Cli.Result other = Cli.run("copy", hints.toString(), dir.resolve("other.hints").toString()).expect(ExitCode.OK);
        assertFalse(other.err().contains("removed"), other.err());
        assertTrue(Files.exists(live.temporary()), "the live writer's temporary is left alone");

        Cli.signal(live.process(), "TERM");
        ended(live.process());
        assertEquals(Set.of("other.hints", "run.hints"), entries());
    }
}
