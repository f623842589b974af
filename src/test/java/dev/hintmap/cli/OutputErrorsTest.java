package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a command says when its output cannot be written: every write error names the output
 * (a device that is full; standard output: {@link StandardOutputTest}), a file in a directory that takes no new files
 * ({@code /proc}) is said to be that, not a missing directory; and the {@code .json} rule holds for
 * the file a followed link leads to.
 */
class OutputErrorsTest {
    static final String CUTLASS =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";

    @TempDir
    Path dir;

    private Path hints(String name) throws IOException {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(8))) {
            store.add(new RegionRecord(CUTLASS, 3, 1_260_000, 630_000, 3 << 20));
        }
        return file;
    }

    private Set<String> entries() throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return new TreeSet<>(list.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void anOutputInProcIsSaidToBeInADirectoryThatTakesNoNewFilesNotAMissingOne() throws IOException {
        Path a = hints("a.hints");
        for (String[] args : new String[][] {
            {"copy", "-q", a.toString(), "/proc/self/comm", "--force"},
            {"export", "--prometheus", a.toString(), "-o", "/proc/self/comm"},
        }) {
            Cli.Result r = Cli.run(args).expect(ExitCode.IO_ERROR);
            assertTrue(r.err().contains("cannot write /proc/self/comm: ")
                    && r.err().contains("no new file can be created in /proc/self"), r.err());
            assertFalse(r.err().contains("no directory"), r.err());
        }
    }

    @Test
    void aWriteErrorIntoADeviceNamesTheDevice() throws IOException {
        Cli.Result r = Cli.run("export", "--prometheus", hints("a.hints").toString(), "-o", "/dev/full")
                .expect(ExitCode.IO_ERROR);
        assertEquals("hintmap export: cannot write /dev/full: No space left on device\n", r.err());
    }

    /** The rule is about the file written: through {@code --follow-symlinks}, the name of the link's target counts. */
    @Test
    void aHintFileIsNotWrittenThroughALinkToANameEndingInJson() throws IOException {
        Path a = hints("a.hints");
        Path json = Files.writeString(dir.resolve("p2.json"), "{\"version\": 1}");
        Path link = Files.createSymbolicLink(dir.resolve("lnk"), json.getFileName());
        Cli.Result r = Cli.run("copy", "-q", a.toString(), link.toString(), "--force", "--follow-symlinks")
                .expect(ExitCode.IO_ERROR);
        assertTrue(r.err().contains("lnk: leads to " + json.toRealPath()) && r.err().contains("as a JSON profile"), r.err());
        assertArrayEquals("{\"version\": 1}".getBytes(), Files.readAllBytes(json), "the JSON file is untouched");
        assertEquals(Set.of("a.hints", "lnk", "p2.json"), entries(), "nothing written");
        assertTrue(Files.isSymbolicLink(link));
    }
}
