package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.store.CreationCrashChild;
import dev.hintmap.testkit.Await;
import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.testkit.ChildOutput;
import dev.hintmap.testkit.FileChild;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Creation races and atomic initialisation (issue 7 item 4, FORMAT.md §5 creation): real JVMs
 * creating one path at the same moment, a reader polling while files are created, and a creator
 * killed between allocating and publishing its file.
 */
class CreationRaceTest {
    private static final int CREATORS = 4;
    private static final int RECORDS = 2_000;
    private static final int MIN_CREATIONS = 1_000;

    @TempDir
    Path dir;
    /** Files that tell the children when to start and stop (apart from the directory the tests list). */
    @TempDir
    Path signals;

    private List<Path> temporaries() throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    /** Children of the test, killed after it: a failed test leaves none polling or spinning. */
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killTheChildren() {
        children.forEach(Process::destroyForcibly);
    }

    private ChildOutput child(String... args) throws IOException {
        Process p = ChildJvm.builder(FileChild.class, args).start();
        children.add(p);
        return new ChildOutput(p);
    }

    @Test
    void jvmsCreatingOnePathAtOnceAllOpenTheSameFileAndLoseNoRecord() throws Exception {
        Path file = dir.resolve("race.hints");
        Path go = signals.resolve("go");
        Path stop = signals.resolve("stop");
        ChildOutput reader = child("poll", file.toString(), stop.toString());
        List<ChildOutput> creators = new ArrayList<>();
        for (int i = 0; i < CREATORS; i++) {
            creators.add(child("race", file.toString(), go.toString(), Integer.toString(RECORDS)));
        }
        reader.await("polling");
        for (ChildOutput creator : creators) {
            creator.await("ready"); // every JVM is up, then all open at once
        }
        Files.createFile(go);
        Set<String> headers = new HashSet<>();
        for (ChildOutput creator : creators) {
            String line = creator.lastLine();
            assertTrue(line.startsWith("created="), line);
            headers.add(line);
        }
        Files.createFile(stop);
        assertEquals(1, headers.size(), "every creator opened the one published file: " + headers);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals((long) CREATORS * RECORDS, store.dispatchCount("race"), "no record lost to a second file");
        }
        assertEquals(List.of(), temporaries(), "no temporary file left");
        String polled = reader.lastLine();
        assertTrue(polled.contains(" bad=0 "), "the reader never saw a half-initialised file: " + polled);
    }

    @Test
    void aReaderPollingDuringRepeatedCreationsNeverSeesAHalfInitialisedFile() throws Exception {
        Path file = dir.resolve("poll.hints");
        Path stop = signals.resolve("stop");
        ChildOutput reader = child("poll", file.toString(), stop.toString());
        reader.await("polling");
        int[] creations = {0};
        // creations go on until the reader has opened one of the files, not for a time its start may outlast
        Await.until(() -> creations[0] + " creations, reader: " + reader.lines(), () -> {
            for (int i = 0; i < 10; i++) {
                Files.deleteIfExists(file);
                try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(64))) {
                    store.record("r", 1, 1);
                }
                creations[0]++;
            }
            return creations[0] >= MIN_CREATIONS && reader.printed("first-open");
        });
        Files.createFile(stop);
        String polled = reader.lastLine();
        assertTrue(polled.contains(" bad=0 "), "after " + creations[0] + " creations: " + polled);
        assertFalse(polled.startsWith("opened=0 "), "the reader opened some of the files: " + polled);
        assertEquals(List.of(), temporaries());
    }

    @Test
    void aCreatorKilledBeforePublishingLeavesNoFileAndItsTemporaryIsRemovedByTheNextCreation() throws Exception {
        Path file = dir.resolve("crash.hints");
        Process creator = ChildJvm.builder(CreationCrashChild.class, file.toString()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(creator.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null && !line.equals("allocated")) {
                // JVM warnings, if any
            }
            assertEquals("allocated", line, "the child reached the pause between allocation and publication");
            creator.destroyForcibly(); // SIGKILL
            assertTrue(creator.waitFor(30, TimeUnit.SECONDS));
        } finally {
            creator.destroyForcibly();
        }
        assertFalse(Files.exists(file), "a crashed creation leaves no file at the path");
        List<Path> stray = temporaries();
        assertEquals(1, stray.size(), "the dead creator's temporary: " + stray);
        assertTrue(stray.get(0).getFileName().toString().startsWith("crash.hints." + creator.pid() + "."), stray.toString());

        Path alive = Files.createFile(dir.resolve("crash.hints." + ProcessHandle.current().pid() + ".0123456789abcdef.tmp"));
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.record("after", 1, 1);
            assertEquals(1, store.dispatchCount("after"));
        }
        assertEquals(List.of(alive), temporaries(), "the dead creator's temporary is removed, a live one's is kept");
    }
}
