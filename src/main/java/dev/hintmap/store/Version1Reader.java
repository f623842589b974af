package dev.hintmap.store;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.Version1Profile;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a hint file of format version 1 (FORMAT.md §12 step 1) for conversion: only what v1 and
 * v2 share is reused (the header's and slot's field offsets did not move; v1 has no reference
 * table, so its slots start right after the index, and its index is not read). The file is
 * mapped read-only and never changed.
 */
public final class Version1Reader {
    /** The v1 layout fingerprint (§3.4 of the v1 text; vectors/layout.txt before v2). */
    static final long V1_FINGERPRINT = 0xe2e3f6978519fdfeL;
    private static final long HEADER_BYTES = Layouts.HEADER.byteSize();

    private Version1Reader() {}

    /**
     * Reads every sound region of the v1 file at {@code file}, opened under the rules of every
     * hint file ({@link HintFileOpener#openForReading}: no symbolic link unless {@code options}
     * follow them, a regular file — a FIFO is refused without blocking —, the owner rule, no
     * unallocated range).
     *
     * @throws HintFileException when it is not a readable v1 hint file (problem as §9: missing,
     *     symlink, foreign owner, sparse, not a hint file, unsupported version — a v2 file
     *     included —, corrupt header, layout, inconsistent, truncated), or a page of it cannot be
     *     read ({@code IO})
     */
    public static Version1Profile read(Path file, HintStoreOptions options) throws IOException {
        return mapped(file, options, (m, g) -> readRegions(m, g, new MappedFileSighting(m.address())));
    }

    /**
     * The processes attached to the v1 file at {@code file} as writers and alive by FORMAT.md
     * §6.3, the rule that they map this very file included (a byte copy of a live file names
     * writers that never opened the copy): what a command about to replace or convert the file
     * would take the new records of.
     */
    public static List<Long> liveWriters(Path file, HintStoreOptions options) throws IOException {
        return mapped(file, options, (m, g) -> liveWriters(m, g, new MappedFileSighting(m.address())));
    }

    @FunctionalInterface
    private interface MappedRead<T> {
        T read(MemorySegment m, FileGeometry g);
    }

    private static <T> T mapped(Path file, HintStoreOptions options, MappedRead<T> read) throws IOException {
        try (HintFileOpener.Opened opened = HintFileOpener.openForReading(file, options, true);
                FileChannel channel = opened.channel(); Arena arena = Arena.ofConfined()) {
            long size = opened.size();
            if (size < HEADER_BYTES) {
                throw new HintFileException(file, Problem.TRUNCATED, null,
                        "file is " + size + " bytes, shorter than the " + HEADER_BYTES + "-byte header");
            }
            MemorySegment m = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            try {
                return read.read(m, validateHeader(file, m, size));
            } catch (InternalError fault) {
                // A page that cannot be read: truncated under us, a hole punched after the check on a full
                // filesystem, an I/O error. A file problem, never a raw error (FORMAT.md §5.1).
                long now = channel.size();
                throw new HintFileException(file, now < size ? Problem.TRUNCATED : Problem.IO, null, now < size
                        ? "file was truncated to " + now + " bytes while it was being read"
                        : "a page of the file could not be read (a hole on a full filesystem, or an I/O error): "
                                + fault.getMessage(), fault);
            }
        }
    }

    private static FileGeometry validateHeader(Path file, MemorySegment m, long size) throws HintFileException {
        long magic = m.get(Layouts.U64, Layouts.HDR_MAGIC);
        if (magic != Layouts.MAGIC_VALUE) {
            throw new HintFileException(file, magic == 0 ? Problem.UNFINISHED : Problem.NOT_A_HINT_FILE, "magic",
                    String.format("not a finished hint file: magic is 0x%016x", magic));
        }
        int version = m.get(Layouts.U32, Layouts.HDR_FORMAT_VERSION);
        if (version != Layouts.FORMAT_VERSION_1) {
            throw new HintFileException(file, Problem.UNSUPPORTED_VERSION, "format_version",
                    "format version " + Integer.toUnsignedString(version) + ", not 1: nothing to convert");
        }
        if (Integer.toUnsignedLong(m.get(Layouts.U32, Layouts.HDR_HEADER_BYTES)) != HEADER_BYTES) {
            throw inconsistent(file, "header_bytes", "is not " + HEADER_BYTES);
        }
        int from = (int) Layouts.HDR_FORMAT_VERSION;
        byte[] checked = m.asSlice(from, Layouts.HDR_HEADER_CHECKSUM - from).toArray(ValueLayout.JAVA_BYTE);
        if (Hm64.ofBytes(checked, checked.length) != m.get(Layouts.U64, Layouts.HDR_HEADER_CHECKSUM)) {
            throw new HintFileException(file, Problem.CORRUPT_HEADER, "header_checksum",
                    "header is corrupt: its checksum does not match its contents");
        }
        if (m.get(Layouts.U64, Layouts.HDR_LAYOUT_FINGERPRINT) != V1_FINGERPRINT) {
            throw new HintFileException(file, Problem.LAYOUT_MISMATCH, "layout_fingerprint",
                    "written by a build with another binary layout than version 1's");
        }
        long capacity = Integer.toUnsignedLong(m.get(Layouts.U32, Layouts.HDR_CAPACITY));
        long maxName = Integer.toUnsignedLong(m.get(Layouts.U32, Layouts.HDR_MAX_NAME_BYTES));
        if (capacity > FileGeometry.MAX_CAPACITY || maxName < 1 || maxName > FileGeometry.MAX_NAME_BYTES_LIMIT
                || m.get(Layouts.U64, Layouts.HDR_HOT_THRESHOLD_NS) < 0) {
            throw inconsistent(file, "capacity", "a layout parameter is out of range");
        }
        FileGeometry g = new FileGeometry((int) capacity, (int) maxName);
        long slotsOffset = v1SlotsOffset(g);
        long fileBytes = roundUpPage(slotsOffset + capacity * g.slotBytes());
        if (Integer.toUnsignedLong(m.get(Layouts.U32, Layouts.HDR_SLOT_BYTES)) != g.slotBytes()
                || Integer.toUnsignedLong(m.get(Layouts.U32, Layouts.HDR_INDEX_ENTRIES)) != g.indexEntries()
                || Integer.toUnsignedLong(m.get(Layouts.U32, Layouts.HDR_MAX_PROBE)) != g.maxProbe()
                || Integer.toUnsignedLong(m.get(Layouts.U32, Layouts.HDR_WRITER_ENTRIES)) != g.writerEntries()
                || m.get(Layouts.U64, Layouts.HDR_WRITER_TABLE_OFFSET) != g.writerTableOffset()
                || m.get(Layouts.U64, Layouts.HDR_INDEX_OFFSET) != g.indexOffset()
                || m.get(Layouts.U64, Layouts.HDR_SLOTS_OFFSET) != slotsOffset
                || m.get(Layouts.U64, Layouts.HDR_FILE_BYTES) != fileBytes) {
            throw inconsistent(file, "slots_offset", "a derived size or offset differs from version 1's");
        }
        if (size != fileBytes) {
            throw new HintFileException(file, size < fileBytes ? Problem.TRUNCATED : Problem.INCONSISTENT, "file_bytes",
                    "file is " + size + " bytes but its header declares " + fileBytes);
        }
        return g;
    }

    /** v1 had no reference table: its slots follow the index (FORMAT.md §12 step 1). */
    static long v1SlotsOffset(FileGeometry g) {
        return roundUpPage(g.indexOffset() + (long) Layouts.INDEX_ENTRY_BYTES * g.indexEntries());
    }

    private static long roundUpPage(long value) {
        return (value + Layouts.PAGE - 1) / Layouts.PAGE * Layouts.PAGE;
    }

    private static List<Long> liveWriters(MemorySegment m, FileGeometry g, MappedFileSighting sighting) {
        List<Long> live = new ArrayList<>();
        for (int i = 0; i < g.writerEntries(); i++) {
            long token = m.get(Layouts.U64, g.writerTableOffset() + Layouts.WRITER_ENTRY.byteSize() * i + Layouts.WRITER_TOKEN);
            if (token != 0 && ProcessIdentity.isAlive(token, sighting)) {
                live.add(ProcessIdentity.pidOf(token));
            }
        }
        return live;
    }

    private static Version1Profile readRegions(MemorySegment m, FileGeometry g, MappedFileSighting sighting) {
        List<Long> live = liveWriters(m, g, sighting);
        long highWater = m.get(Layouts.U64, Layouts.HDR_HIGH_WATER);
        long used = Long.compareUnsigned(highWater, g.capacity()) > 0 ? g.capacity() : highWater;
        List<RegionRecord> regions = new ArrayList<>();
        Set<String> names = new HashSet<>();
        int unsound = 0;
        long slotsOffset = v1SlotsOffset(g);
        for (int k = 0; k < used; k++) {
            RegionRecord r = soundRegion(m, g, slotsOffset + (long) k * g.slotBytes());
            if (r == null) {
                long slot = slotsOffset + (long) k * g.slotBytes();
                if (m.get(Layouts.U32, slot + Layouts.SLOT_NAME_LEN) != 0 || (m.get(Layouts.U64, slot + Layouts.SLOT_GEN) & 1) != 0) {
                    unsound++; // a FREE slot holds nothing to lose
                }
            } else if (names.add(r.name())) {
                regions.add(r);
            } else {
                unsound++; // a later duplicate: recovery would free it too
            }
        }
        return new Version1Profile(g.capacity(), g.maxNameBytes(), m.get(Layouts.U64, Layouts.HDR_HOT_THRESHOLD_NS),
                m.get(Layouts.U64, Layouts.HDR_CREATED_EPOCH_MS), regions, unsound, live,
                counter(m, Layouts.HDR_EVICTIONS), counter(m, Layouts.HDR_RECOVERIES),
                counter(m, Layouts.HDR_DROPPED_INSERTS), counter(m, Layouts.HDR_STOLEN_LOCKS));
    }

    private static long counter(MemorySegment m, long offset) {
        long value = m.get(Layouts.U64, offset);
        return value < 0 ? 0 : value; // §5 step 5: a top bit set reads as 0
    }

    /** The slot's region when it is sound by §8 step 2c (v1 offsets), else null. */
    private static RegionRecord soundRegion(MemorySegment m, FileGeometry g, long slot) {
        long gen = m.get(Layouts.U64, slot + Layouts.SLOT_GEN);
        int length = m.get(Layouts.U32, slot + Layouts.SLOT_NAME_LEN);
        if ((gen & 1) != 0 || length <= 0 || length > g.maxNameBytes()) {
            return null;
        }
        byte[] area = m.asSlice(slot + Layouts.SLOT_NAME, g.nameAreaBytes()).toArray(ValueLayout.JAVA_BYTE);
        for (int i = length; i < area.length; i++) {
            if (area[i] != 0) {
                return null;
            }
        }
        if (Hm64.ofBytes(area, length) != m.get(Layouts.U64, slot + Layouts.SLOT_HASH)) {
            return null;
        }
        String name = FileVerifier.decodeUtf8(java.util.Arrays.copyOf(area, length)); // verify's rule: strict UTF-8
        if (name == null) {
            return null;
        }
        long seq = m.get(Layouts.U64, slot + Layouts.SLOT_SEQ);
        long copy = slot + Layouts.SLOT_COPIES + (seq & 1) * Layouts.RECORD_COPY_BYTES;
        long count = m.get(Layouts.U64, copy + Layouts.REC_DISPATCH_COUNT);
        long total = m.get(Layouts.U64, copy + Layouts.REC_KERNEL_NS_TOTAL);
        long max = m.get(Layouts.U64, copy + Layouts.REC_KERNEL_NS_MAX);
        long bytes = m.get(Layouts.U64, copy + Layouts.REC_BYTES_TOTAL);
        if (!StoreEngine.isPlausible(count, total, max, bytes)) {
            return null;
        }
        return new RegionRecord(name, count, total, max, bytes);
    }

    private static HintFileException inconsistent(Path file, String field, String detail) {
        return new HintFileException(file, Problem.INCONSISTENT, field, field + " " + detail);
    }
}
