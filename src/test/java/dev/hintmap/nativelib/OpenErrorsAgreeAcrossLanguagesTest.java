package dev.hintmap.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.NativeTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A path that cannot be opened gets the same answer from both languages: the Java
 * {@link Problem} and the C {@code HM_E*} code that docs/FORMAT.md §9 pairs, for the same path
 * and the same read-only or writer open (C through {@code hm-open}, a separate process).
 */
class OpenErrorsAgreeAcrossLanguagesTest {
    /** FORMAT.md §9, the rows an open can give. */
    private static final Map<Problem, String> C_CODE = Map.of(
            Problem.MISSING, "HM_EMISSING",
            Problem.NOT_A_HINT_FILE, "HM_ENOTHINT",
            Problem.TRUNCATED, "HM_ETRUNCATED",
            Problem.UNFINISHED, "HM_EUNFINISHED",
            Problem.SYMLINK, "HM_ESYMLINK",
            Problem.IO, "HM_EIO");

    @TempDir Path dir;

    private Path planted(String kind, String suffix) throws IOException {
        Path p = dir.resolve(kind + suffix + ".hints");
        switch (kind) {
            case "missing-file" -> { }
            case "missing-directory" -> p = dir.resolve("no-such-dir" + suffix).resolve("x.hints");
            case "directory" -> Files.createDirectory(p);
            case "text-file" -> Files.writeString(p, "not a hint file\n".repeat(512));
            case "empty-file" -> Files.createFile(p);
            case "dangling-symlink" -> Files.createSymbolicLink(p, dir.resolve("nowhere"));
            case "symlink-to-file" -> {
                Path real = dir.resolve("real" + suffix + ".hints");
                try (HintStore s = HintStore.open(real, HintStoreOptions.defaults())) {
                    s.record("a", 1, 1);
                }
                Files.createSymbolicLink(p, real);
            }
            default -> throw new IllegalArgumentException(kind);
        }
        return p;
    }

    private static Problem javaProblem(Path p, boolean readOnly) {
        try {
            HintStore.open(p, HintStoreOptions.defaults().readOnly(readOnly)).close();
            return fail("Java opened " + p + " (read-only " + readOnly + ")");
        } catch (HintFileException e) {
            return e.problem();
        } catch (IOException e) {
            return fail(e);
        }
    }

    private static String cCode(Path p, boolean readOnly) throws Exception {
        List<String> command = new ArrayList<>(List.of(NativeTools.tool("hm-open").toString()));
        if (readOnly) {
            command.add("--read-only");
        }
        command.add(p.toString());
        Process c = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(c.waitFor(60, TimeUnit.SECONDS), "hm-open finished");
        assertTrue(out.startsWith("ERR "), "C opened " + p + ": " + out);
        // a failing open exits with the negated code it printed, never 0 (hm_open.c; issue 32)
        assertEquals(-Integer.parseInt(out.split(" ")[1]), c.exitValue(), "hm-open's exit status after " + out);
        return out.split(" ")[2];
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"missing-file", "missing-directory", "directory", "text-file", "empty-file",
            "dangling-symlink", "symlink-to-file"})
    void bothLanguagesNameTheSameProblemForReadersAndWriters(String kind) throws Exception {
        for (boolean readOnly : new boolean[] {true, false}) {
            if (!readOnly && (kind.equals("missing-file") || kind.equals("empty-file"))) {
                continue; // a writer creates (or initialises) these: no error to compare
            }
            Path p = planted(kind, readOnly ? "-r" : "-w");
            Problem java = javaProblem(p, readOnly);
            String c = cCode(p, readOnly);
            assertEquals(C_CODE.get(java), c, kind + ", read-only " + readOnly + ": Java " + java + ", C " + c);
        }
    }
}
