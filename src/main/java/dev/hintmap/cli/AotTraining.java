package dev.hintmap.cli;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The training run of the distribution's ahead-of-time cache ({@code bin/hintmap --make-aot-cache},
 * which the build runs once; JDK 24+, JEP 483 and 515): runs the everyday read-only commands in one
 * JVM, on a small file of names like a GPU program's, so the cache holds the classes they load,
 * already linked, and their method profiles. Not the writing commands ({@code merge}, {@code copy}):
 * the profiles of more commands make the JVM compile more methods early in every run, which cost
 * {@code stat} a fifth more CPU time here for commands that run seldom and long. The commands print
 * into nothing; a command that fails here fails the build (the cache would otherwise be trained on
 * an error path).
 */
final class AotTraining {
    private AotTraining() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: AotTraining SCRATCH_DIRECTORY");
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        Path a = dir.resolve("a.hints");
        Path b = dir.resolve("b.hints");
        for (Path p : List.of(a, b)) {
            Files.deleteIfExists(p);
        }
        record(a, 0);
        record(b, 1);
        PrintWriter none = new PrintWriter(Writer.nullWriter());
        String[][] commands = {
            {"stat", a.toString()}, {"stat", "--json", a.toString()},
            {"top", a.toString()}, {"top", "-n", "5", "--by", "mean", "--filter", "gemm", a.toString()},
            {"dump", a.toString()}, {"dump", "--format", "csv", a.toString()},
            {"dump", "--format", "json", a.toString()},
            {"verify", a.toString()}, {"export", "--prometheus", a.toString()}, {"diff", a.toString(), b.toString()},
            {"stat", "--help"}, {"--version"},
        };
        for (String[] command : commands) {
            int exit = HintmapCli.run(command, none, none);
            if (exit != ExitCode.OK) {
                throw new IllegalStateException("training command failed (exit " + exit + "): " + String.join(" ", command));
            }
        }
        for (Path p : List.of(a, b)) {
            Files.deleteIfExists(p);
        }
        // Out through System.exit, as every command leaves (HintmapCli.main): Runtime.exit asks for a
        // System.Logger, whose ~25 classes are then in the cache too instead of loaded from the JDK's
        // modules at the end of every command.
        System.exit(ExitCode.OK);
    }

    /** A few dispatches of kernels named as CUTLASS and PyTorch name theirs. */
    private static void record(Path file, int seed) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(32))) {
            for (int i = 0; i < 16; i++) {
                String name = (i % 2 == 0 ? "cutlass_80_tensorop_bf16_gemm_" : "at_native_vectorized_elementwise_") + i;
                for (int d = 0; d <= i + seed; d++) {
                    store.record(name, 20_000L * (i + 1) + d, 1L << (10 + i % 8));
                }
            }
        }
    }
}
