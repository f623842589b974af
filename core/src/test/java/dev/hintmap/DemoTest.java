package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.demo.Demo;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's main command, run as a real process: a writer JVM and a reader JVM. */
class DemoTest {
    @TempDir
    Path dir;

    @Test
    void demoPrintsTheHotRegionsReadBackByASecondProcess() throws Exception {
        String out = ChildJvm.run(Demo.class, dir.resolve("demo.hints").toString());
        assertTrue(out.contains("recorded 20,000 dispatches from 4 threads"), out);
        assertTrue(out.contains("read-only: 8 regions"), out);
        assertTrue(out.matches("(?s).*gemm_bf16_128x128x64\\s+HOT.*"), out);
        assertTrue(out.matches("(?s).*elementwise_gelu\\s+\\d.*"), "a cold region is listed without HOT:\n" + out);
        assertTrue(out.contains("20,000 dispatches in total"), out);
    }
}
