package dev.hintmap.format;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The file layout of {@code docs/FORMAT.md} §3 as {@link StructLayout}s. Every offset used by the
 * store is derived here from a layout, never written as a literal at a call site.
 *
 * <pre>
 *  file:   | header 4096 B | writer table W x 16 B | index I x 8 B | ref table C x 1 B | slots C x slot_bytes |
 *  slot:   | lock | seq | gen | hash | name_len | pad                 |  control line (64 B)
 *          | copy 0 (32 B)             | copy 1 (32 B)            |  record line  (64 B)
 *          | name bytes, zero padded to a multiple of 64                |
 * </pre>
 */
public final class Layouts {
    private Layouts() {}

    /** Cache line the slots and header lines are aligned to. */
    public static final int CACHE_LINE = 64;
    public static final int WORD_BYTES = 8;
    public static final int PAGE = 4096;

    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Header, §3.1–3.3. */
    public static final StructLayout HEADER = structLayout(
            U64.withName("magic"),
            U32.withName("format_version"),
            U32.withName("header_bytes"),
            U64.withName("layout_fingerprint"),
            U32.withName("capacity"),
            U32.withName("max_name_bytes"),
            U32.withName("slot_bytes"),
            U32.withName("index_entries"),
            U32.withName("max_probe"),
            U32.withName("writer_entries"),
            U64.withName("hot_threshold_ns"),
            U64.withName("created_epoch_ms"),
            U64.withName("writer_table_offset"),
            U64.withName("index_offset"),
            U64.withName("slots_offset"),
            U64.withName("file_bytes"),
            U64.withName("ref_table_offset"),
            paddingLayout(16),
            U64.withName("header_checksum"),
            // line 2: coordination, written under the structure lock
            U64.withName("struct_lock"),
            U64.withName("journal_slot"),
            U64.withName("index_seq"),
            U64.withName("clock_hand"),
            U64.withName("live_count"),
            U64.withName("high_water"),
            U64.withName("evictions"),
            U64.withName("recoveries"),
            // line 3: statistics
            U64.withName("dropped_inserts"),
            U64.withName("stolen_locks"),
            paddingLayout(48),
            paddingLayout(PAGE - 256)).withName("header");

    /** Writer table entry, §3.5. */
    public static final StructLayout WRITER_ENTRY = structLayout(
            U64.withName("token"),
            U64.withName("generation")).withName("writer_entry");

    /** One of the two record copies of a slot, §3.7. */
    public static final StructLayout RECORD_COPY = structLayout(
            U64.withName("dispatch_count"),
            U64.withName("kernel_ns_total"),
            U64.withName("kernel_ns_max"),
            U64.withName("bytes_total")).withName("record_copy");

    /** The fixed part of a slot (control line and record line), §3.6; the name follows. */
    public static final StructLayout SLOT_FIXED = structLayout(
            U64.withName("lock"),
            U64.withName("seq"),
            U64.withName("gen"),
            U64.withName("hash"),
            U32.withName("name_len"),
            paddingLayout(28),
            MemoryLayout.sequenceLayout(2, RECORD_COPY).withName("copies")).withName("slot_fixed");

    public static final int INDEX_ENTRY_BYTES = 8;

    /** Index entry fields (§3.8): {@code tag << 34 | dist << 27 | (slot + 1)}. */
    public static final int INDEX_SLOT_BITS = 27;
    public static final int INDEX_DIST_BITS = 7;
    public static final int INDEX_DIST_SHIFT = INDEX_SLOT_BITS;
    public static final int INDEX_TAG_SHIFT = INDEX_SLOT_BITS + INDEX_DIST_BITS;
    public static final long INDEX_SLOT_MASK = (1L << INDEX_SLOT_BITS) - 1;
    public static final long INDEX_DIST_MASK = (1L << INDEX_DIST_BITS) - 1;

    /** One reference byte per slot in the reference table (§3.9). */
    public static final int REF_ENTRY_BYTES = 1;

    /*
     * Offset constants are named <STRUCT>_<FORMAT field name in upper case> (HDR_, WRITER_,
     * SLOT_, REC_); the C header's offset macro for the same field is HM_ + that name + _OFFSET
     * (native-bench/include/hintmap_format.h), so one word finds a field in both libraries.
     */
    private static long off(StructLayout layout, String field) {
        return layout.byteOffset(groupElement(field));
    }

    // Header offsets.
    public static final long HDR_MAGIC = off(HEADER, "magic");
    public static final long HDR_FORMAT_VERSION = off(HEADER, "format_version");
    public static final long HDR_HEADER_BYTES = off(HEADER, "header_bytes");
    public static final long HDR_LAYOUT_FINGERPRINT = off(HEADER, "layout_fingerprint");
    public static final long HDR_CAPACITY = off(HEADER, "capacity");
    public static final long HDR_MAX_NAME_BYTES = off(HEADER, "max_name_bytes");
    public static final long HDR_SLOT_BYTES = off(HEADER, "slot_bytes");
    public static final long HDR_INDEX_ENTRIES = off(HEADER, "index_entries");
    public static final long HDR_MAX_PROBE = off(HEADER, "max_probe");
    public static final long HDR_WRITER_ENTRIES = off(HEADER, "writer_entries");
    public static final long HDR_HOT_THRESHOLD_NS = off(HEADER, "hot_threshold_ns");
    public static final long HDR_CREATED_EPOCH_MS = off(HEADER, "created_epoch_ms");
    public static final long HDR_WRITER_TABLE_OFFSET = off(HEADER, "writer_table_offset");
    public static final long HDR_INDEX_OFFSET = off(HEADER, "index_offset");
    public static final long HDR_SLOTS_OFFSET = off(HEADER, "slots_offset");
    public static final long HDR_FILE_BYTES = off(HEADER, "file_bytes");
    public static final long HDR_REF_TABLE_OFFSET = off(HEADER, "ref_table_offset");
    public static final long HDR_HEADER_CHECKSUM = off(HEADER, "header_checksum");
    public static final long HDR_STRUCT_LOCK = off(HEADER, "struct_lock");
    public static final long HDR_JOURNAL_SLOT = off(HEADER, "journal_slot");
    public static final long HDR_INDEX_SEQ = off(HEADER, "index_seq");
    public static final long HDR_CLOCK_HAND = off(HEADER, "clock_hand");
    public static final long HDR_LIVE_COUNT = off(HEADER, "live_count");
    public static final long HDR_HIGH_WATER = off(HEADER, "high_water");
    public static final long HDR_EVICTIONS = off(HEADER, "evictions");
    public static final long HDR_RECOVERIES = off(HEADER, "recoveries");
    public static final long HDR_DROPPED_INSERTS = off(HEADER, "dropped_inserts");
    public static final long HDR_STOLEN_LOCKS = off(HEADER, "stolen_locks");

    // Writer entry offsets.
    public static final long WRITER_TOKEN = off(WRITER_ENTRY, "token");
    public static final long WRITER_GENERATION = off(WRITER_ENTRY, "generation");

    // Slot offsets.
    public static final long SLOT_LOCK = off(SLOT_FIXED, "lock");
    public static final long SLOT_SEQ = off(SLOT_FIXED, "seq");
    public static final long SLOT_GEN = off(SLOT_FIXED, "gen");
    public static final long SLOT_HASH = off(SLOT_FIXED, "hash");
    public static final long SLOT_NAME_LEN = off(SLOT_FIXED, "name_len");
    public static final long SLOT_COPIES = off(SLOT_FIXED, "copies");
    /** The name follows the fixed part. */
    public static final long SLOT_NAME = SLOT_FIXED.byteSize();

    // Record copy offsets.
    public static final long REC_DISPATCH_COUNT = off(RECORD_COPY, "dispatch_count");
    public static final long REC_KERNEL_NS_TOTAL = off(RECORD_COPY, "kernel_ns_total");
    public static final long REC_KERNEL_NS_MAX = off(RECORD_COPY, "kernel_ns_max");
    public static final long REC_BYTES_TOTAL = off(RECORD_COPY, "bytes_total");
    public static final long RECORD_COPY_BYTES = RECORD_COPY.byteSize();

    /** {@code H I N T M A P \0} read as a little-endian word. */
    public static final long MAGIC_VALUE = 0x0050414D544E4948L;
    public static final int FORMAT_VERSION_VALUE = 3;
    /** Version 1, which this library refuses and {@code hintmap upgrade} converts (§12). */
    public static final int FORMAT_VERSION_1 = 1;
    /** Version 2 (this layout, long names stored with {@code hm64}), refused and converted likewise (§12). */
    public static final int FORMAT_VERSION_2 = 2;

    /**
     * The fields of the layout in the order of {@code docs/FORMAT.md} §3.4, as
     * {@code name offset size} lines: the parity check against the C header compares these.
     */
    public static String describe() {
        StringBuilder out = new StringBuilder();
        describe(out, HEADER);
        describe(out, WRITER_ENTRY);
        describe(out, SLOT_FIXED);
        describe(out, RECORD_COPY);
        return out.toString();
    }

    private static void describe(StringBuilder out, StructLayout layout) {
        long offset = 0;
        for (MemoryLayout member : layout.memberLayouts()) {
            if (member.name().isPresent()) {
                out.append(layout.name().orElseThrow()).append('.').append(member.name().get())
                        .append(' ').append(offset).append(' ').append(member.byteSize()).append('\n');
            }
            offset += member.byteSize();
        }
        out.append(layout.name().orElseThrow()).append(" size ").append(layout.byteSize()).append('\n');
    }

    /**
     * The layout fingerprint of §3.4, derived by walking the layouts above: the cache line and
     * word sizes, the sizes of the four structs and of an index entry, the reference entry's size
     * and the index entry's slot and distance widths (v2), then the offset of every
     * named field of the header, the slot's fixed part (followed by where the name begins, right
     * after it), a record copy and a writer entry, in declaration order. No list of offsets is
     * written by hand: a field added to a layout changes it (and the description), so a build
     * whose layout differs from the C library's refuses the other's files.
     */
    public static long fingerprint() {
        return FINGERPRINT;
    }

    /** Computed once: every open compares it (§5 opening step 3). */
    private static final long FINGERPRINT = computeFingerprint();

    private static long computeFingerprint() {
        List<Long> values = new ArrayList<>(List.of((long) CACHE_LINE, (long) WORD_BYTES, HEADER.byteSize(),
                WRITER_ENTRY.byteSize(), (long) INDEX_ENTRY_BYTES, SLOT_FIXED.byteSize(), RECORD_COPY.byteSize(),
                (long) REF_ENTRY_BYTES, (long) INDEX_SLOT_BITS, (long) INDEX_DIST_BITS));
        namedOffsets(HEADER, values);
        namedOffsets(SLOT_FIXED, values);
        values.add(SLOT_FIXED.byteSize()); // the name area follows the fixed part (SLOT_NAME)
        namedOffsets(RECORD_COPY, values);
        namedOffsets(WRITER_ENTRY, values);
        return fingerprintOf(values);
    }

    private static void namedOffsets(StructLayout layout, List<Long> out) {
        long offset = 0;
        for (MemoryLayout member : layout.memberLayouts()) {
            if (member.name().isPresent()) {
                out.add(offset);
            }
            offset += member.byteSize();
        }
    }

    /** hm64 of the values as consecutive little-endian u32s in a 256-byte zeroed buffer (§3.4). */
    private static long fingerprintOf(List<Long> values) {
        byte[] bytes = new byte[64 * 4];
        for (int i = 0; i < values.size(); i++) {
            int v = Math.toIntExact(values.get(i));
            bytes[4 * i] = (byte) v;
            bytes[4 * i + 1] = (byte) (v >>> 8);
            bytes[4 * i + 2] = (byte) (v >>> 16);
            bytes[4 * i + 3] = (byte) (v >>> 24);
        }
        return Hm64.ofBytes(bytes, bytes.length);
    }
}
