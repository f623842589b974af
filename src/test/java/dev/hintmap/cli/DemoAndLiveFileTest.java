package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The full demo, and every command on a file that native writers are recording into at that moment. */
class DemoAndLiveFileTest {
    @TempDir
    Path dir;

    @Test
    void theDemoRunsWritersWatchesThemAndEndsWithStatTopAndAVerifiedFile() {
        Path file = dir.resolve("demo.hints");
        Cli.Result r = Cli.run("demo", "--seconds", "3", "--file", file.toString()).expect(0);
        String out = r.out();
        assertTrue(out.contains("demo: created " + file + " (capacity 64"), out);
        assertTrue(out.contains("--- refresh 3 at "), "top watched the file 3 times:\n" + out);
        assertTrue(out.contains(") record during the 3 s of the live view below"), "says the time asked for:\n" + out);
        assertTrue(out.matches("(?s).*native hm-bench pid \\d+: [\\d,]+ dispatches.*native hm-bench pid \\d+: .*"), out);
        assertTrue(out.matches("(?s).*java writer  pid \\d+: [\\d,]+ dispatches from 2 threads.*"), out);
        assertTrue(out.contains("$ hintmap stat " + file) && out.contains("capacity         64 regions"), out);
        assertTrue(out.contains("$ hintmap top -n 10 " + file) && out.contains("flash_attn_fwd_bf16"), out);
        assertTrue(out.contains("cuda_gemm_bf16_") && out.contains("cuda_conv2d_nhwc_"), "native regions:\n" + out);
        assertTrue(out.contains("$ hintmap verify " + file + "\nOK "), out);
    }

    @Test
    void everyCommandWorksOnAFileBeingWrittenByTwoNativeProcesses() throws Exception {
        Path file = dir.resolve("live.hints");
        Process a = Cli.hmBench(file, 20, "live_a_", 30);
        Process b = null;
        try {
            for (int i = 0; i < 200 && !Files.exists(file); i++) {
                Thread.sleep(50);
            }
            b = Cli.hmBench(file, 20, "live_b_", 30);
            Cli.awaitLiveWriters(file, 2); // polls until both are attached
            String stat = Cli.run("stat", file.toString()).expect(0).out();
            java.util.regex.Matcher attached = java.util.regex.Pattern.compile("writers +(\\d+) attached now").matcher(stat);
            assertTrue(attached.find() && Integer.parseInt(attached.group(1)) >= 2, "both writers attached:\n" + stat);
            assertTrue(Cli.run("top", "-n", "5", file.toString()).expect(0).out().contains("live_"));
            Cli.run("dump", "--format", "json", file.toString()).expect(0);
            Cli.run("dump", "--format", "csv", file.toString()).expect(0);
            PrometheusTextParser.parse(Cli.run("export", "--prometheus", file.toString()).expect(0).out());
            assertTrue(Cli.run("verify", file.toString()).expect(0).out().startsWith("OK "));
            Cli.run("decay", "--factor", "0.5", file.toString()).expect(0);
            Path merged = dir.resolve("merged.hints");
            Cli.run("merge", file.toString(), "-o", merged.toString(), "-q").expect(0);
            assertTrue(Cli.run("top", "--watch", "--interval", "100", "--iterations", "2", file.toString()).expect(0)
                    .out().contains("--- refresh 2"));
            assertTrue(HintFiles.verify(file, HintStoreOptions.defaults()).ok());
        } finally {
            a.destroyForcibly();
            a.waitFor();
            if (b != null) {
                b.destroyForcibly();
                b.waitFor();
            }
        }
        assertEquals(true, HintFiles.verify(file, HintStoreOptions.defaults()).ok(), "sound after the writers were killed");
    }
}
