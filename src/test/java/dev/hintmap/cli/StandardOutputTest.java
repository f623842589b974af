package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a command does when standard output does not take its result ({@link StandardOutput}): a
 * full disk is exit 4 with one line naming standard output, for every command that prints; a pipe
 * whose reader went away ends the command quietly with 141, as SIGPIPE ends other tools. Real
 * processes where the descriptor matters ({@code /dev/full}, a pipe closed early), this JVM for
 * the rule over every command.
 */
class StandardOutputTest {
    @TempDir
    Path dir;
    Path a;
    Path b;

    @BeforeEach
    void files() throws IOException {
        a = KernelNames.file(dir.resolve("a.hints"), 256);
        b = dir.resolve("b.hints");
        try (HintStore store = HintStore.open(b, HintStoreOptions.defaults().capacity(16))) {
            store.add(KernelNames.record(3));
        }
    }

    /** A writer that takes nothing, as standard output on a full disk. */
    private static PrintWriter full() {
        return new PrintWriter(new Writer() {
            @Override
            public void write(char[] buffer, int offset, int length) throws IOException {
                throw new IOException("No space left on device");
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
    }

    @Test
    void everyCommandWhoseResultStandardOutputDidNotTakeExitsFourNamingIt() throws IOException {
        Path v1 = dir.resolve("old.hints");
        Files.copy(Cli.home().resolve("src/test/resources/vectors/golden-v1.hints"), v1);
        String x = a.toString();
        List<String[]> commands = List.of(
                new String[] {"stat", x}, new String[] {"stat", "--json", x}, new String[] {"top", x},
                new String[] {"hot", x}, new String[] {"dump", x}, new String[] {"dump", "--format", "json", x},
                new String[] {"dump", "--format", "csv", x}, new String[] {"diff", x, b.toString()},
                new String[] {"diff", "--json", x, b.toString()}, new String[] {"export", x},
                new String[] {"export", x, "-o", "-"}, new String[] {"verify", x},
                new String[] {"merge", "-q", x, b.toString(), "-o", dir.resolve("m.hints").toString()},
                new String[] {"copy", "-q", x, dir.resolve("c.hints").toString()},
                new String[] {"create", dir.resolve("n.hints").toString(), "--capacity", "8"},
                new String[] {"record", b.toString(), KernelNames.CUBLAS, "5000", "0"},
                new String[] {"decay", b.toString(), "--factor", "0.5"},
                new String[] {"upgrade", "-q", v1.toString()},
                new String[] {"completion", "bash"}, new String[] {"dump", "--help"}, new String[] {"--version"});
        for (String[] args : commands) {
            StringWriter err = new StringWriter();
            int exit = HintmapCli.run(args, full(), new PrintWriter(err, true));
            String command = "hintmap" + (args[0].startsWith("-") ? "" : " " + args[0]);
            String what = String.join(" ", args) + ": " + err;
            assertEquals(ExitCode.IO_ERROR, exit, what);
            assertEquals(command + ": cannot write standard output: the write failed\n", err.toString(), what);
        }
    }

    @Test
    void aCommandThatFailedOnItsOwnKeepsItsStatusAndItsLine() {
        Path missing = dir.resolve("missing.hints");
        StringWriter err = new StringWriter();
        int exit = HintmapCli.run(new String[] {"dump", missing.toString()}, full(), new PrintWriter(err, true));
        assertEquals(ExitCode.BAD_FILE, exit, err.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains("no such hint file"), err.toString());
    }

    /** {@code hintmap ARGS > /dev/full}, in a process of its own. */
    @Test
    void aFullDiskOnStandardOutputIsExitFourWithTheReasonForEveryCommandThatPrintsAResult() throws Exception {
        for (String[] args : List.of(new String[] {"dump", a.toString()}, new String[] {"stat", a.toString()},
                new String[] {"top", a.toString()}, new String[] {"hot", a.toString()},
                new String[] {"diff", a.toString(), b.toString()}, new String[] {"export", a.toString()})) {
            Path err = dir.resolve("err.txt");
            Process p = hintmap(args).redirectOutput(new File("/dev/full")).redirectError(err.toFile()).start();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished: " + String.join(" ", args));
            String what = String.join(" ", args) + ": " + Files.readString(err);
            assertEquals(ExitCode.IO_ERROR, p.exitValue(), what);
            assertEquals("hintmap " + args[0] + ": cannot write standard output: No space left on device\n",
                    Files.readString(err), what);
        }
    }

    /**
     * {@code hintmap ARGS | head -1}: the reader takes the first line and closes the pipe while the
     * command has far more to write than the pipe holds (a 64 KiB buffer), or, for a live view, goes
     * on refreshing. No message, no stack, 141.
     */
    @Test
    void aReaderThatClosesThePipeEarlyEndsTheCommandQuietlyWithTheStatusOfSigpipe() throws Exception {
        Path big = dir.resolve("big.hints");
        try (HintStore store = HintStore.open(big, HintStoreOptions.defaults().capacity(4096))) {
            for (int i = 0; i < 3000; i++) {
                store.add(new RegionRecord(String.format("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn"
                        + "_align4_v%06d>(Params const&)", i), 1 + i, 100_000L * (i + 1), 100_000L * (i + 1), 4096));
            }
        }
        // top --watch through a pipe prints a table per refresh until its reader goes away (no --iterations)
        for (String[] args : List.of(new String[] {"dump", big.toString()}, new String[] {"export", big.toString()},
                new String[] {"top", "--watch", "--interval", "20", big.toString()})) {
            Path err = dir.resolve("err.txt");
            Process p = hintmap(args).redirectError(err.toFile()).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            p.getInputStream().close(); // the reader goes away, as head does after its line
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished: " + String.join(" ", args));
            String what = String.join(" ", args) + ": " + Files.readString(err);
            assertTrue(first != null && !first.isEmpty(), what);
            assertEquals(ExitCode.CLOSED_PIPE, p.exitValue(), what);
            assertEquals("", Files.readString(err), what);
        }
    }

    /** {@code hintmap ARGS} run by {@link HintmapCli#main} in a JVM of its own, on this test's class path. */
    private static ProcessBuilder hintmap(String... args) {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                HintmapCli.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }
}
