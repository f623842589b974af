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
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

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
    private volatile boolean closed;

    private MappedStore(Path file, Arena dataArena, MemorySegment data, Arena controlArena, MemorySegment control,
            Header header, StoreEngine engine, boolean readOnly) {
        this.file = file;
        this.dataArena = dataArena;
        this.data = data;
        this.controlArena = controlArena;
        this.control = control;
        this.header = header;
        this.engine = engine;
        this.readOnly = readOnly;
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
        return new MappedStore(null, arena, data, null, null, header, anonymousEngine(data, header), false);
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

    /** Opens {@code file}, creating it when absent (unless read-only). */
    public static MappedStore open(Path file, HintStoreOptions options) throws IOException {
        if (!options.readOnly() && Files.notExists(file, LinkOption.NOFOLLOW_LINKS)) {
            create(file, options);
        }
        return openExisting(file, options);
    }

    private static void create(Path file, HintStoreOptions options) throws IOException {
        Header header = headerFor(options);
        Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    Arena arena = Arena.ofConfined()) {
                channel.write(ByteBuffer.allocate(1), header.geometry().fileBytes() - 1); // sparse: sets the size only
                MemorySegment h = channel.map(FileChannel.MapMode.READ_WRITE, 0, Layouts.HEADER.byteSize(), arena);
                header.writeImmutablePart(h);
                new Memory(h).releaseLong(Layouts.MAGIC, Layouts.MAGIC_VALUE); // published last (§5)
                h.force();
            }
            try {
                Files.createLink(file, tmp); // fails if another process published first: then we open theirs
            } catch (FileAlreadyExistsException lostRace) {
                // the other creator's file is complete by construction
            }
        } catch (IOException e) {
            if (e instanceof HintFileException) {
                throw e;
            }
            throw new HintFileException(file, Problem.IO, null, "cannot create hint file: " + e, e);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static MappedStore openExisting(Path file, HintStoreOptions options) throws IOException {
        boolean readOnly = options.readOnly();
        FileChannel channel;
        try {
            channel = readOnly
                    ? FileChannel.open(file, StandardOpenOption.READ)
                    : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            throw new HintFileException(file, Problem.IO, null, "no such hint file", e);
        } catch (IOException e) {
            throw new HintFileException(file, Problem.IO, null, "cannot open hint file: " + e, e);
        }
        Arena dataArena = null;
        Arena controlArena = null;
        try (channel) {
            long size = channel.size();
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
                        new StoreEngine(memory, geometry, null), true);
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
                    writerEngine(memory, geometry, writers, claim, token), false);
        } catch (IOException | RuntimeException e) {
            if (controlArena != null) {
                controlArena.close();
            }
            if (dataArena != null) {
                dataArena.close();
            }
            if (e instanceof HintFileException) {
                throw e;
            }
            if (e instanceof IOException) {
                throw new HintFileException(file, Problem.IO, null, "cannot map hint file: " + e, e);
            }
            throw e;
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
            long generation = writers.generation(i);
            attachments += generation;
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
                memory.acquireLong(Layouts.EVICTIONS), memory.acquireLong(Layouts.RECOVERIES),
                memory.acquireLong(Layouts.DROPPED_INSERTS), memory.acquireLong(Layouts.STOLEN_LOCKS),
                (indexSeq & 1) != 0 || memory.acquireLong(Layouts.JOURNAL_SLOT) != 0,
                attachments, attached);
    }

    // ------------------------------------------------------------------ lifetime

    /** Flushes the mapping to the file (msync). */
    public void force() {
        requireOpen();
        if (file != null && !readOnly) {
            data.force();
        }
    }

    public void requireOpen() {
        if (closed) {
            throw new IllegalStateException("hint store " + (file == null ? "(in memory)" : file) + " is closed");
        }
    }

    /** Idempotent. Other threads still using the store get {@link IllegalStateException}. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeShared(dataArena);
        if (control != null) {
            new Memory(control).releaseLong(Layouts.WRITER_TOKEN, 0L);
            controlArena.close();
        }
    }

    /**
     * A shared arena refuses to close while another thread is inside an access to it; those
     * accesses are short (no thread blocks inside one), and threads that enter the store after
     * {@link #closed} is set are turned away, so a retry soon succeeds.
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
