package dev.hintmap.store;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Header;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import dev.hintmap.store.PosixFiles.PosixException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Owns one store's memory: the file mapping (or anonymous memory), the arenas, and this writer's
 * writer-table entry. Creates files atomically (§5) and validates existing ones before mapping.
 *
 * <p>Lifetimes: the data arena is shared by every thread using the store. {@link #close()} closes
 * it first (so that no thread of this process can touch the mapping afterwards), and only then
 * releases the writer entry through a second, tiny mapping: a lock that a racing thread still
 * held is thereby handed to recovery, never to a second writer while the first can still write.
 */
public final class MappedStore implements AutoCloseable {
    private static final long CLOSE_RETRY_NANOS = 10_000_000_000L;

    private final Path file;
    private final Arena dataArena;
    private final MemorySegment data;
    private final Arena controlArena;
    private final MemorySegment control;
    private final Header header;
    private final StoreEngine engine;
    private final boolean readOnly;
    /** The descriptor the file was opened and checked through, kept for {@link #checkFile()}; -1 in memory. */
    private final int fd;
    /** What {@code fstat} said of it on open. */
    private final PosixFiles.Stat opened;
    private final boolean followSymlinks;
    private static final int OPEN = 0;
    private static final int FAILED = 1;
    private static final int CLOSED = 2;
    /** OPEN, FAILED (truncated under the mapping: {@link #failure}) or CLOSED; one volatile read per call. */
    private volatile int state;
    private volatile HintFileException failure;

    private MappedStore(Path file, Arena dataArena, MemorySegment data, Arena controlArena, MemorySegment control,
            Header header, StoreEngine engine, boolean readOnly, int fd, PosixFiles.Stat opened, boolean followSymlinks) {
        this.file = file;
        this.dataArena = dataArena;
        this.data = data;
        this.controlArena = controlArena;
        this.control = control;
        this.header = header;
        this.engine = engine;
        this.readOnly = readOnly;
        this.fd = fd;
        this.opened = opened;
        this.followSymlinks = followSymlinks;
    }

    public StoreEngine engine() {
        return engine;
    }

    /** The mapping, for the verifier. */
    Memory memory() {
        return new Memory(data);
    }

    public Header header() {
        return header;
    }

    /** The file, or null for an anonymous store. */
    public Path file() {
        return file;
    }

    public boolean readOnly() {
        return readOnly;
    }

    // ------------------------------------------------------------------ anonymous

    /** An anonymous store with the given parameters, private to this process. */
    public static MappedStore inMemory(HintStoreOptions options) {
        Header header = headerFor(options);
        Arena arena = Arena.ofShared();
        MemorySegment data = arena.allocate(header.geometry().fileBytes(), Layouts.PAGE);
        return new MappedStore(null, arena, data, null, null, header, anonymousEngine(data, header), false, -1, null, false);
    }

    /**
     * Initialises zeroed anonymous memory as a store of {@code header}'s layout and returns the
     * engine of its only writer, this process (the jcstress tests reuse this on recycled memory).
     */
    static StoreEngine anonymousEngine(MemorySegment zeroed, Header header) {
        header.writeImmutablePart(zeroed);
        Memory memory = new Memory(zeroed);
        memory.releaseLong(Layouts.MAGIC, Layouts.MAGIC_VALUE);
        WriterTable writers = new WriterTable(memory, header.geometry());
        long token = ProcessIdentity.token(ProcessHandle.current().pid(), 1); // no other process: no /proc needed
        return writerEngine(memory, header.geometry(), writers, writers.claim(token), token);
    }

    private static StoreEngine writerEngine(Memory memory, FileGeometry geometry, WriterTable writers,
            WriterTable.Claim claim, long token) {
        return new StoreEngine(memory, geometry, new OwnerLock(memory, writers, claim.owner(), token));
    }

    private static Header headerFor(HintStoreOptions options) {
        return new Header(new FileGeometry(options.capacity(), options.maxNameBytes()),
                options.hotThresholdNs(), System.currentTimeMillis());
    }

    // ------------------------------------------------------------------ files

    /**
     * Opens {@code file}, creating it when absent (unless read-only): FORMAT.md §5. Every check
     * is made on the descriptor actually opened, never on the path a second time.
     */
    public static MappedStore open(Path file, HintStoreOptions options) throws IOException {
        boolean created = false;
        while (true) {
            int fd;
            try {
                fd = PosixFiles.open(file, (options.readOnly() ? PosixFiles.O_RDONLY : PosixFiles.O_RDWR)
                        | PosixFiles.O_NONBLOCK | PosixFiles.O_CLOEXEC
                        | (options.followSymlinks() ? 0 : PosixFiles.O_NOFOLLOW), 0);
            } catch (PosixException e) {
                if (e.errno == PosixFiles.ENOENT && !options.readOnly() && !created) {
                    create(file, options);
                    created = true; // published by us or by a racing creator: open that file
                    continue;
                }
                throw openFailure(file, e, options);
            }
            return openDescriptor(file, fd, options);
        }
    }

    private static HintFileException openFailure(Path file, PosixException e, HintStoreOptions options) {
        return switch (e.errno) {
            case PosixFiles.ELOOP -> options.followSymlinks()
                    ? new HintFileException(file, Problem.IO, null, "cannot open hint file: too many symbolic links (" + e.getMessage() + ")", e)
                    : new HintFileException(file, Problem.SYMLINK, null, "the final path component is a symbolic link,"
                            + " which is refused (open with followSymlinks(true) to follow it)", e);
            case PosixFiles.EISDIR -> new HintFileException(file, Problem.NOT_A_HINT_FILE, null,
                    "not a hint file: a directory, expected a regular file", e);
            case PosixFiles.ENOENT -> new HintFileException(file, Problem.IO, null, "no such hint file", missing(file, e));
            case PosixFiles.ENOSPC, PosixFiles.EDQUOT, PosixFiles.EFBIG -> noSpace(file, e.getMessage(), e);
            default -> new HintFileException(file, Problem.IO, null, "cannot open hint file: " + e.getMessage(), e);
        };
    }

    private static HintFileException noSpace(Path file, String what, Throwable cause) {
        return new HintFileException(file, Problem.NO_SPACE, null,
                "no space to create the hint file (" + what + "): nothing was created", cause);
    }

    /** This process's effective user, group and supplementary groups. */
    record Identity(int uid, int gid, int[] groups) {
        static Identity current() throws PosixException {
            return new Identity(PosixFiles.geteuid(), PosixFiles.getegid(), PosixFiles.getgroups());
        }

        boolean inGroup(int group) {
            if (group == gid) {
                return true;
            }
            for (int g : groups) {
                if (g == group) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * The ownership rule of FORMAT.md §5 step 0: null when a file with these attributes may be
     * opened by {@code self} with {@code options}, else why not.
     */
    static String ownerRefusal(PosixFiles.Stat stat, Identity self, HintStoreOptions options) {
        if (stat.uid() == self.uid() || options.allowForeignOwner()) {
            return null;
        }
        String owner = "owned by uid " + Integer.toUnsignedString(stat.uid()) + " (this process runs as uid "
                + Integer.toUnsignedString(self.uid()) + ")";
        if (!options.groupShared()) {
            return owner + "; open it with groupShared(true) to share it within a group, or allowForeignOwner(true)";
        }
        if (!self.inGroup(stat.gid())) {
            return owner + " and its group gid " + Integer.toUnsignedString(stat.gid()) + " is not one of this process's groups";
        }
        if ((stat.mode() & PosixFiles.S_IWOTH) != 0) {
            return owner + " and writable by others (mode " + stat.modeOctal() + "; expected o+w clear)";
        }
        return null;
    }

    /** §5 opening steps 0–6 on the descriptor {@code fd}, which this takes over (kept, or closed on failure). */
    private static MappedStore openDescriptor(Path file, int fd, HintStoreOptions options) throws IOException {
        boolean readOnly = options.readOnly();
        Arena dataArena = null;
        Arena controlArena = null;
        try {
            PosixFiles.Stat stat = PosixFiles.fstat(fd);
            if (!stat.isRegularFile()) {
                throw new HintFileException(file, Problem.NOT_A_HINT_FILE, null,
                        "not a hint file: not a regular file (mode " + String.format("0%o", stat.mode()) + ")");
            }
            String refusal = ownerRefusal(stat, Identity.current(), options);
            if (refusal != null) {
                throw new HintFileException(file, Problem.FOREIGN_OWNER, null, "file is " + refusal);
            }
            try (FileChannel channel = openDescriptorChannel(fd, readOnly)) {
                long size = stat.size();
                Header header;
                try (Arena scratch = Arena.ofConfined()) {
                    MemorySegment h = scratch.allocate(Layouts.HEADER.byteSize(), Layouts.PAGE);
                    ByteBuffer buffer = h.asByteBuffer();
                    while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) >= 0) {
                        // read the header page fully, or up to the end of a short file
                    }
                    header = Header.validate(file, h.asSlice(0, buffer.position()), size);
                }
                checkOptions(file, header, options);
                FileGeometry geometry = header.geometry();
                dataArena = Arena.ofShared();
                MemorySegment data = channel.map(readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE,
                        0, geometry.fileBytes(), dataArena);
                Memory memory = new Memory(data);
                if (readOnly) {
                    return new MappedStore(file, dataArena, data, null, null, header,
                            new StoreEngine(memory, geometry, null), true, fd, stat, options.followSymlinks());
                }
                WriterTable writers = new WriterTable(memory, geometry);
                long token = ProcessIdentity.currentToken();
                WriterTable.Claim claim = writers.claim(token);
                if (claim == null) {
                    throw new HintFileException(file, Problem.WRITER_TABLE_FULL, "writer_entries",
                            "all " + geometry.writerEntries() + " writer entries are held by live processes");
                }
                controlArena = Arena.ofShared();
                MemorySegment control = channel.map(FileChannel.MapMode.READ_WRITE,
                        writers.entryOffset(claim.index()), Layouts.WRITER_ENTRY.byteSize(), controlArena);
                return new MappedStore(file, dataArena, data, controlArena, control, header,
                        writerEngine(memory, geometry, writers, claim, token), false, fd, stat, options.followSymlinks());
            }
        } catch (IOException | PosixException | RuntimeException | InternalError e) {
            if (controlArena != null) {
                controlArena.close();
            }
            if (dataArena != null) {
                dataArena.close();
            }
            PosixFiles.close(fd);
            if (e instanceof HintFileException h) {
                throw h;
            }
            if (e instanceof PosixException p) {
                throw new HintFileException(file, Problem.IO, null, "cannot open hint file: " + p.getMessage(), p);
            }
            if (e instanceof IOException) {
                throw new HintFileException(file, Problem.IO, null, "cannot map hint file: " + e, e);
            }
            if (e instanceof InternalError) { // a fault on the mapping: truncated between the checks and the claim
                throw new HintFileException(file, Problem.TRUNCATED, null,
                        "file was truncated while it was being opened: " + e.getMessage(), e);
            }
            throw (RuntimeException) e;
        }
    }

    /**
     * A channel on the open file {@code fd} without resolving the path again: {@code /proc/self/fd/N}
     * is a link to the very file the descriptor has open, whatever is at the path now.
     */
    private static FileChannel openDescriptorChannel(int fd, boolean readOnly) throws IOException {
        Path self = Path.of("/proc/self/fd", Integer.toString(fd));
        return readOnly ? FileChannel.open(self, StandardOpenOption.READ)
                : FileChannel.open(self, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** Test hook: runs in a creator between allocating and publishing its temporary file (§5 creation 3–5). */
    static volatile Runnable beforePublishHook;

    /**
     * Creation, FORMAT.md §5 steps 1–5: the file is initialised completely under a temporary
     * name and then linked into place, so no process ever sees it half-written at {@code file}.
     * Losing the race to another creator is not an error: the caller then opens that file.
     */
    private static void create(Path file, HintStoreOptions options) throws IOException {
        Header header = headerFor(options);
        long fileBytes = header.geometry().fileBytes();
        String name = file.getFileName().toString();
        removeStrayTemporaries(file, name);
        Path tmp = file.resolveSibling(name + "." + ProcessHandle.current().pid() + "."
                + String.format("%016x", ThreadLocalRandom.current().nextLong()) + ".tmp");
        int fd;
        try {
            fd = PosixFiles.open(tmp, PosixFiles.O_RDWR | PosixFiles.O_CREAT | PosixFiles.O_EXCL
                    | PosixFiles.O_NOFOLLOW | PosixFiles.O_CLOEXEC, 0600);
        } catch (PosixException e) {
            throw switch (e.errno) {
                case PosixFiles.ENOSPC, PosixFiles.EDQUOT -> noSpace(file, "creating " + tmp.getFileName() + ": " + e.getMessage(), e);
                default -> new HintFileException(file, Problem.IO, null,
                        "cannot create hint file: temporary " + tmp.getFileName() + ": " + e.getMessage(), e);
            };
        }
        try {
            PosixFiles.fchmod(fd, options.groupShared() ? 0660 : 0600); // exactly, whatever the umask
            int error = PosixFiles.fallocate(fd, fileBytes);
            if (error == PosixFiles.EOPNOTSUPP || error == PosixFiles.EINVAL) {
                PosixFiles.ftruncate(fd, fileBytes); // cannot allocate here: a sparse file (FORMAT.md §10)
            } else if (error == PosixFiles.ENOSPC || error == PosixFiles.EDQUOT || error == PosixFiles.EFBIG) {
                throw noSpace(file, "allocating " + fileBytes + " bytes: " + PosixFiles.errnoName(error), null);
            } else if (error != 0) {
                throw new HintFileException(file, Problem.IO, null,
                        "cannot allocate " + fileBytes + " bytes: " + PosixFiles.errnoName(error));
            }
            try (FileChannel channel = openDescriptorChannel(fd, false); Arena arena = Arena.ofConfined()) {
                MemorySegment h = channel.map(FileChannel.MapMode.READ_WRITE, 0, Layouts.HEADER.byteSize(), arena);
                header.writeImmutablePart(h);
                new Memory(h).releaseLong(Layouts.MAGIC, Layouts.MAGIC_VALUE); // published last (§5)
                h.force();
            }
            Runnable hook = beforePublishHook;
            if (hook != null) {
                hook.run();
            }
            try {
                Files.createLink(file, tmp); // fails if another process published first: then we open theirs
            } catch (FileAlreadyExistsException lostRace) {
                // the other creator's file is complete by construction
            }
        } catch (PosixException e) {
            if (e.errno == PosixFiles.EFBIG || e.errno == PosixFiles.ENOSPC || e.errno == PosixFiles.EDQUOT) {
                throw noSpace(file, e.getMessage(), e);
            }
            throw new HintFileException(file, Problem.IO, null, "cannot create hint file: " + e.getMessage(), e);
        } catch (HintFileException e) {
            throw e;
        } catch (IOException e) {
            throw new HintFileException(file, Problem.IO, null, "cannot create hint file: " + e, e);
        } finally {
            PosixFiles.close(fd);
            Files.deleteIfExists(tmp); // published or not, the temporary name goes
        }
    }

    /**
     * §5 creation step 1: removes {@code <name>.<pid>.<16 hex>.tmp} siblings that this user owns
     * and whose creator is no longer running (it died between creating and publishing them).
     * Best effort: any failure leaves the stray file for a later creation.
     */
    private static void removeStrayTemporaries(Path file, String name) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null) {
            return;
        }
        Pattern stray = Pattern.compile(Pattern.quote(name) + "\\.([0-9]{1,10})\\.[0-9a-f]{16}\\.tmp");
        try (DirectoryStream<Path> siblings = Files.newDirectoryStream(dir,
                p -> p.getFileName().toString().startsWith(name) && p.getFileName().toString().endsWith(".tmp"))) {
            int self = PosixFiles.geteuid();
            for (Path sibling : siblings) {
                Matcher m = stray.matcher(sibling.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                long pid = Long.parseLong(m.group(1));
                if (ProcessHandle.of(pid).isPresent()) {
                    continue; // its creator may still be at work
                }
                try {
                    PosixFiles.Stat stat = PosixFiles.stat(sibling, false);
                    if (stat.isRegularFile() && stat.uid() == self) {
                        Files.deleteIfExists(sibling);
                    }
                } catch (PosixException | IOException e) {
                    // another creator removed it first, or it is not ours to remove
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort (FORMAT.md §5 creation step 1)
        }
    }

    private static void checkOptions(Path file, Header header, HintStoreOptions options) throws HintFileException {
        if (options.isCapacitySet() && options.capacity() != header.geometry().capacity()) {
            throw mismatch(file, "capacity", options.capacity(), header.geometry().capacity());
        }
        if (options.isMaxNameBytesSet() && options.maxNameBytes() != header.geometry().maxNameBytes()) {
            throw mismatch(file, "max_name_bytes", options.maxNameBytes(), header.geometry().maxNameBytes());
        }
        if (options.isHotThresholdSet() && options.hotThresholdNs() != header.hotThresholdNs()) {
            throw mismatch(file, "hot_threshold_ns", options.hotThresholdNs(), header.hotThresholdNs());
        }
    }

    private static HintFileException mismatch(Path file, String field, long asked, long actual) {
        return new HintFileException(file, Problem.OPTIONS_MISMATCH, field,
                "options ask for " + field + " " + asked + " but the existing file has " + actual
                        + " (an existing file's layout wins; open it without that option)");
    }

    // ------------------------------------------------------------------ inspection

    /** The header, coordination words and writer table, read in place (for {@code hintmap stat}). */
    public HintFileInfo info() {
        requireOpen();
        FileGeometry g = header.geometry();
        Memory memory = new Memory(data);
        WriterTable writers = new WriterTable(memory, g);
        List<HintFileInfo.Writer> attached = new ArrayList<>();
        long attachments = 0;
        for (int i = 0; i < writers.entries(); i++) {
            long generation = Math.max(0, writers.generation(i)); // file content: a damaged word reads as 0
            attachments = attachments + generation < 0 ? Long.MAX_VALUE : attachments + generation;
            long token = writers.token(i);
            if (token != 0) {
                attached.add(new HintFileInfo.Writer(i, ProcessIdentity.pidOf(token), ProcessIdentity.isAlive(token),
                        generation));
            }
        }
        long indexSeq = memory.acquireLong(Layouts.INDEX_SEQ);
        return new HintFileInfo(file, Layouts.FORMAT_VERSION_VALUE, Layouts.fingerprint(), g.fileBytes(),
                g.capacity(), g.maxNameBytes(), g.slotBytes(), g.indexEntries(), g.maxProbe(),
                header.hotThresholdNs(), Instant.ofEpochMilli(header.createdEpochMs()),
                engine.size(), engine.highWater(), indexSeq >>> 1,
                engine.counter(Layouts.EVICTIONS), engine.counter(Layouts.RECOVERIES),
                engine.counter(Layouts.DROPPED_INSERTS), engine.counter(Layouts.STOLEN_LOCKS),
                (indexSeq & 1) != 0 || memory.acquireLong(Layouts.JOURNAL_SLOT) != 0,
                attachments, attached);
    }

    // ------------------------------------------------------------------ lifetime

    /** The JDK's own exception for a missing file (what callers test for), caused by the system call's error. */
    private static java.nio.file.NoSuchFileException missing(Path file, Exception cause) {
        java.nio.file.NoSuchFileException e = new java.nio.file.NoSuchFileException(file.toString(), null, cause.getMessage());
        e.initCause(cause);
        return e;
    }

    /** Flushes the mapping to the file (msync). */
    public void force() {
        requireOpen();
        if (file != null && !readOnly) {
            data.force();
        }
    }

    /**
     * Throws unless the store is usable: {@link IllegalStateException} once closed,
     * {@link UncheckedIOException} with the {@link HintFileException} once the file was found
     * truncated under the mapping.
     */
    public void requireOpen() {
        if (state != OPEN) {
            throw refusal();
        }
    }

    private RuntimeException refusal() {
        if (state == CLOSED) {
            return new IllegalStateException("hint store " + (file == null ? "(in memory)" : file) + " is closed");
        }
        HintFileException f = failure;
        return new UncheckedIOException(f.getMessage(), f);
    }

    /**
     * FORMAT.md §5.1: whether the file is still the one mapped, at its size. {@code fstat} of
     * the kept descriptor (shorter: TRUNCATED, and the store becomes unusable; longer: RESIZED),
     * then {@code lstat} of the path ({@code stat} when symbolic links are followed): another
     * file there, or none, is REPLACED. Two system calls; a no-op for an in-memory store.
     */
    public synchronized void checkFile() throws HintFileException {
        if (state == CLOSED) {
            throw (IllegalStateException) refusal();
        }
        if (state == FAILED) {
            throw failure;
        }
        if (fd < 0) {
            return;
        }
        PosixFiles.Stat now;
        try {
            now = PosixFiles.fstat(fd);
        } catch (PosixException e) {
            throw new HintFileException(file, Problem.IO, null, "cannot check the mapped file: " + e.getMessage(), e);
        }
        long expected = header.geometry().fileBytes();
        if (now.size() < expected) {
            throw markTruncated(now.size(), null);
        }
        if (now.size() > expected) {
            throw new HintFileException(file, Problem.RESIZED, "file_bytes",
                    "file grew to " + now.size() + " bytes under the mapping; expected " + expected
                            + " (no hintmap process resizes a file: another program wrote to it)");
        }
        PosixFiles.Stat atPath;
        try {
            atPath = PosixFiles.stat(file, followSymlinks);
        } catch (PosixException e) {
            if (e.errno == PosixFiles.ENOENT) {
                throw new HintFileException(file, Problem.REPLACED, null,
                        "no file at the path any more (removed or renamed): this store maps a file no other process opens", e);
            }
            throw new HintFileException(file, Problem.IO, null, "cannot check the path: " + e.getMessage(), e);
        }
        if (!atPath.sameFile(opened)) {
            throw new HintFileException(file, Problem.REPLACED, null,
                    "another file is at the path now (inode " + Long.toUnsignedString(atPath.inode()) + ", expected "
                            + Long.toUnsignedString(opened.inode()) + "): this store maps a file no other process opens");
        }
    }

    /**
     * Turns a fault of an access to the mapping into the truncation it is (FORMAT.md §5.1):
     * confirms with the kept descriptor that the file shrank, marks the store unusable and
     * returns the exception to throw; rethrows {@code fault} when the file did not shrink.
     */
    public UncheckedIOException onFault(InternalError fault) {
        long size;
        synchronized (this) {
            if (state == FAILED) {
                return new UncheckedIOException(failure.getMessage(), failure);
            }
            if (fd < 0 || state == CLOSED) {
                throw fault;
            }
            try {
                size = PosixFiles.fstat(fd).size();
            } catch (PosixException e) {
                fault.addSuppressed(e);
                throw fault;
            }
            if (size >= header.geometry().fileBytes()) {
                throw fault;
            }
            HintFileException e = markTruncated(size, fault);
            return new UncheckedIOException(e.getMessage(), e);
        }
    }

    private synchronized HintFileException markTruncated(long size, Throwable cause) {
        if (failure == null) {
            failure = new HintFileException(file, Problem.TRUNCATED, "file_bytes",
                    "file was truncated to " + size + " bytes under the mapping; expected " + header.geometry().fileBytes()
                            + " (another program shortened it: the store is unusable, reopen the file)", cause);
            if (state == OPEN) {
                state = FAILED;
            }
        }
        return failure;
    }

    /** Idempotent. Other threads still using the store get {@link IllegalStateException}. */
    @Override
    public synchronized void close() {
        if (state == CLOSED) {
            return;
        }
        state = CLOSED;
        closeShared(dataArena);
        if (control != null) {
            try {
                new Memory(control).releaseLong(Layouts.WRITER_TOKEN, 0L);
            } catch (InternalError truncated) {
                // the entry's page is gone with the truncated file: nothing left to release
            }
            controlArena.close();
        }
        if (fd >= 0) {
            PosixFiles.close(fd);
        }
    }

    /**
     * A shared arena refuses to close while another thread is inside an access to it; those
     * accesses are short (no thread blocks inside one), and threads that enter the store after
     * {@link #state} is set are turned away, so a retry soon succeeds.
     */
    private static void closeShared(Arena arena) {
        long deadline = System.nanoTime() + CLOSE_RETRY_NANOS;
        while (true) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException busy) {
                if (System.nanoTime() > deadline) {
                    throw busy;
                }
                Thread.onSpinWait();
            }
        }
    }
}
