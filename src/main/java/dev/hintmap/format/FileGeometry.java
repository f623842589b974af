package dev.hintmap.format;

/**
 * The sizes and offsets of a hint file, derived from its two layout parameters as
 * {@code docs/FORMAT.md} §2 prescribes. A reader recomputes a geometry from the header's
 * parameters and requires every stored derived value to equal it.
 *
 * @param capacity maximum number of regions
 * @param maxNameBytes longest accepted UTF-8 name
 */
public record FileGeometry(int capacity, int maxNameBytes) {
    /*
     * The parameter ranges of FORMAT.md §2 are written here once, for the library, the CLI and the
     * public HintStoreOptions (whose constants are these); C's are HM_MAX_CAPACITY,
     * HM_MAX_NAME_BYTES_LIMIT and HM_MIN_NAME_BYTES in hintmap.h (checked by hm_internal.h's
     * hmi_capacity_valid and hmi_name_limit_valid, the twins of isCapacity and isNameLimit), and
     * vectors/limits.txt proves that the two agree.
     */
    /** The largest {@code capacity} a file may have: 2^26 regions (§2). */
    public static final int MAX_CAPACITY = 1 << 26;
    /** The largest {@code max_name_bytes} a file may have (§2). */
    public static final int MAX_NAME_BYTES_LIMIT = 1024;
    /**
     * The smallest {@code max_name_bytes} a version-3 file may have (§2): a stored form's tag,
     * {@code '~'} and 32 hex digits, with an empty prefix (§1.1), so that two long names never
     * share a region for want of room. Versions 1 and 2 allowed 1 ({@link FormatVersion#minMaxNameBytes}).
     */
    public static final int MIN_MAX_NAME_BYTES = StoredName.TAG_BYTES;
    public static final int WRITER_ENTRIES = 1024;
    public static final int MAX_PROBE_LIMIT = 128;
    public static final int MIN_INDEX_ENTRIES = 16;

    /**
     * A geometry of any version's file: {@code maxNameBytes} from 1, as versions 1 and 2 allowed
     * (the current version's own range is {@link #isNameLimit}, checked where a limit is taken).
     */
    public FileGeometry {
        if (!isCapacity(capacity)) {
            throw new IllegalArgumentException(
                    "capacity " + capacity + " is outside [0, " + MAX_CAPACITY + "]");
        }
        if (maxNameBytes < 1 || maxNameBytes > MAX_NAME_BYTES_LIMIT) {
            throw new IllegalArgumentException(
                    "maxNameBytes " + maxNameBytes + " is outside [1, " + MAX_NAME_BYTES_LIMIT + "]");
        }
    }

    /** Whether {@code capacity} is in §2's range {@code [0, MAX_CAPACITY]}. */
    public static boolean isCapacity(long capacity) {
        return capacity >= 0 && capacity <= MAX_CAPACITY;
    }

    /** Whether {@code maxNameBytes} is in §2's range {@code [MIN_MAX_NAME_BYTES, MAX_NAME_BYTES_LIMIT]}. */
    public static boolean isNameLimit(long maxNameBytes) {
        return maxNameBytes >= MIN_MAX_NAME_BYTES && maxNameBytes <= MAX_NAME_BYTES_LIMIT;
    }

    public int slotBytes() {
        return (int) (Layouts.SLOT_FIXED.byteSize() + roundUp(maxNameBytes, Layouts.CACHE_LINE));
    }

    /** Bytes reserved for the name in each slot (a multiple of 64). */
    public int nameAreaBytes() {
        return (int) roundUp(maxNameBytes, Layouts.CACHE_LINE);
    }

    public int indexEntries() {
        int wanted = Math.max(MIN_INDEX_ENTRIES, 2 * capacity);
        return Integer.highestOneBit(wanted - 1) << 1;
    }

    public int maxProbe() {
        return Math.min(MAX_PROBE_LIMIT, indexEntries());
    }

    public int writerEntries() {
        return WRITER_ENTRIES;
    }

    public long writerTableOffset() {
        return Layouts.HEADER.byteSize();
    }

    public long indexOffset() {
        return roundUp(writerTableOffset() + Layouts.WRITER_ENTRY.byteSize() * writerEntries(), Layouts.PAGE);
    }

    public long refTableOffset() {
        return roundUp(indexOffset() + (long) Layouts.INDEX_ENTRY_BYTES * indexEntries(), Layouts.PAGE);
    }

    public long slotsOffset() {
        return roundUp(refTableOffset() + (long) Layouts.REF_ENTRY_BYTES * capacity, Layouts.PAGE);
    }

    public long fileBytes() {
        return roundUp(slotsOffset() + (long) capacity * slotBytes(), Layouts.PAGE);
    }

    static long roundUp(long value, long multiple) {
        return (value + multiple - 1) / multiple * multiple;
    }
}
