package dev.hintmap.os;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;

import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * The few POSIX calls that {@code java.nio} cannot make on a descriptor, as FFM downcalls
 * (Linux, x86-64 and AArch64): {@code open} with {@code O_NOFOLLOW|O_NONBLOCK},
 * {@code statx} of a descriptor ({@code AT_EMPTY_PATH}) or of a path, {@code fallocate},
 * {@code ftruncate}, {@code fchmod}, {@code close}, {@code lseek(SEEK_HOLE)}, {@code fgetxattr},
 * {@code mmap}/{@code munmap}/{@code madvise} of one page, this process's effective ids and
 * groups, and a terminal's width ({@code ioctl(TIOCGWINSZ)}, for the command line tool's tables).
 * They let {@link MappedStore} check the file it actually opened, never the path a second time
 * (FORMAT.md §5 step 0), and allocate a new file before it is published (§5 creation step 3).
 *
 * <p>Every call but one goes through the C library's {@code syscall(2)} with the system call's
 * number ({@link SyscallNumbers}): one downcall handle of one shape for all of them. Linking a
 * downcall costs the JDK tens of milliseconds per distinct shape (it generates and loads classes
 * for it) and that cost falls on the first {@code HintStore.open} of every JVM: fourteen shapes made
 * it about 240 ms, one makes it the cost of one (src/jmh/resources/dev/hintmap/bench/startup.md). The exception is
 * {@code posix_fallocate} at creation, a C library function (it falls back to writing zeros where
 * the filesystem cannot allocate), linked on first use only.
 *
 * <p>Every call returns the C result; a failure carries {@code errno} (captured right after the
 * call with {@link Linker.Option#captureCallState}) in a {@link PosixException}.
 * {@code posix_fallocate} returns its error number instead of setting {@code errno}.
 *
 * <p>Needs native access: {@code --enable-native-access=ALL-UNNAMED} (class path) or
 * {@code =dev.hintmap} (module path); without it the JVM prints a warning on first use.
 */
public final class PosixFiles {
    private PosixFiles() {}

    // errno values used by callers (asm-generic, the same on x86-64 and AArch64)
    public static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EACCES = 13;
    static final int EEXIST = 17;
    static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ELOOP = 40;
    public static final int EOPNOTSUPP = 95;
    public static final int EDQUOT = 122;
    static final int ENXIO = 6;
    static final int ENODATA = 61;
    static final int ERANGE = 34;

    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    public static final int O_NOCTTY = 0400;
    public static final int O_NONBLOCK = 04000;
    public static final int O_CLOEXEC = 02000000;
    /** Differs between the two architectures (asm-generic vs x86). */
    public static final int O_NOFOLLOW = SyscallNumbers.AARCH64 ? 0100000 : 0400000;

    private static final int AT_FDCWD = -100;
    private static final int AT_SYMLINK_NOFOLLOW = 0x100;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_BASIC_STATS = 0x7ff;

    static final int S_IFMT = 0170000;
    public static final int S_IFREG = 0100000;
    static final int S_IFDIR = 0040000;
    public static final int S_IWOTH = 0002;

    /**
     * {@code struct statx} of {@code <linux/stat.h>} (256 bytes), the same on x86-64 and AArch64
     * (fixed-size fields only). Only the fields named here are read.
     */
    static final StructLayout STATX = structLayout(
            ValueLayout.JAVA_INT.withName("stx_mask"),
            ValueLayout.JAVA_INT.withName("stx_blksize"),
            ValueLayout.JAVA_LONG.withName("stx_attributes"),
            ValueLayout.JAVA_INT.withName("stx_nlink"),
            ValueLayout.JAVA_INT.withName("stx_uid"),
            ValueLayout.JAVA_INT.withName("stx_gid"),
            ValueLayout.JAVA_SHORT.withName("stx_mode"),
            paddingLayout(2),
            ValueLayout.JAVA_LONG.withName("stx_ino"),
            ValueLayout.JAVA_LONG.withName("stx_size"),
            ValueLayout.JAVA_LONG.withName("stx_blocks"),
            ValueLayout.JAVA_LONG.withName("stx_attributes_mask"),
            paddingLayout(4 * 16), // stx_atime, stx_btime, stx_ctime, stx_mtime
            ValueLayout.JAVA_INT.withName("stx_rdev_major"),
            ValueLayout.JAVA_INT.withName("stx_rdev_minor"),
            ValueLayout.JAVA_INT.withName("stx_dev_major"),
            ValueLayout.JAVA_INT.withName("stx_dev_minor"),
            paddingLayout(256 - 144)).withName("statx");

    private static final long UID = STATX.byteOffset(groupElement("stx_uid"));
    private static final long GID = STATX.byteOffset(groupElement("stx_gid"));
    private static final long MODE = STATX.byteOffset(groupElement("stx_mode"));
    private static final long INO = STATX.byteOffset(groupElement("stx_ino"));
    private static final long SIZE = STATX.byteOffset(groupElement("stx_size"));
    private static final long BLOCKS = STATX.byteOffset(groupElement("stx_blocks"));
    private static final long DEV_MAJOR = STATX.byteOffset(groupElement("stx_dev_major"));
    private static final long DEV_MINOR = STATX.byteOffset(groupElement("stx_dev_minor"));

    /** What {@code statx} says about a file. */
    public record Stat(int mode, int uid, int gid, long size, long device, long inode, long blocks) {
        /** Bytes the filesystem has allocated to the file (512-byte blocks, as {@code stat} counts them). */
        public long allocatedBytes() {
            return blocks * 512;
        }

        public boolean isRegularFile() {
            return (mode & S_IFMT) == S_IFREG;
        }

        /** What kind of file this is, in words: "a regular file", "a FIFO", "a directory", ... */
        public String kind() {
            return switch (mode & S_IFMT) {
                case S_IFREG -> "a regular file";
                case S_IFDIR -> "a directory";
                case 0010000 -> "a FIFO";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                case 0120000 -> "a symbolic link";
                default -> String.format("a file of type 0%o", mode & S_IFMT);
            };
        }

        public boolean sameFile(Stat other) {
            return device == other.device && inode == other.inode;
        }

        public String modeOctal() {
            return String.format("0%o", mode & 07777);
        }
    }

    /** A failed call: the call's name and its error number. */
    public static final class PosixException extends Exception {
        private static final long serialVersionUID = 1L;
        public final int errno;

        PosixException(String call, int errno) {
            super(call + " failed: " + errnoName(errno));
            this.errno = errno;
        }
    }

    /**
     * {@code long syscall(long number, ...)} with six arguments, every one passed as a {@code long}
     * (a register each on both architectures; the kernel reads an {@code int} argument from the
     * register's low half), and {@code errno} captured. Linked by {@link #linkSyscall()}.
     */
    private static final class Syscall {
        static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CAPTURE.varHandle(groupElement("errno"));
        static final MethodHandle HANDLE = linkSyscall();

        static int errno(MemorySegment state) {
            return (int) ERRNO.get(state, 0L);
        }
    }

    /**
     * Links the one downcall handle of {@link Syscall}; the JDK keeps it, so a second link of the
     * same shape (by {@link NativeAccess}'s probe, then by {@link Syscall}) costs nothing.
     *
     * @throws IllegalCallerException when the JVM denies this module native access
     */
    @SuppressWarnings("restricted") // downcalls into libc: the documented reason this library needs native access
    static MethodHandle linkSyscall() {
        Linker linker = Linker.nativeLinker();
        ValueLayout.OfLong word = ValueLayout.JAVA_LONG;
        return linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(
                        () -> new UnsupportedOperationException("the C library has no syscall()")),
                FunctionDescriptor.of(word, word, word, word, word, word, word, word),
                Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(1));
    }

    /** {@code posix_fallocate}, a C library function (not a system call), linked on the first creation. */
    private static final class PosixFallocate {
        @SuppressWarnings("restricted") // as linkSyscall
        static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("posix_fallocate").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    }

    /** The raw result of system call {@code number}; -1 with {@code errno} in {@code state} on failure. */
    private static long syscall(MemorySegment state, int number, long a, long b, long c, long d, long e, long f) {
        try {
            return (long) Syscall.HANDLE.invokeExact(state, (long) number, a, b, c, d, e, f);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A system call that returns -1 on failure: its result, or a {@link PosixException} named {@code name}. */
    private static long checked(String name, int number, long a, long b, long c, long d, long e, long f)
            throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Syscall.CAPTURE);
            long result = syscall(state, number, a, b, c, d, e, f);
            if (result == -1) {
                throw new PosixException(name, Syscall.errno(state));
            }
            return result;
        }
    }

    /** Throws what a downcall threw; a downcall of these signatures throws nothing checked. */
    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    /** {@code MADV_HUGEPAGE} of {@code <asm-generic/mman-common.h>}, the same on both architectures. */
    private static final int MADV_HUGEPAGE = 14;
    /** Below one huge page there is nothing to back with one. */
    static final long HUGE_PAGE_BYTES = 2L << 20;

    /**
     * Asks the kernel to back {@code mapping} with transparent huge pages (FORMAT.md §5 opening
     * step 6): fewer TLB misses on a large store. Best effort: the answer is ignored, since the
     * bytes are the same either way and only tmpfs honours it for a shared file mapping.
     */
    public static void adviseHugePages(MemorySegment mapping) {
        if (mapping.byteSize() < HUGE_PAGE_BYTES) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            long ignored = syscall(arena.allocate(Syscall.CAPTURE), SyscallNumbers.MADVISE, mapping.address(),
                    mapping.byteSize(), MADV_HUGEPAGE, 0, 0, 0);
        } catch (RuntimeException e) {
            // an advice the kernel does not take changes nothing
        }
    }

    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_SHARED = 0x1;

    /**
     * {@code mmap} of the page of {@code fd} that holds {@code [offset, offset + length)},
     * read-write and shared, outside any arena: the caller unmaps it with {@link #unmap}. For a
     * mapping that one thread at a time touches (a writer's own table entry, released by
     * {@code close}): a shared arena's close costs a handshake with every thread of the JVM
     * (about 0.1 ms here), which an arena-free page does not need (docs/archive/PERFORMANCE-HISTORY.md, "7a, 7b missed").
     *
     * @return the whole page; the bytes asked for start at {@code offset % 4096} in it
     */
    @SuppressWarnings("restricted") // the page mmap just returned, exactly its length
    public static MemorySegment mapPage(int fd, long offset, long length) throws PosixException {
        long pageStart = offset & -Layouts.PAGE;
        long pageBytes = (offset + length - pageStart + Layouts.PAGE - 1) & -Layouts.PAGE;
        long address = checked("mmap", SyscallNumbers.MMAP, 0, pageBytes, PROT_READ_WRITE, MAP_SHARED, fd, pageStart);
        return MemorySegment.ofAddress(address).reinterpret(pageBytes);
    }

    /** {@code munmap} of a page {@link #mapPage} returned; a failure (none is possible for it) is ignored. */
    public static void unmap(MemorySegment page) {
        try (Arena arena = Arena.ofConfined()) {
            long ignored = syscall(arena.allocate(Syscall.CAPTURE), SyscallNumbers.MUNMAP, page.address(), page.byteSize(),
                    0, 0, 0, 0);
        }
    }

    /** {@code TIOCGWINSZ} of {@code <asm-generic/ioctls.h>}, the same on x86-64 and AArch64. */
    private static final int TIOCGWINSZ = 0x5413;

    /** {@code struct winsize} of {@code <asm-generic/termios.h>}: four unsigned shorts. */
    static final StructLayout WINSIZE = structLayout(
            ValueLayout.JAVA_SHORT.withName("ws_row"),
            ValueLayout.JAVA_SHORT.withName("ws_col"),
            ValueLayout.JAVA_SHORT.withName("ws_xpixel"),
            ValueLayout.JAVA_SHORT.withName("ws_ypixel")).withName("winsize");

    private static final long WS_COL = WINSIZE.byteOffset(groupElement("ws_col"));

    /**
     * The columns of the terminal {@code fd} is open on ({@code ioctl(fd, TIOCGWINSZ)}), or 0 when
     * it is not a terminal ({@code ENOTTY}), is closed, or reports no size (a pseudo-terminal
     * whose size nobody set). Through the same {@code syscall} handle as every other call, so it
     * costs the command line tool one system call and no new downcall shape.
     */
    public static int terminalColumns(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment size = arena.allocate(WINSIZE);
            long result = syscall(arena.allocate(Syscall.CAPTURE), SyscallNumbers.IOCTL, fd, TIOCGWINSZ, size.address(),
                    0, 0, 0);
            return result == -1 ? 0 : Short.toUnsignedInt(size.get(ValueLayout.JAVA_SHORT, WS_COL));
        }
    }

    /** {@code open(path, flags, mode)} ({@code openat} relative to the working directory); returns the descriptor. */
    public static int open(Path path, int flags, int mode) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            return (int) checked("open", SyscallNumbers.OPENAT, AT_FDCWD, arena.allocateFrom(path.toString()).address(),
                    flags, mode, 0, 0);
        }
    }

    /** {@code statx} of an open descriptor. */
    public static Stat fstat(int fd) throws PosixException {
        return statx(fd, "", AT_EMPTY_PATH, "fstat");
    }

    /** {@code statx} of a path; {@code follow} false: of a symbolic link itself ({@code lstat}). */
    public static Stat stat(Path path, boolean follow) throws PosixException {
        return statx(AT_FDCWD, path.toString(), follow ? 0 : AT_SYMLINK_NOFOLLOW, follow ? "stat" : "lstat");
    }

    private static Stat statx(int dirFd, String path, int flags, String call) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(STATX);
            checked(call, SyscallNumbers.STATX, dirFd, arena.allocateFrom(path).address(), flags, STATX_BASIC_STATS,
                    buffer.address(), 0);
            long device = Integer.toUnsignedLong(buffer.get(ValueLayout.JAVA_INT, DEV_MAJOR)) << 32
                    | Integer.toUnsignedLong(buffer.get(ValueLayout.JAVA_INT, DEV_MINOR));
            return new Stat(Short.toUnsignedInt(buffer.get(ValueLayout.JAVA_SHORT, MODE)),
                    buffer.get(ValueLayout.JAVA_INT, UID), buffer.get(ValueLayout.JAVA_INT, GID),
                    buffer.get(ValueLayout.JAVA_LONG, SIZE), device, buffer.get(ValueLayout.JAVA_LONG, INO),
                    buffer.get(ValueLayout.JAVA_LONG, BLOCKS));
        }
    }

    /** {@code posix_fallocate(fd, 0, length)}: 0, or the error number it returns. */
    public static int fallocate(int fd, long length) {
        try {
            return (int) PosixFallocate.HANDLE.invokeExact(fd, 0L, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final int SEEK_HOLE = 4;

    /**
     * The offset of the first hole (unallocated range) of {@code fd} at or after 0, as
     * {@code lseek(fd, 0, SEEK_HOLE)} reports it: the file size when there is none, and on a
     * filesystem that does not track holes. A failure ({@code EINVAL}: the call is unsupported)
     * reads as no hole: -1.
     */
    public static long firstHole(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            return syscall(arena.allocate(Syscall.CAPTURE), SyscallNumbers.LSEEK, fd, 0L, SEEK_HOLE, 0, 0, 0);
        }
    }

    /**
     * The value of extended attribute {@code name} of {@code fd}, or null when the file has none
     * ({@code ENODATA}) or the filesystem has no extended attributes ({@code EOPNOTSUPP}).
     */
    public static byte[] fgetxattr(int fd, String name) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Syscall.CAPTURE);
            long cName = arena.allocateFrom(name).address();
            for (int attempt = 0; ; attempt++) {
                long size = syscall(state, SyscallNumbers.FGETXATTR, fd, cName, 0L, 0L, 0, 0);
                if (size < 0) {
                    int errno = Syscall.errno(state);
                    if (errno == ENODATA || errno == EOPNOTSUPP) {
                        return null;
                    }
                    throw new PosixException("fgetxattr", errno);
                }
                MemorySegment value = arena.allocate(Math.max(1, size));
                long got = syscall(state, SyscallNumbers.FGETXATTR, fd, cName, value.address(), size, 0, 0);
                if (got >= 0) {
                    return value.asSlice(0, got).toArray(ValueLayout.JAVA_BYTE);
                }
                int errno = Syscall.errno(state);
                if (errno == ENODATA) {
                    return null; // removed in between
                }
                if (errno != ERANGE || attempt > 3) { // ERANGE: it grew in between
                    throw new PosixException("fgetxattr", errno);
                }
            }
        }
    }

    /**
     * {@code fallocate(fd, 0, 0, length)}: 0, or the error number. Unlike {@code posix_fallocate}
     * it never falls back to writing zeros into blocks that read as zero, which on a live shared
     * file could undo another writer's stores; a filesystem that cannot allocate says
     * {@code EOPNOTSUPP}.
     */
    public static int fallocateInPlace(int fd, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Syscall.CAPTURE);
            while (true) {
                long rc = syscall(state, SyscallNumbers.FALLOCATE, fd, 0, 0L, length, 0, 0);
                if (rc == 0 || Syscall.errno(state) != EINTR) {
                    return rc == 0 ? 0 : Syscall.errno(state);
                }
            }
        }
    }

    public static void ftruncate(int fd, long length) throws PosixException {
        checked("ftruncate", SyscallNumbers.FTRUNCATE, fd, length, 0, 0, 0, 0);
    }

    static void fchmod(int fd, int mode) throws PosixException {
        checked("fchmod", SyscallNumbers.FCHMOD, fd, mode, 0, 0, 0, 0);
    }

    static void fchown(int fd, int uid, int gid) throws PosixException {
        checked("fchown", SyscallNumbers.FCHOWN, fd, Integer.toUnsignedLong(uid), Integer.toUnsignedLong(gid), 0, 0, 0);
    }

    /** Closes {@code fd}; errors are ignored (the descriptor is gone either way on Linux). */
    public static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            long ignored = syscall(arena.allocate(Syscall.CAPTURE), SyscallNumbers.CLOSE, fd, 0, 0, 0, 0, 0);
        }
    }

    public static int geteuid() {
        try (Arena arena = Arena.ofConfined()) {
            return (int) syscall(arena.allocate(Syscall.CAPTURE), SyscallNumbers.GETEUID, 0, 0, 0, 0, 0, 0);
        }
    }

    public static int getegid() {
        try (Arena arena = Arena.ofConfined()) {
            return (int) syscall(arena.allocate(Syscall.CAPTURE), SyscallNumbers.GETEGID, 0, 0, 0, 0, 0, 0);
        }
    }

    /** This process's supplementary groups. */
    public static int[] getgroups() throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Syscall.CAPTURE);
            for (int attempt = 0; ; attempt++) {
                long count = syscall(state, SyscallNumbers.GETGROUPS, 0, 0, 0, 0, 0, 0);
                if (count < 0) {
                    throw new PosixException("getgroups", Syscall.errno(state));
                }
                MemorySegment list = arena.allocate(ValueLayout.JAVA_INT, Math.max(1, count));
                long got = syscall(state, SyscallNumbers.GETGROUPS, count, list.address(), 0, 0, 0, 0);
                if (got >= 0) {
                    return list.asSlice(0, 4L * got).toArray(ValueLayout.JAVA_INT);
                }
                if (Syscall.errno(state) != EINVAL || attempt > 3) { // EINVAL: the groups changed in between
                    throw new PosixException("getgroups", Syscall.errno(state));
                }
            }
        }
    }

    /** The symbolic name of the error numbers hintmap reports, else {@code errno N}. */
    public static String errnoName(int errno) {
        return switch (errno) {
            case 1 -> "EPERM (operation not permitted)";
            case ENOENT -> "ENOENT (no such file or directory)";
            case 5 -> "EIO (input/output error)";
            case ENXIO -> "ENXIO (no such device or address)";
            case 12 -> "ENOMEM (out of memory)";
            case EACCES -> "EACCES (permission denied)";
            case EEXIST -> "EEXIST (file exists)";
            case 20 -> "ENOTDIR (not a directory)";
            case EISDIR -> "EISDIR (is a directory)";
            case EINVAL -> "EINVAL (invalid argument)";
            case 24 -> "EMFILE (too many open files)";
            case EFBIG -> "EFBIG (file too large)";
            case ENOSPC -> "ENOSPC (no space left on device)";
            case 30 -> "EROFS (read-only file system)";
            case ELOOP -> "ELOOP (symbolic link)";
            case EOPNOTSUPP -> "EOPNOTSUPP (operation not supported)";
            case EDQUOT -> "EDQUOT (disk quota exceeded)";
            default -> "errno " + errno;
        };
    }
}
