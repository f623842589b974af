package dev.hintmap.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.testkit.ChildOutput;
import dev.hintmap.testkit.FileChild;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.NativeTools;
import dev.hintmap.TestStores;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 7 item 4 across languages: C processes ({@code hm-open}) and JVMs create the same new path
 * at the same moment of the wall clock, once every JVM is up, while a reader polls it. Exactly one
 * creation is published (FORMAT.md §5: temporary file, then {@code link}); every process, whatever
 * its language, records into that one file; no temporary file is left; the reader never sees a
 * half-initialised file.
 */
class CrossLanguageCreationRaceTest {
    private static final int C_CREATORS = 3;
    private static final int JAVA_CREATORS = 2;
    private static final int JAVA_RECORDS = 1_000;
    private static final int C_RECORDS = 5;

    @TempDir
    Path dir;

    /** Files that start and stop the children, outside the directory the test lists. */
    @TempDir
    Path signals;

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killTheChildren() {
        children.forEach(Process::destroyForcibly); // a failed run leaves no poller or spinning racer
    }

    private static String output(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child finished");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private ChildOutput javaChild(String... args) throws IOException {
        Process p = ChildJvm.builder(FileChild.class, args).start();
        children.add(p);
        return new ChildOutput(p);
    }

    @RepeatedTest(2)
    void cAndJavaCreatorsRacingForOnePathShareTheOneFileThatIsPublished() throws Exception {
        Path file = dir.resolve("race.hints");
        Path go = signals.resolve("go");
        Path stop = signals.resolve("stop");
        ChildOutput reader = javaChild("poll", file.toString(), stop.toString());
        List<ChildOutput> java = new ArrayList<>();
        for (int i = 0; i < JAVA_CREATORS; i++) {
            java.add(javaChild("race", file.toString(), go.toString(), Integer.toString(JAVA_RECORDS)));
        }
        reader.await("polling");
        for (ChildOutput j : java) {
            j.await("ready"); // the JVMs are up (their start-up takes seconds on a loaded machine)
        }
        // the C tools start in milliseconds: they and the JVMs open at one moment of the wall clock
        long startAt = System.currentTimeMillis() + 300;
        List<Process> c = new ArrayList<>();
        for (int i = 0; i < C_CREATORS; i++) {
            List<String> command = new ArrayList<>(List.of(NativeTools.tool("hm-open").toString(),
                    "--start-at", Long.toString(startAt)));
            for (int r = 0; r < C_RECORDS; r++) {
                command.addAll(List.of("--record", "race", "10", "1"));
            }
            command.add(file.toString());
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            children.add(p);
            c.add(p);
        }
        while (System.currentTimeMillis() < startAt) {
            Thread.onSpinWait();
        }
        Files.createFile(go);
        Set<String> headers = new HashSet<>();
        for (ChildOutput j : java) {
            headers.add(j.lastLine());
        }
        for (Process p : c) {
            assertEquals("OK", output(p));
        }
        Files.createFile(stop);
        assertEquals(1, headers.size(), "the JVMs opened one file: " + headers);
        ByteBuffer header = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.read(header, 0);
        }
        assertEquals("created=" + header.getLong((int) Layouts.HDR_CREATED_EPOCH_MS) + " checksum="
                + Long.toHexString(header.getLong((int) Layouts.HDR_HEADER_CHECKSUM)), headers.iterator().next(),
                "and it is the file at the path");
        assertTrue(header.getLong((int) Layouts.HDR_CREATED_EPOCH_MS) >= startAt - 50, "created by one of the racers");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals((long) JAVA_CREATORS * JAVA_RECORDS + (long) C_CREATORS * C_RECORDS, store.dispatchCount("race"),
                    "no process of either language recorded into a file of its own");
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of("race.hints"), files.map(p -> p.getFileName().toString()).toList(),
                    "no temporary file left");
        }
        String polled = reader.lastLine();
        assertTrue(polled.contains(" bad=0 "), "the reader never saw a half-initialised file: " + polled);
    }
}
