package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every read-only command on the same samples written by Java and by C (identical files, FORMAT.md)
 * prints exactly the committed golden output, once the file's path and the clock are masked.
 * Regenerate after an intended change with {@code GoldenOutputTest.main} (see its Javadoc).
 */
class GoldenOutputTest {
    /** Command lines (FILE stands for the file) and the golden file each must print. */
    static final Map<String, List<String>> COMMANDS = new TreeMap<>(Map.ofEntries(
            Map.entry("top-total.txt", List.of("top", "-n", "8", "FILE")),
            Map.entry("top-mean.txt", List.of("top", "--by", "mean", "-n", "5", "FILE")),
            Map.entry("top-count.txt", List.of("top", "--by", "count", "-n", "5", "FILE")),
            Map.entry("top-max.txt", List.of("top", "--by", "max", "-n", "5", "FILE")),
            Map.entry("dump-table.txt", List.of("dump", "FILE")),
            Map.entry("dump.csv", List.of("dump", "--format", "csv", "--sort", "total", "FILE")),
            Map.entry("dump.json", List.of("dump", "--format", "json", "FILE")),
            Map.entry("export.prom", List.of("export", "--prometheus", "FILE")),
            Map.entry("verify.txt", List.of("verify", "FILE")),
            Map.entry("top-filter.txt", List.of("top", "--filter", "^(gemm|conv)", "FILE")),
            Map.entry("dump-filter.txt", List.of("dump", "--filter", "attn|softmax", "--sort", "total", "FILE")),
            Map.entry("export-top.prom", List.of("export", "--prometheus", "--filter", "_", "--top", "2", "FILE")),
            Map.entry("hot.txt", List.of("hot", "--coverage", "0.9", "--min-dispatches", "2", "FILE"))));

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Cli.Writer.class)
    void everyReadOnlyCommandPrintsTheGoldenOutput(Cli.Writer writer) throws Exception {
        Path file = writer.write(dir.resolve("samples.hints"));
        for (Map.Entry<String, List<String>> c : COMMANDS.entrySet()) {
            String printed = mask(run(c.getValue(), file), file);
            assertEquals(golden(c.getKey()), printed, c.getKey() + " of the file written by " + writer);
        }
    }

    static String run(List<String> command, Path file) {
        String[] args = command.stream().map(a -> a.equals("FILE") ? file.toString() : a).toArray(String[]::new);
        return Cli.run(args).expect(ExitCode.OK).out();
    }

    /** The output with the file's path and every time of day / timestamp (a counter's _created) replaced by fixed words. */
    static String mask(String output, Path file) {
        return output.replace(file.toString(), "FILE")
                .replaceAll("\\b\\d{2}:\\d{2}:\\d{2}\\b", "HH:MM:SS")
                .replaceAll("\"taken_at\" : \"[^\"]+\"", "\"taken_at\" : \"TIME\"")
                .replaceAll("(?m)^(\\w+_created\\{[^}]*\\}) \\S+$", "$1 CREATED");
    }

    private static String golden(String name) throws IOException {
        try (InputStream in = GoldenOutputTest.class.getResourceAsStream("golden/" + name)) {
            if (in == null) {
                throw new AssertionError("golden/" + name + " is missing: run GoldenOutputTest.main");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Rewrites the golden outputs from the Java-written file: run from the repository root with the test class
     * path, then review the diff. {@code java -cp ... dev.hintmap.cli.GoldenOutputTest}
     */
    public static void main(String[] args) throws Exception {
        Path tmp = Files.createTempDirectory("golden");
        Path file = Cli.writtenByJava(tmp.resolve("samples.hints"));
        Path out = Path.of("src/test/resources/dev/hintmap/cli/golden");
        Files.createDirectories(out);
        for (Map.Entry<String, List<String>> c : COMMANDS.entrySet()) {
            Files.writeString(out.resolve(c.getKey()), mask(run(c.getValue(), file), file), StandardCharsets.UTF_8);
        }
    }
}
