package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.TestStores;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability round 4, finding 13: an output was renamed into place without its directory being
 * synced, and the text path renamed a file it never synced, so a power loss after "wrote FILE"
 * could bring back the old file or an empty {@code .prom}. Every output is now synced before it is
 * published and its directory after, as the library syncs a hint file it creates; the
 * {@link Durability} seam ({@link TestSeams#syncs}) records the two calls and what the path held at each.
 */
class OutputDurabilityTest {
    static final String CUTLASS =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";

    @TempDir
    Path dir;

    @AfterEach
    void systemSyncs() {
        TestSeams.syncs = null;
    }

    /** Records each sync and checks the order against what is at the output then. */
    private static final class Recorder implements Durability {
        final List<String> calls = new ArrayList<>();
        final Path out;
        final String old;

        Recorder(Path out, String old) {
            this.out = out;
            this.old = old;
        }

        @Override
        public void syncFile(Path file, FileChannel channel) throws IOException {
            assertTrue(channel.size() > 0, "the file is written before it is synced");
            assertFalse(file.equals(out), "the temporary file is synced, not the output");
            assertEquals(old, Files.exists(out) ? Files.readString(out, StandardCharsets.ISO_8859_1) : null,
                    "synced before it replaces the output");
            calls.add("file " + file.getParent());
            Durability.SYSTEM.syncFile(file, channel);
        }

        @Override
        public void syncDirectory(Path published) {
            assertEquals(out, published);
            assertTrue(Files.exists(out), "the directory is synced after the new file is at the path");
            calls.add("directory " + published.getParent());
            Durability.SYSTEM.syncDirectory(published);
        }
    }

    private static FileArgs files() {
        return new FileArgs();
    }

    private static ReplaceOptions force() {
        ReplaceOptions replace = new ReplaceOptions();
        replace.force = true;
        return replace;
    }

    @Test
    void aTextOutputIsSyncedBeforeItReplacesTheOldFileAndItsDirectoryAfter() throws Exception {
        Path out = Files.writeString(dir.resolve("hintmap.prom"), "# last run\n");
        Recorder recorder = new Recorder(out, "# last run\n");
        TestSeams.syncs = recorder;
        OutputFile target = new OutputFile("export", out, OutputFile.Content.TEXT, new ReplaceOptions(), files());
        target.check(HintmapCli.commandLine());
        target.publishText("hintmap_regions{file=\"a\"} 1.0\n".getBytes(StandardCharsets.UTF_8),
                new PrintWriter(new StringWriter()), new Progress(new PrintWriter(new StringWriter()), true));
        assertEquals(List.of("file " + dir, "directory " + dir), recorder.calls);
        assertEquals("hintmap_regions{file=\"a\"} 1.0\n", Files.readString(out));
    }

    @Test
    void aHintFileOutputIsSyncedBeforeItIsPublishedAndItsDirectoryAfter() throws Exception {
        List<RegionRecord> regions = List.of(new RegionRecord(CUTLASS, 3, 1_260_000, 630_000, 3 << 20));
        HintStoreOptions options = HintStoreOptions.defaults().capacity(8);
        Progress quiet = new Progress(new PrintWriter(new StringWriter()), true);

        Path created = dir.resolve("new.hints");
        Recorder first = new Recorder(created, null);
        TestSeams.syncs = first;
        OutputFile target = new OutputFile("merge", created, OutputFile.Content.HINT_FILE, new ReplaceOptions(), files());
        target.check(HintmapCli.commandLine());
        target.publish(regions, options, quiet);
        assertEquals(List.of("file " + dir, "directory " + dir), first.calls, "published by link(2)");

        String old = Files.readString(created, StandardCharsets.ISO_8859_1);
        Recorder second = new Recorder(created, old);
        TestSeams.syncs = second;
        target = new OutputFile("copy", created, OutputFile.Content.HINT_FILE, force(), files());
        target.check(HintmapCli.commandLine());
        target.publish(regions, options, quiet);
        assertEquals(List.of("file " + dir, "directory " + dir), second.calls, "published by rename(2) over the old one");
        try (HintStore store = HintStore.open(created, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(3, store.dispatchCount(CUTLASS));
        }
    }

    @Test
    void aStreamIsNeitherSyncedNorRenamed() throws Exception {
        Recorder recorder = new Recorder(Path.of("-"), null);
        StringWriter stdout = new StringWriter();
        TestSeams.syncs = recorder;
        OutputFile target = new OutputFile("export", Path.of("-"), OutputFile.Content.TEXT, new ReplaceOptions(), files());
        target.check(HintmapCli.commandLine());
        target.publishText("x 1\n".getBytes(StandardCharsets.UTF_8), new PrintWriter(stdout, true),
                new Progress(new PrintWriter(new StringWriter()), true));
        assertEquals("x 1\n", stdout.toString());
        assertEquals(List.of(), recorder.calls);
    }
}
