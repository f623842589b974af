package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.NativeTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FORMAT.md §1 allows NUL and control characters in names: the C tool {@code hm-dump} prints each
 * name whole, escaped exactly as the Java CLI's tables escape it ({@link Table#printable}).
 */
class NativeDumpNamesTest {
    @TempDir
    Path dir;

    @Test
    void hmDumpPrintsEveryNameWholeAndEscapedAsTheJavaTables() throws Exception {
        List<String> names = List.of("k\0v", "tab\tnew\nline", "esc\u001b[1mbold\u007f", "c1\u0085nel",
                "nbsp\u00a0ok", "back\\slash", "back\\x41", "two\\\\", "ends\\", "カーネル\0");
        Path file = dir.resolve("names.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            for (int i = 0; i < names.size(); i++) {
                store.record(names.get(i), 100L * (i + 1), i);
            }
        }
        Process p = new ProcessBuilder(NativeTools.tool("hm-dump").toString(), file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        for (int i = 0; i < names.size(); i++) {
            String line = "region " + Table.printable(names.get(i)) + " 1 " + 100L * (i + 1) + " " + 100L * (i + 1) + " " + i;
            assertTrue(out.lines().anyMatch(line::equals), "no line «" + line + "» in\n" + out);
        }
        assertEquals(names.size() + 1, out.lines().count(), "one line per region, then the size line: " + out);
    }
}
