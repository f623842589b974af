package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reliability round 3, finding 1: {@code export -o} wrote its temporary file with
 * {@code Files.write} at {@code DIR/.OUT.<pid>.tmp}, a name anyone could predict, following a
 * symbolic link planted there: run as root it overwrote the link's target with the metrics text.
 * Every command that writes an output (export, merge, copy, upgrade, create) now creates its
 * temporary through one routine ({@link OutputFile}): a name with 64 random bits, created
 * {@code O_CREAT|O_EXCL|O_NOFOLLOW}, mode 0600 (0660 with {@code --group-shared}) set on the
 * descriptor, then renamed or linked into place.
 */
class OutputFileSafetyTest {
    private static final String PRECIOUS = "root's file, which no command may write\n";

    @TempDir
    Path dir;

    private Path hints(String name) throws Exception {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(8).maxNameBytes(256))) {
            store.record("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                    420_000, 1 << 20);
        }
        return file;
    }

    /** Every entry of the output directory, by name, links not followed. */
    private Set<String> entries(Path in) throws Exception {
        try (Stream<Path> list = Files.list(in)) {
            return new TreeSet<>(list.map(p -> p.getFileName().toString()).toList());
        }
    }

    /**
     * Links at the names a pid-based scheme would pick — this JVM's pid, which an in-process
     * command has, and the next 40, as the finding planted them — all pointing at one victim.
     */
    private List<Path> plantLinks(Path out, Path victim) throws Exception {
        List<Path> links = new ArrayList<>();
        long pid = ProcessHandle.current().pid();
        for (long p = pid; p <= pid + 40; p++) {
            for (String name : List.of("." + out.getFileName() + "." + p + ".tmp", out.getFileName() + "." + p + ".tmp")) {
                links.add(Files.createSymbolicLink(out.resolveSibling(name), victim));
            }
        }
        return links;
    }

    private String[] command(String which, Path out) throws Exception {
        return switch (which) {
            case "export" -> new String[] {"export", "--prometheus", hints("in.hints").toString(), "-o", out.toString()};
            case "merge" -> new String[] {"merge", "-q", hints("in.hints").toString(), "-o", out.toString()};
            case "copy" -> new String[] {"copy", "-q", hints("in.hints").toString(), out.toString()};
            case "create" -> new String[] {"create", out.toString(), "--capacity", "8"};
            case "upgrade" -> {
                Path v1 = dir.resolve("in.v1.hints");
                Files.copy(Path.of("src", "test", "resources", "vectors", "golden-v1.hints"), v1);
                yield new String[] {"upgrade", "-q", v1.toString(), "-o", out.toString()};
            }
            default -> throw new AssertionError(which);
        };
    }

    /** The finding as reproduced (export), and the same check for every other command that writes a file. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"export", "merge", "copy", "create", "upgrade"})
    void noOutputIsWrittenThroughALinkPlantedAtAPredictableTemporaryName(String which) throws Exception {
        Path out = Files.createDirectory(dir.resolve("collector")).resolve(which.equals("export") ? "hintmap.prom" : "out.hints");
        Path victim = dir.resolve("victim");
        Files.writeString(victim, PRECIOUS);
        String[] args = command(which, out);
        plantLinks(out, victim);
        Set<String> before = entries(out.getParent());

        Cli.run(args).expect(ExitCode.OK);

        assertEquals(PRECIOUS, Files.readString(victim), "the link's target is untouched");
        assertTrue(Files.isRegularFile(out, LinkOption.NOFOLLOW_LINKS), "the output is a file of its own, not a link");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out, LinkOption.NOFOLLOW_LINKS)));
        Set<String> after = entries(out.getParent());
        after.remove(out.getFileName().toString());
        assertEquals(before, after, "nothing left beside the output (no temporary file), every planted link still there");
        if (which.equals("export")) {
            assertTrue(Files.readString(out).contains("hintmap_region_dispatches{"), Files.readString(out));
        }
    }

    @Test
    void aGroupSharedOutputIs0660() throws Exception {
        for (String which : List.of("export", "merge", "create")) {
            Path out = dir.resolve(which + (which.equals("export") ? ".prom" : ".hints"));
            List<String> args = new ArrayList<>(List.of(command(which, out)));
            args.add("--group-shared");
            Cli.run(args.toArray(String[]::new)).expect(ExitCode.OK);
            assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(out)), which);
            Files.deleteIfExists(dir.resolve("in.hints"));
        }
    }

    /** The mode is set on the descriptor, not left to the umask: 0 here would give Files.write's 0666. */
    @Test
    void theModeIsExactWhateverTheUmask() throws Exception {
        Path in = hints("in.hints");
        for (String which : List.of("export", "merge")) {
            Path out = dir.resolve("umask0-" + which);
            List<String> command = new ArrayList<>(List.of("sh", "-c", "umask 000; exec \"$@\"", "sh"));
            command.addAll(ChildJvm.builder(HintmapCli.class).command());
            command.addAll(which.equals("export") ? List.of("export", "--prometheus", in.toString(), "-o", out.toString())
                    : List.of("merge", "-q", in.toString(), "-o", out.toString()));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the command finished");
            assertEquals(0, p.exitValue(), output);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out)), which + ": " + output);
        }
    }

    @Test
    void anExportRefusedAtTheOutputLeavesNoTemporary() throws Exception {
        Path in = hints("in.hints");
        Path out = Files.createDirectory(dir.resolve("out.prom")); // a directory: no file can be published there
        Cli.Result r = Cli.run("export", "--prometheus", in.toString(), "-o", out.toString());
        assertTrue(r.exit() == ExitCode.IO_ERROR, r.toString());
        assertTrue(r.err().contains(out.toString()), r.err());
        assertEquals(Set.of("in.hints", "out.prom"), entries(dir));
        assertFalse(Files.list(out).findAny().isPresent());
    }
}
