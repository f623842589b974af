package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.TestStores;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reliability round 2, finding 1, as it was found: a program that records from deep recursion
 * with a small stack gets {@code StackOverflowError}s out of {@code record()}, interpreted and
 * JIT-compiled. Each may drop its own sample, nothing more: while that JVM lives, no lock word
 * of either file is held, every region holds at least the samples whose {@code record()}
 * returned, and another process (this one) records into every region without waiting.
 */
class DeepRecursionTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-Xint", "-XX:+UseSerialGC"}) // interpreted; JIT-compiled (any flag that keeps the JIT)
    void stackOverflowsInsideRecordDropAtMostTheirOwnSamples(String mode) throws Exception {
        Path file = dir.resolve("deep.hints");
        Path churn = dir.resolve("churn.hints");
        List<String> command = new ArrayList<>(ChildJvm.builder(DeepRecursionChild.class,
                file.toString(), churn.toString(), mode.equals("-Xint") ? "5" : "40").command());
        command.add(1, "-Xss256k");
        command.add(1, mode);
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            Map<String, Long> ok = new HashMap<>();
            long overflows = -1;
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder seen = new StringBuilder();
            for (String line; (line = out.readLine()) != null && !line.equals("ready"); ) {
                seen.append(line).append('\n');
                String[] f = line.split(" ");
                if (f[0].equals("ok")) {
                    ok.put(f[1], Long.parseLong(f[2]));
                } else if (f[0].equals("overflows")) {
                    overflows = Long.parseLong(f[1]);
                }
            }
            assertTrue(overflows > 0, "the child overflowed its stack inside record(): " + seen);
            assertNoLockHeld(file, new FileGeometry(8, 64));
            assertNoLockHeld(churn, new FileGeometry(2, 64));
            try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
                long handleOk = ok.remove("handle");
                long deepA = store.dispatchCount("deep_a");
                assertTrue(deepA >= ok.get("deep_a") + handleOk, "deep_a kept every sample whose record() returned");
                for (Map.Entry<String, Long> e : ok.entrySet()) {
                    long count = store.dispatchCount(e.getKey());
                    assertTrue(count >= e.getValue(), e.getKey() + ": " + count + " counted, " + e.getValue() + " returned");
                    store.record(e.getKey(), 5, 5); // another process, while the child lives
                    assertEquals(count + 1, store.dispatchCount(e.getKey()), e.getKey() + " recorded without a drop");
                }
            }
            try (HintStore store = HintStore.open(churn, HintStoreOptions.defaults())) {
                long dropsBefore = store.info().droppedInserts();
                for (int i = 0; i < 5; i++) {
                    store.record("churn_" + i, 5, 5);
                    assertTrue(store.dispatchCount("churn_" + i) >= 1, "churn_" + i + " inserted without a wait or a drop");
                }
                assertEquals(dropsBefore, store.info().droppedInserts());
            }
        } finally {
            child.getOutputStream().close();
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        assertEquals(0, child.exitValue(), "the child closed its stores and exited normally");
    }

    private static void assertNoLockHeld(Path file, FileGeometry geometry) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            Memory m = new Memory(channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena));
            assertEquals(0L, Memory.acquireLong(m.segment, Layouts.HDR_STRUCT_LOCK), file.getFileName() + " struct_lock");
            Slots slots = new Slots(geometry);
            for (int k = 0; k < geometry.capacity(); k++) {
                assertEquals(0L, Memory.acquireLong(m.segment, Slots.lock(slots.slot(k))), file.getFileName() + " slot " + k + " lock");
            }
        }
    }
}
