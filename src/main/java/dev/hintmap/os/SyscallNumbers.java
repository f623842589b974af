package dev.hintmap.os;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Linux system call numbers {@link PosixFiles} calls through {@code syscall(2)}: x86-64's
 * ({@code <asm/unistd_64.h>}) and AArch64's, which is the generic table
 * ({@code <asm-generic/unistd.h>}). {@code SyscallNumbersTest} compares both columns with the
 * kernel headers where they are installed.
 */
public final class SyscallNumbers {
    private SyscallNumbers() {}

    private static final String ARCH = System.getProperty("os.arch", "");
    static final boolean AARCH64 = ARCH.equals("aarch64");
    /** Whether this JVM runs on an architecture whose numbers are below: x86-64 or AArch64. */
    public static final boolean SUPPORTED = AARCH64 || ARCH.equals("amd64") || ARCH.equals("x86_64");

    private static final Map<String, int[]> TABLE = new LinkedHashMap<>();

    static final int OPENAT = number("openat", 257, 56);
    static final int CLOSE = number("close", 3, 57);
    static final int STATX = number("statx", 332, 291);
    static final int LSEEK = number("lseek", 8, 62);
    static final int FGETXATTR = number("fgetxattr", 193, 10);
    static final int FCHMOD = number("fchmod", 91, 52);
    static final int FCHOWN = number("fchown", 93, 55);
    static final int FTRUNCATE = number("ftruncate", 77, 46);
    static final int FALLOCATE = number("fallocate", 285, 47);
    static final int MMAP = number("mmap", 9, 222);
    static final int MUNMAP = number("munmap", 11, 215);
    static final int MADVISE = number("madvise", 28, 233);
    static final int GETEUID = number("geteuid", 107, 175);
    static final int GETEGID = number("getegid", 108, 177);
    static final int GETGROUPS = number("getgroups", 115, 158);
    static final int IOCTL = number("ioctl", 16, 29);

    private static int number(String call, int x86_64, int aarch64) {
        TABLE.put(call, new int[] {x86_64, aarch64});
        return AARCH64 ? aarch64 : x86_64;
    }

    /** Every call above: name to {x86-64 number, AArch64 number}. */
    static Map<String, int[]> table() {
        return Collections.unmodifiableMap(TABLE);
    }

    /** Architecture name as the JVM reports it, for messages. */
    static String arch() {
        return ARCH;
    }
}
