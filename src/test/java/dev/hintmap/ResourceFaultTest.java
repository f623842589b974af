package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFileException.Problem;
import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.testkit.FileChild;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resource faults (issue 7 item 6): no space on create (a file-size limit in a child JVM, a small
 * tmpfs of our own) is a clean {@code NO_SPACE} with no file and no temporary left; a mapping
 * beyond the address-space limit is a clean {@code IO} error. (Closing while other threads
 * record: {@code store.CrashRecoveryTest#closingWhileOtherThreadsRecordStopsThemWithIllegalStateAndLeavesAUsableFile}.)
 */
class ResourceFaultTest {
    @TempDir
    Path dir;

    private List<Path> leftovers(Path in) throws IOException {
        try (var files = Files.list(in)) {
            return files.toList();
        }
    }

    @Test
    void fileSizeLimitOnCreateIsNoSpaceAndLeavesNothing() throws Exception {
        // The JVM ignores SIGXFSZ, so posix_fallocate returns EFBIG; the default file is 77,824 bytes > 64 KiB.
        Path file = dir.resolve("limited.hints");
        String out = FileSecurityTest.runUnderShell("ulimit -f 64", "create", file.toString());
        assertTrue(out.startsWith("NO_SPACE "), out);
        assertTrue(out.contains("EFBIG"), out);
        assertEquals(List.of(), leftovers(dir), "no file, no temporary");
    }

    @Test
    void fullFilesystemOnCreateIsNoSpaceAndLeavesNothing() throws Exception {
        Path mount = Files.createDirectory(dir.resolve("tmpfs"));
        Process mounting = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mount.toString())
                .redirectErrorStream(true).start();
        String why = new String(mounting.getInputStream().readAllBytes());
        assertTrue(mounting.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, mounting.exitValue(), "mounting a 256 KiB tmpfs (the tests run as root): " + why);
        try {
            Path file = mount.resolve("full.hints");
            HintFileException e = assertThrows(HintFileException.class,
                    () -> HintStore.open(file, HintStoreOptions.defaults().capacity(4096))); // ~800 KB
            assertEquals(Problem.NO_SPACE, e.problem(), e.getMessage());
            assertTrue(e.getMessage().contains("ENOSPC"), e.getMessage());
            assertEquals(List.of(), leftovers(mount), "no file, no temporary");
            try (HintStore small = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
                small.record("fits", 1, 1); // the same path works once it fits
                assertEquals(1, small.dispatchCount("fits"));
            }
        } finally {
            Process unmounting = new ProcessBuilder("umount", mount.toString()).redirectErrorStream(true).start();
            unmounting.getInputStream().readAllBytes();
            unmounting.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void mappingBeyondTheAddressSpaceLimitIsACleanError() throws Exception {
        // capacity 2^20 with 1 KiB names: a 1.2 GB file (allocated, not written), mapped under a 1 GB limit
        Path file = dir.resolve("huge.hints");
        List<String> jvm = new ArrayList<>(ChildJvm.builder(FileChild.class, "open", file.toString(),
                Integer.toString(1 << 20), "1024").command());
        jvm.addAll(1, List.of("-Xmx32m", "-Xss512k", "-XX:ReservedCodeCacheSize=32m", "-XX:CompressedClassSpaceSize=32m",
                "-XX:MaxMetaspaceSize=64m", "-XX:+UseSerialGC", "-XX:-UsePerfData"));
        jvm.remove("-Xmx256m");
        List<String> command = new ArrayList<>(List.of("sh", "-c", "ulimit -v 1000000; exec \"$@\"", "sh"));
        command.addAll(jvm);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).directory(dir.toFile()).start();
        String out = new String(process.getInputStream().readAllBytes()).trim();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), out);
        String line = out.substring(out.lastIndexOf('\n') + 1);
        assertTrue(line.startsWith("IO ") && line.contains("cannot map"), out);
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().startsWith("hs_err")), "no JVM crash");
        }
        Files.deleteIfExists(file);
    }
}
