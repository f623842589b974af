package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.PrivateMountNamespace;
import dev.hintmap.testkit.SparseChild;
import dev.hintmap.testkit.SparseCopy;
import dev.hintmap.TestStores;
import dev.hintmap.os.PosixFiles;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reliability round 2, finding 2: a sparse hint file (what {@code cp --sparse=always},
 * {@code rsync -S} and {@code tar -S} make of a mostly-zero file) passed every check at open and
 * then killed writers with {@code SIGBUS} on a full filesystem. A writer now allocates the file
 * before mapping it, or reports {@code NO_SPACE}; a reader refuses it ({@code SPARSE}).
 */
class SparseFileTest {
    @TempDir
    Path dir;

    private static long allocatedBytes(Path file) throws Exception {
        return PosixFiles.stat(file, false).allocatedBytes();
    }

    private static long firstHole(Path file) throws Exception {
        int fd = PosixFiles.open(file, PosixFiles.O_RDONLY | PosixFiles.O_CLOEXEC, 0);
        try {
            return PosixFiles.firstHole(fd);
        } finally {
            PosixFiles.close(fd);
        }
    }

    @Test
    void aReaderRefusesASparseCopyAndAWritersOpenAllocatesIt() throws Exception {
        Path original = dir.resolve("original.hints");
        try (HintStore store = HintStore.open(original, HintStoreOptions.defaults())) {
            store.record("gemm", 420_000, 1 << 20);
        }
        Path copy = dir.resolve("copy.hints");
        SparseCopy.of(original, copy);
        long size = Files.size(copy);
        assumeTrue(firstHole(copy) < size && allocatedBytes(copy) < size, "this filesystem keeps holes");

        HintFileException refused = org.junit.jupiter.api.Assertions.assertThrows(HintFileException.class,
                () -> HintStore.open(copy, HintStoreOptions.defaults().readOnly(true)));
        assertEquals(HintFileException.Problem.SPARSE, refused.problem());
        assertTrue(refused.getMessage().contains("open it once for writing"), refused.getMessage());

        try (HintStore writer = HintStore.open(copy, HintStoreOptions.defaults())) {
            assertEquals(1, writer.dispatchCount("gemm"));
        }
        assertTrue(allocatedBytes(copy) >= size, "the writer's open allocated every page");
        try (HintStore reader = HintStore.open(copy, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(420_000, reader.meanKernelNs("gemm"));
        }
        try (HintStore a = HintStore.open(original, HintStoreOptions.defaults().readOnly(true));
                HintStore b = HintStore.open(copy, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(a.snapshot().regions(), b.snapshot().regions(), "allocation changed no record");
        }
    }

    /**
     * The finding as reproduced: a small tmpfs in a private mount namespace, the sparse copy on
     * it, the rest filled. Interpreted and JIT-compiled writers get {@code NO_SPACE}, readers
     * {@code SPARSE}, no signal; with room again the writer allocates and works; a hole punched
     * under a running writer on the full filesystem is a file problem, never a raw error.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-Xint", "-XX:+UseSerialGC"})
    void onAFullFilesystemASparseFileIsNoSpaceForWritersAndSparseForReadersWithoutASignal(String mode) throws Exception {
        Path original = dir.resolve("original.hints");
        try (HintStore store = HintStore.open(original, HintStoreOptions.defaults())) {
            store.record("gemm", 420_000, 1 << 20);
        }
        Path mount = Files.createDirectory(dir.resolve("tmpfs"));
        Path target = mount.resolve("sparse.hints");
        String java = String.join(" ", javaCommand(mode));
        String script = String.join("\n",
                "set -e",
                "mount -t tmpfs -o size=256k tmpfs " + mount,
                "cp --sparse=always " + original + " " + target,
                "dd if=/dev/zero of=" + mount + "/fill bs=4k 2>/dev/null || true",
                "echo read $(" + java + " read " + target + ")",
                "echo write $(" + java + " write " + target + ")",
                "rm " + mount + "/fill",
                "echo roomy $(" + java + " write " + target + ")",
                "echo reread $(" + java + " read " + target + ")",
                "dd if=/dev/zero of=" + mount + "/fill bs=4k 2>/dev/null || true",
                "echo full $(" + java + " write " + target + ")");
        List<String> lines = PrivateMountNamespace.run("full-filesystem tests", script);
        assertTrue(lines.get(0).startsWith("read SPARSE "), lines.toString());
        assertTrue(lines.get(1).startsWith("write NO_SPACE "), lines.toString());
        assertTrue(lines.get(1).contains("unallocated ranges"), lines.toString());
        assertEquals("roomy ok 1", lines.get(2), lines.toString());
        assertEquals("reread ok 2", lines.get(3), "both regions, read-only: " + lines);
        assertEquals("full ok 2", lines.get(4), "an allocated file works on a full filesystem: " + lines);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-Xint", "-XX:+UseSerialGC"})
    void aHolePunchedUnderARunningWriterOnAFullFilesystemIsAFileProblemNotACrash(String mode) throws Exception {
        Path original = dir.resolve("original.hints");
        try (HintStore store = HintStore.open(original, HintStoreOptions.defaults())) {
            store.record("gemm", 420_000, 1 << 20);
        }
        Path mount = Files.createDirectory(dir.resolve("tmpfs"));
        Path target = mount.resolve("live.hints");
        String fifo = dir.resolve("go").toString();
        String script = String.join("\n",
                "set -e",
                "mount -t tmpfs -o size=512k tmpfs " + mount,
                "cp " + original + " " + target,
                "mkfifo " + fifo,
                "(" + String.join(" ", javaCommand(mode)) + " fault " + target + " < " + fifo + " > " + dir.resolve("out")
                        + " 2>&1; echo exit $? >> " + dir.resolve("out") + ") &",
                "exec 3> " + fifo,
                "until grep -q opened " + dir.resolve("out") + "; do sleep 0.05; done",
                "fallocate --punch-hole --offset 8192 --length $(( $(stat -c %s " + target + ") - 8192 )) " + target,
                "dd if=/dev/zero of=" + mount + "/fill bs=4k 2>/dev/null || true", // after the punch: no page to spare
                "echo go >&3",
                "exec 3>&-",
                "wait",
                "cat " + dir.resolve("out"));
        List<String> lines = PrivateMountNamespace.run("full-filesystem tests", script);
        String result = lines.get(lines.size() - 2);
        assertEquals("exit 0", lines.get(lines.size() - 1), "no signal killed the writer: " + lines);
        assertTrue(result.startsWith("unchecked IO ") && result.contains("could not be allocated"),
                "the fault is the store's I/O problem, not a raw InternalError: " + lines);
    }

    private static List<String> javaCommand(String mode) {
        List<String> command = new ArrayList<>(ChildJvm.builder(SparseChild.class).command());
        command.add(1, mode);
        command.add(1, "-Xshare:auto");
        return command;
    }
}
