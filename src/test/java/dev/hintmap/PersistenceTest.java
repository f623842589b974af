package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.Await;
import dev.hintmap.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records survive close/open, and other processes see them in place. */
class PersistenceTest {
    @TempDir
    Path dir;

    @Test
    void recordsSurviveCloseAndReopenExactly() throws Exception {
        Path file = dir.resolve("pgo.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(32).hotThresholdNs(500))) {
            for (int i = 0; i < 20; i++) {
                for (int n = 0; n <= i; n++) {
                    store.record("region-" + i, 100L * i + n, 10L * n);
                }
            }
            store.flush();
        }
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            assertEquals(32, store.capacity());
            assertEquals(500, store.hotThresholdNs(), "the file's threshold wins over the default");
            assertEquals(20, store.size());
            for (int i = 0; i < 20; i++) {
                RegionRecord r = store.recordFor("region-" + i).orElseThrow();
                long total = 0;
                long bytes = 0;
                for (int n = 0; n <= i; n++) {
                    total += 100L * i + n;
                    bytes += 10L * n;
                }
                assertEquals(new RegionRecord("region-" + i, i + 1, total, 100L * i + i, bytes), r);
            }
            store.record("region-3", 1, 1); // and it keeps recording
            assertEquals(5, store.dispatchCount("region-3"));
        }
    }

    @Test
    void evictionStateSurvivesReopen() throws Exception {
        Path file = dir.resolve("evict.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(3))) {
            for (String name : List.of("a", "b", "c", "d")) {
                store.record(name, 1, 1);
            }
            store.record("b", 1, 1);
        }
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            assertEquals(Set.of("b", "c", "d"), HintStoreBehaviourTest.names(store));
            store.record("e", 1, 1); // the hand and b's bit were persisted: c goes, as in one run
            assertEquals(Set.of("b", "d", "e"), HintStoreBehaviourTest.names(store));
            assertEquals(2, store.info().evictions());
        }
    }

    @Test
    void createdFileIsPrivateToItsOwnerAndLeavesNoTemporaryFile() throws Exception {
        Path file = dir.resolve("private.hints");
        HintStore.open(file, HintStoreOptions.defaults()).close();
        assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                Files.getPosixFilePermissions(file));
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList());
        }
    }

    @Test
    void secondProcessSeesRecordsInPlaceWhileTheFirstRecords() throws Exception {
        Path file = dir.resolve("live.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            for (int i = 0; i < 1000; i++) {
                store.record("steady", 200_000, 64);
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong recorded = new AtomicLong();
            Thread writer = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    store.record("growing", 1, 1);
                    recorded.incrementAndGet();
                }
            });
            // the child's polls then see live records, however slowly the writer thread got going
            Await.until("the writer thread recorded", () -> recorded.get() > 0);
            Process child = ChildJvm.builder(ChildReader.class, file.toString(), "steady", "growing", "5").start();
            List<String> lines;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                lines = out.lines().toList();
            }
            assertTrue(child.waitFor(60, TimeUnit.SECONDS));
            stop.set(true);
            writer.join();
            assertEquals(0, child.exitValue(), String.join("\n", lines));
            assertTrue(lines.contains("steady count=1000 hot=true"), String.join("\n", lines));
            long previous = -1;
            int polls = 0;
            for (String line : lines) {
                if (line.startsWith("growing count=")) {
                    long count = Long.parseLong(line.substring("growing count=".length()));
                    assertTrue(count >= previous, "counts seen by the other process never go back");
                    assertTrue(count <= recorded.get());
                    previous = count;
                    polls++;
                }
            }
            assertEquals(5, polls, String.join("\n", lines));
            assertTrue(previous > 0, "the child saw the parent's live records");
        }
    }

    @Test
    void writersInTwoProcessesLoseNoUpdate() throws Exception {
        Path file = dir.resolve("shared.hints");
        int perProcess = 200_000;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.record("shared", 1, 2); // the file exists before the child starts
            Process child = ChildJvm.builder(ChildWriter.class, file.toString(), "shared", Integer.toString(perProcess)).start();
            for (int i = 0; i < perProcess; i++) {
                store.record("shared", 1, 2);
            }
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue(), output);
            long expected = 1L + 2L * perProcess;
            // every sample is 1 ns and 2 bytes, except the child's first, which is 3 ns
            assertEquals(new RegionRecord("shared", expected, expected + 2, 3, 2 * expected),
                    store.recordFor("shared").orElseThrow());
        }
    }

    /** Child: opens read-only, prints the steady region, then polls the growing one N times. */
    public static final class ChildReader {
        public static void main(String[] args) throws Exception {
            try (HintStore store = HintStore.open(Path.of(args[0]), HintStoreOptions.defaults().readOnly(true))) {
                System.out.println(args[1] + " count=" + store.dispatchCount(args[1]) + " hot=" + store.isHot(args[1]));
                for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                    System.out.println(args[2] + " count=" + store.dispatchCount(args[2]));
                    Thread.sleep(20);
                }
            }
        }
    }

    /** Child: records N samples of (1 ns... max 3 ns, 2 bytes) into one region. */
    public static final class ChildWriter {
        public static void main(String[] args) throws Exception {
            try (HintStore store = HintStore.open(Path.of(args[0]), HintStoreOptions.defaults())) {
                Region region = store.region(args[1]);
                int n = Integer.parseInt(args[2]);
                for (int i = 0; i < n; i++) {
                    if (i % 2 == 0) {
                        region.record(i == 0 ? 3 : 1, 2);
                    } else {
                        store.record(args[1], 1, 2);
                    }
                }
            }
            System.out.println("done");
        }
    }
}
