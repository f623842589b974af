package dev.hintmap.store;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Header;
import dev.hintmap.format.Layouts;
import dev.hintmap.os.PosixFiles;
import dev.hintmap.os.PosixFiles.PosixException;
import dev.hintmap.os.ProcessIdentity;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Owns one store's memory from the moment it is mapped until {@link #close()}: the file mapping
 * (or anonymous memory), the arenas, and this writer's writer-table entry. {@link HintFileOpener}
 * creates and validates the file and hands the mapping over (FORMAT.md §5); from then on this
 * class turns every store away once it is closed or unusable ({@link #requireOpen()}), detects a
 * file that changed under the mapping and what an access that faulted means (§5.1), flushes,
 * and reports the file's state ({@link #info()}).
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
    /**
     * This writer's own writer-table entry, mapped apart from {@link #data} so that close can give
     * the entry back after the data arena is closed; a page outside any arena (only close touches
     * it, under this object's lock), unmapped by close.
     */
    private final MemorySegment controlPage;
    private final MemorySegment control;
    private final Header header;
    private final StoreEngine engine;
    /** The writer table with this file's liveness rule (§6.3), for every store; readers only read it. */
    private final WriterTable writers;
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

    MappedStore(Path file, Arena dataArena, MemorySegment data, MemorySegment controlPage, MemorySegment control,
            Header header, StoreEngine engine, WriterTable writers, boolean readOnly, int fd, PosixFiles.Stat opened,
            boolean followSymlinks) {
        this.file = file;
        this.writers = writers;
        this.dataArena = dataArena;
        this.data = data;
        this.controlPage = controlPage;
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

    WriterTable writers() {
        return writers;
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
    public static MappedStore inMemory(HintStoreOptions options, StoreSettings settings) {
        Header header = HintFileOpener.headerFor(options);
        Arena arena = Arena.ofShared();
        MemorySegment data = arena.allocate(header.geometry().fileBytes(), Layouts.PAGE);
        WriterTable writers = initialiseAnonymous(data, header);
        return new MappedStore(null, arena, data, null, null, header,
                anonymousEngine(writers, data, header, options.rejectLongNames(), settings), writers, false, -1, null, false);
    }

    /**
     * Initialises zeroed anonymous memory as a store of {@code header}'s layout and returns the
     * engine of its only writer, this process (the jcstress tests reuse this on recycled memory).
     */
    static StoreEngine anonymousEngine(MemorySegment zeroed, Header header) {
        return anonymousEngine(initialiseAnonymous(zeroed, header), zeroed, header, false, StoreSettings.DEFAULT);
    }

    private static WriterTable initialiseAnonymous(MemorySegment zeroed, Header header) {
        header.writeImmutablePart(zeroed);
        Memory memory = new Memory(zeroed);
        Memory.releaseLong(zeroed, Layouts.HDR_MAGIC, Layouts.MAGIC_VALUE);
        return new WriterTable(memory, header.geometry(), null); // no file: no other process to sight
    }

    private static StoreEngine anonymousEngine(WriterTable writers, MemorySegment data, Header header,
            boolean rejectLongNames, StoreSettings settings) {
        long token = ProcessIdentity.token(ProcessHandle.current().pid(), 1); // no other process: no /proc needed
        return writerEngine(new Memory(data), header, rejectLongNames, writers, writers.claim(token), token, settings);
    }

    /** The engine of this process's writer, with its lock protocol (a test's subclasses only in tests: TestSeams). */
    static StoreEngine writerEngine(Memory memory, Header header, boolean rejectLongNames, WriterTable writers,
            WriterTable.Claim claim, long token, StoreSettings settings) {
        return TestSeams.engineBuilder().writer(memory, header.geometry(), header.hotThresholdNs(), rejectLongNames,
                writers, claim.owner(), token, settings);
    }

    // ------------------------------------------------------------------ inspection

    /** The header, coordination words and writer table, read in place (for {@code hintmap stat}). */
    public HintFileInfo info() {
        requireOpen();
        FileGeometry g = header.geometry();
        List<HintFileInfo.Writer> attached = new ArrayList<>();
        long attachments = 0;
        for (int i = 0; i < writers.entries(); i++) {
            long generation = Math.max(0, writers.generation(i)); // file content: a damaged word reads as 0
            attachments = attachments + generation < 0 ? Long.MAX_VALUE : attachments + generation;
            long token = writers.token(i);
            if (token != 0) {
                attached.add(new HintFileInfo.Writer(i, ProcessIdentity.pidOf(token), writers.isAlive(token),
                        generation));
            }
        }
        long indexSeq = Memory.acquireLong(data, Layouts.HDR_INDEX_SEQ);
        return new HintFileInfo(file, Layouts.FORMAT_VERSION_VALUE, Layouts.fingerprint(), g.fileBytes(),
                g.capacity(), g.maxNameBytes(), g.slotBytes(), g.indexEntries(), g.maxProbe(),
                header.hotThresholdNs(), Instant.ofEpochMilli(header.createdEpochMs()),
                engine.size(), engine.highWater(), indexSeq >>> 1,
                engine.counters().evictions(), engine.counters().recoveries(),
                engine.counters().droppedInserts(), engine.counters().stolenLocks(),
                (indexSeq & 1) != 0 || Memory.acquireLong(data, Layouts.HDR_JOURNAL_SLOT) != 0,
                attachments, attached);
    }

    // ------------------------------------------------------------------ lifetime

    /** Flushes the mapping to the file (msync). */
    public void flush() {
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
        checkMappedFile();
        if (fd < 0) {
            return;
        }
        PosixFiles.Stat atPath = atPath();
        if (atPath == null) {
            throw new HintFileException(file, Problem.REPLACED, null,
                    "no file at the path any more (removed or renamed): this store maps a file no other process opens");
        }
        if (!atPath.sameFile(opened)) {
            throw new HintFileException(file, Problem.REPLACED, null,
                    "another file is at the path now (inode " + Long.toUnsignedString(atPath.inode()) + ", expected "
                            + Long.toUnsignedString(opened.inode()) + "): this store maps a file no other process opens");
        }
    }

    /**
     * Whether the file at the path is another one than this store maps (FORMAT.md §5.1), for
     * following the path: one {@code lstat} ({@code stat} when symbolic links are followed).
     * False for an in-memory store.
     *
     * @throws HintFileException {@code MISSING} when no file is at the path, {@code IO} when the
     *     path cannot be checked
     */
    public synchronized boolean pathHoldsAnotherFile() throws HintFileException {
        if (state == CLOSED) {
            throw (IllegalStateException) refusal();
        }
        if (fd < 0) {
            return false;
        }
        PosixFiles.Stat atPath = atPath();
        if (atPath == null) {
            throw new HintFileException(file, Problem.MISSING, null, "no hint file at the path any more (removed or renamed)");
        }
        return !atPath.sameFile(opened);
    }

    /** What is at the path now, or null when nothing is. */
    private PosixFiles.Stat atPath() throws HintFileException {
        try {
            return PosixFiles.stat(file, followSymlinks);
        } catch (PosixException e) {
            if (e.errno == PosixFiles.ENOENT) {
                return null;
            }
            throw new HintFileException(file, Problem.IO, null, "cannot check the path: " + e.getMessage(), e);
        }
    }

    /**
     * The part of {@link #checkFile()} about the mapped file itself, whatever is at its path: its
     * size through the kept descriptor (shorter: TRUNCATED, and the store becomes unusable;
     * longer: RESIZED) and the header words in the mapping. What the bulk reads check first.
     */
    public synchronized void checkMappedFile() throws HintFileException {
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
        checkHeaderInMapping();
    }

    /**
     * The two header words every opener checks first, read again through the mapping (after the
     * size check, so a truncated page is never touched): a hole punched into a live file or the
     * header overwritten makes every other opener refuse the file, and this store must see it too.
     */
    private void checkHeaderInMapping() throws HintFileException {
        long magic;
        long fingerprint;
        try {
            magic = Memory.acquireLong(data, Layouts.HDR_MAGIC);
            fingerprint = Memory.acquireLong(data, Layouts.HDR_LAYOUT_FINGERPRINT);
        } catch (InternalError fault) {
            throw (HintFileException) onFault(fault).getCause();
        }
        String changed = " in the mapping changed under the store (a hole punched into the file, or the file"
                + " overwritten): other processes can no longer open it; the store is unusable, recreate the file";
        if (magic == 0) {
            throw markFailed(new HintFileException(file, Problem.UNFINISHED, "magic", "magic is 0: the header" + changed));
        }
        if (magic != Layouts.MAGIC_VALUE) {
            throw markFailed(new HintFileException(file, Problem.NOT_A_HINT_FILE, "magic",
                    "magic is 0x" + Long.toHexString(magic) + ", not hintmap's: the header" + changed));
        }
        if (fingerprint != Layouts.fingerprint()) {
            throw markFailed(new HintFileException(file, Problem.LAYOUT_MISMATCH, "layout_fingerprint",
                    "layout_fingerprint is 0x" + Long.toHexString(fingerprint) + ", expected 0x"
                            + Long.toHexString(Layouts.fingerprint()) + ": the header" + changed));
        }
    }

    /**
     * Turns a fault of an access to the mapping into what it is (FORMAT.md §5.1), marks the store
     * unusable and returns the exception to throw: the truncation the kept descriptor confirms,
     * or, when the file kept its size, a page that could not be backed (a hole on a full
     * filesystem, an I/O error). Rethrows {@code fault} only for a store without a file.
     */
    private UncheckedIOException onFault(InternalError fault) {
        synchronized (this) {
            if (state == FAILED) {
                return new UncheckedIOException(failure.getMessage(), failure);
            }
            if (fd < 0) {
                throw fault; // anonymous memory cannot fault: this is no file problem
            }
            if (state == CLOSED) {
                throw (IllegalStateException) refusal(); // the arena closed under a racing access
            }
            long size = -1;
            try {
                size = PosixFiles.fstat(fd).size();
            } catch (PosixException e) {
                fault.addSuppressed(e);
            }
            HintFileException e = size >= 0 && size < header.geometry().fileBytes()
                    ? markTruncated(size, fault)
                    : markFailed(new HintFileException(file, Problem.IO, null, "an access to the mapping faulted although"
                            + " the file kept its size: a page of it could not be allocated (a sparse or hole-punched"
                            + " file on a full filesystem) or read (I/O error); the store is unusable, reopen the file",
                            fault));
            return new UncheckedIOException(e.getMessage(), e);
        }
    }

    /**
     * The one translator of a failed access to the mapping, for the API's
     * {@code catch (InternalError | IllegalStateException e) { throw mapped.accessFailed(e); }}:
     * a fault as {@link #onFault} finds it, an {@link IllegalStateException} as
     * {@link #onClosedRace} does; any other unchecked throwable as it is.
     */
    public RuntimeException accessFailed(Throwable e) {
        return switch (e) {
            case InternalError fault -> onFault(fault);
            case IllegalStateException closed -> onClosedRace(closed);
            case RuntimeException other -> other;
            case Error other -> throw other;
            default -> throw new IllegalArgumentException("not an unchecked throwable", e);
        };
    }

    /**
     * An {@link IllegalStateException} from an access to the mapping: when another thread closed
     * the store meanwhile (the arena refuses the access with a bare "Already closed"), the
     * store's own refusal naming its file, caused by it; any other as it is.
     */
    private RuntimeException onClosedRace(IllegalStateException e) {
        if (state != CLOSED) {
            return e;
        }
        RuntimeException refusal = refusal();
        refusal.initCause(e);
        return refusal;
    }

    private synchronized HintFileException markTruncated(long size, Throwable cause) {
        return markFailed(new HintFileException(file, Problem.TRUNCATED, "file_bytes",
                "file was truncated to " + size + " bytes under the mapping; expected " + header.geometry().fileBytes()
                        + " (another program shortened it: the store is unusable, reopen the file)", cause));
    }

    /** Makes the store unusable with {@code problem}, unless it failed before (the first failure stays). */
    private synchronized HintFileException markFailed(HintFileException problem) {
        if (failure == null) {
            failure = problem;
            if (state == OPEN) {
                state = FAILED;
            }
        }
        return failure;
    }

    /**
     * Idempotent. Other threads still using the store get {@link IllegalStateException}.
     *
     * <p>Does not flush: a process that exits or crashes loses nothing (the mapping's pages are
     * the file's page cache), and the kernel writes them back within its writeback interval
     * (about 30 s); only a machine crash in that interval loses samples, which are hints.
     * {@link #flush()} is the durability point for a caller that wants one (FORMAT.md §5
     * "Durability").
     *
     * <p>The writer entry is given back only after the data arena is closed, so that no thread
     * of this process can write under a lock that recovery may already have taken over. If the
     * arena cannot be closed (a thread stays inside an access for the whole retry period), the
     * entry is kept, and read as dead once this process exits.
     */
    @Override
    public synchronized void close() {
        if (state == CLOSED) {
            return;
        }
        state = CLOSED;
        try {
            closeShared(dataArena);
            if (control != null) {
                try {
                    Memory.releaseLong(control, Layouts.WRITER_TOKEN, 0L);
                } catch (InternalError truncated) {
                    // the entry's page is gone with the truncated file: nothing left to release
                }
            }
        } finally {
            if (controlPage != null) {
                PosixFiles.unmap(controlPage);
            }
            if (fd >= 0) {
                PosixFiles.close(fd);
            }
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
