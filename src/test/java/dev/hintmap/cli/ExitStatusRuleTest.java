package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one exit status rule of {@link ExitCode}, command by command: a command line wrong in itself
 * is 2 (usage), an input that is not a hint file is 3 in the same words for every command, and a
 * command's refusal is 1 — an existing output among them, for {@code copy}, {@code merge} and
 * {@code upgrade} as for {@code create}.
 */
class ExitStatusRuleTest {
    static final String KERNEL = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";

    @TempDir Path dir;
    Path hints;     // a sound hint file
    Path directory; // an input that is not a hint file
    Path existing;  // an output that exists already, which no command may replace without --force
    Path damaged;   // a hint file verify finds a problem in
    Path v1;        // a format version 1 file, what upgrade converts
    Path precious;  // a hint file at export's output, which its text must not replace without --force

    /** One command's three cases; null where the command has no such case, with the reason beside it. */
    record Cases(String[] usage, String[] badInput, String[] refused) {}

    @BeforeEach
    void files() throws Exception {
        hints = dir.resolve("run.hints");
        try (HintStore store = HintStore.open(hints, HintStoreOptions.defaults().capacity(16))) {
            store.record(KERNEL, 420_000, 1 << 20);
            store.record("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int)",
                    3_000, 1 << 12);
        }
        directory = Files.createDirectory(dir.resolve("profiles.d"));
        existing = Files.writeString(dir.resolve("fleet.hints"), "precious");
        damaged = dir.resolve("damaged.hints");
        Files.copy(hints, damaged);
        try (FileChannel ch = FileChannel.open(damaged, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena).set(Layouts.U64, Layouts.HDR_LIVE_COUNT, 99L);
        }
        precious = dir.resolve("precious.hints");
        Files.copy(hints, precious);
        v1 = dir.resolve("old.hints");
        Files.copy(Cli.home().resolve("src/test/resources/vectors/golden-v1.hints"), v1);
    }

    private Map<String, Cases> cases() {
        String h = hints.toString();
        String d = directory.toString();
        String x = existing.toString();
        String out = dir.resolve("new.hints").toString();
        Map<String, Cases> c = new LinkedHashMap<>();
        c.put("stat", new Cases(a("stat"), a("stat", d), null)); // reads only: nothing to refuse
        c.put("top", new Cases(a("top", "-n", "-1", h), a("top", d), null));
        c.put("dump", new Cases(a("dump", "--format", "xml", h), a("dump", d), null));
        c.put("merge", new Cases(a("merge", h, h, "-o", out), a("merge", d, "-o", out), a("merge", "-q", h, "-o", x)));
        c.put("copy", new Cases(a("copy", h), a("copy", d, out), a("copy", "-q", h, x)));
        // create reads no input: a directory at FILE is a file in the way, refused as any existing FILE is
        c.put("create", new Cases(a("create", out, "--capacity", "0"), null, a("create", x, "--capacity", "4")));
        // record writes into FILE in place, as a runtime does (other writers may be attached): nothing it would replace
        c.put("record", new Cases(a("record", h, KERNEL, "-5", "0"), a("record", d, KERNEL, "5", "0"), null));
        c.put("upgrade", new Cases(a("upgrade", v1.toString(), "--no-such-option"), a("upgrade", d),
                a("upgrade", "-q", v1.toString(), "-o", x)));
        // decay's refusal (a region a stopped writer's lock kept it from ageing) waits out the 5 s lock
        // limit: LiveFileSafetyTest.decayNamesARegionWhoseSlotLockAStoppedWriterHoldsAgesTheOthersAndExitsOne
        c.put("decay", new Cases(a("decay", h, "--factor", "1.5"), a("decay", d, "--factor", "0.5"), null));
        c.put("verify", new Cases(a("verify", "--no-such-option", h), a("verify", d), a("verify", damaged.toString())));
        // export's text replaces a metrics file, but a hint file at OUT only with --force (OutputFile.RULES)
        c.put("export", new Cases(a("export", h, "--top", "-1"), a("export", d),
                a("export", "--prometheus", h, "-o", precious.toString())));
        c.put("hot", new Cases(a("hot", h, "--coverage", "1.5"), a("hot", d), null)); // reads only: nothing to refuse
        c.put("diff", new Cases(a("diff", h, h, "-n", "-1"), a("diff", d, h), null));
        c.put("demo", new Cases(a("demo", "--seconds", "0"), null, null)); // writes its own file: no input, nothing to refuse
        c.put("completion", new Cases(a("completion", "fish"), null, null));
        c.put("help", new Cases(a("help", "no-such-command"), null, null));
        return c;
    }

    private static String[] a(String... args) {
        return args;
    }

    @Test
    void everyCommandIsClassifiedByTheRule() {
        assertEquals(new TreeSet<>(HintmapCli.commandLine().getSubcommands().keySet()), new TreeSet<>(cases().keySet()),
                "each command of the CLI has its cases here");
    }

    @Test
    void aCommandLineWrongInItselfIsAUsageErrorForEveryCommand() {
        cases().forEach((command, c) -> {
            Cli.Result r = Cli.run(c.usage()).expect(ExitCode.USAGE);
            assertTrue(r.err().lines().anyMatch(l -> l.startsWith("try 'hintmap ")), command + ": " + r.err());
        });
    }

    @Test
    void anInputThatIsADirectoryIsNotAHintFileInTheSameWordsForEveryCommand() {
        cases().forEach((command, c) -> {
            if (c.badInput() == null) {
                return;
            }
            Cli.Result r = Cli.run(c.badInput()).expect(ExitCode.BAD_FILE);
            String words = "hintmap " + command + ": " + directory + ": not a hint file: not a regular file but a directory";
            assertTrue(r.err().startsWith(words), command + ": " + r.err());
            assertEquals(1, r.err().lines().count(), command + ": one line\n" + r.err());
        });
    }

    @Test
    void aRefusalExitsOneAndLeavesTheFileInTheWayAsItWas() throws Exception {
        int refusals = 0;
        for (Map.Entry<String, Cases> e : cases().entrySet()) {
            if (e.getValue().refused() == null) {
                continue;
            }
            byte[] profile = Files.readAllBytes(precious);
            Cli.Result r = Cli.run(e.getValue().refused()).expect(ExitCode.PROBLEMS);
            assertEquals("precious", Files.readString(existing), e.getKey() + " left the existing output as it was");
            assertTrue(java.util.Arrays.equals(profile, Files.readAllBytes(precious)), e.getKey() + " left the hint file as it was");
            if (e.getKey().equals("export")) {
                assertTrue(r.err().contains(precious + " is a hint file"), r.err());
            } else if (!e.getKey().equals("verify")) {
                assertTrue(r.err().contains(existing + " exists"), e.getKey() + ": " + r.err());
            }
            refusals++;
        }
        assertEquals(6, refusals, "merge, copy, create, upgrade, verify, export");
    }

    /**
     * A problem found, as copy and upgrade report it: a merge whose output could not index every
     * region it meant to keep within the probe bound (129 regions of one index home, where an index
     * of 512 entries holds 128 within max_probe) exits 1 and says so on standard error, and OUT
     * holds the others.
     */
    @Test
    void aMergeThatCouldNotIndexEveryRegionExitsOneNamingTheLoss() throws Exception {
        List<String> cluster = UpgradeConversionTest.namesAtHome(100, 129);
        StringBuilder json = new StringBuilder("{\"capacity\": 130, \"max_name_bytes\": 128, \"regions\": [");
        for (int i = 0; i < cluster.size(); i++) {
            long ns = 100_000L * (i + 1);
            json.append(i == 0 ? "" : ", ").append("{\"name\": \"").append(cluster.get(i)).append("\", \"dispatch_count\": 1,")
                    .append(" \"kernel_ns_total\": ").append(ns).append(", \"kernel_ns_max\": ").append(ns)
                    .append(", \"bytes_total\": 4096}");
        }
        Path profile = Files.writeString(dir.resolve("cluster.json"), json.append("]}"));
        Path out = dir.resolve("merged.hints");
        Cli.Result r = Cli.run("merge", "-q", profile.toString(), "-o", out.toString()).expect(ExitCode.PROBLEMS);
        assertTrue(r.err().contains("merge: 1 region(s) could not be indexed within the probe bound of " + out
                + " and are missing from it"), r.err());
        assertTrue(r.out().contains("129 regions, into " + out + ": 128 regions, capacity 130"), r.out());
        try (HintStore store = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(128, store.size());
            assertEquals(1, store.info().droppedInserts());
        }
    }
}
