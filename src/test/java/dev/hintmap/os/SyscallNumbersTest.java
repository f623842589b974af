package dev.hintmap.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The numbers {@link PosixFiles} passes to {@code syscall(2)} are the kernel's, for both
 * architectures it supports: compared with the kernel's own headers where they are installed
 * (one printed skip line per missing header, never a silent pass), and, for this machine's
 * architecture, by what the calls do.
 */
class SyscallNumbersTest {
    private static final Pattern DEFINE = Pattern.compile("#define __NR(?:3264)?_(\\w+)\\s+(\\d+)");

    private static Optional<Map<String, Integer>> header(String... candidates) throws IOException {
        for (String candidate : candidates) {
            Path p = Path.of(candidate);
            if (Files.isReadable(p)) {
                Map<String, Integer> numbers = new HashMap<>();
                Matcher m = DEFINE.matcher(Files.readString(p));
                while (m.find()) {
                    numbers.putIfAbsent(m.group(1), Integer.parseInt(m.group(2)));
                }
                return Optional.of(numbers);
            }
        }
        System.out.println("SKIP: no kernel header among " + String.join(", ", candidates)
                + " (linux-libc-dev): the column is not compared on this machine");
        return Optional.empty();
    }

    @Test
    void bothColumnsAreTheKernelHeadersNumbers() throws IOException {
        Optional<Map<String, Integer>> x86 = header("/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
                "/usr/include/asm/unistd_64.h");
        Optional<Map<String, Integer>> generic = header("/usr/include/asm-generic/unistd.h");
        assertEquals(16, SyscallNumbers.table().size());
        SyscallNumbers.table().forEach((call, numbers) -> {
            x86.ifPresent(h -> assertEquals(h.get(call), numbers[0], "x86-64 " + call));
            generic.ifPresent(h -> assertEquals(h.get(call), numbers[1], "AArch64 (generic) " + call));
        });
    }

    @Test
    void theCallsOfThisArchitectureDoWhatTheirNamesSay(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertTrue(SyscallNumbers.SUPPORTED, "tests run on x86-64 or AArch64");
        Path file = Files.write(dir.resolve("f"), new byte[10_000]);
        int fd = PosixFiles.open(file, PosixFiles.O_RDWR | PosixFiles.O_CLOEXEC | PosixFiles.O_NOFOLLOW, 0);
        try {
            PosixFiles.Stat stat = PosixFiles.fstat(fd);
            assertEquals(10_000, stat.size());
            assertEquals(Files.getAttribute(file, "unix:ino"), stat.inode());
            PosixFiles.fchmod(fd, 0640);
            assertEquals(0640, (int) Files.getAttribute(file, "unix:mode") & 07777);
            int uid = (int) Files.getAttribute(file, "unix:uid");
            int gid = (int) Files.getAttribute(file, "unix:gid");
            PosixFiles.fchown(fd, uid, gid); // to its own owner: allowed for any user, and a real call
            PosixFiles.PosixException badOwner = org.junit.jupiter.api.Assertions.assertThrows(PosixFiles.PosixException.class,
                    () -> PosixFiles.fchown(-1, uid, gid));
            assertEquals(9, badOwner.errno, "EBADF: fchown reached the kernel with its arguments");
            PosixFiles.ftruncate(fd, 4096);
            assertEquals(4096, Files.size(file));
            assertEquals(0, PosixFiles.fallocateInPlace(fd, 8192));
            assertEquals(8192, Files.size(file));
            assertEquals(8192, PosixFiles.firstHole(fd), "an allocated file has its first hole at its end");
            assertEquals(Files.getAttribute(dir, "unix:uid"), PosixFiles.geteuid());
            assertEquals(Files.getAttribute(file, "unix:gid"), PosixFiles.getegid());
            String groups = Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(l -> l.startsWith("Groups:")).findFirst().orElseThrow().substring(7).strip();
            assertEquals(groups.isEmpty() ? java.util.Set.of()
                            : java.util.Set.of(groups.split("\\s+")).stream().map(Integer::valueOf).collect(java.util.stream.Collectors.toSet()),
                    java.util.stream.IntStream.of(PosixFiles.getgroups()).boxed().collect(java.util.stream.Collectors.toSet()));
            java.lang.foreign.MemorySegment page = PosixFiles.mapPage(fd, 4100, 8);
            page.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 4100 % 4096, (byte) 7);
            PosixFiles.unmap(page);
            assertEquals(7, Files.readAllBytes(file)[4100]);
        } finally {
            PosixFiles.close(fd);
        }
        PosixFiles.PosixException gone = org.junit.jupiter.api.Assertions.assertThrows(PosixFiles.PosixException.class,
                () -> PosixFiles.fstat(fd));
        assertEquals(9, gone.errno, "EBADF once closed");
        PosixFiles.PosixException missing = org.junit.jupiter.api.Assertions.assertThrows(PosixFiles.PosixException.class,
                () -> PosixFiles.open(dir.resolve("none"), PosixFiles.O_RDONLY, 0));
        assertEquals(PosixFiles.ENOENT, missing.errno);
    }
}
