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
    public static final int MAX_CAPACITY = 1 << 26;
    public static final int MAX_NAME_BYTES_LIMIT = 1024;
    public static final int WRITER_ENTRIES = 1024;
    public static final int MAX_PROBE_LIMIT = 128;
    public static final int MIN_INDEX_ENTRIES = 16;

    public FileGeometry {
        if (capacity < 0 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "capacity " + capacity + " is outside [0, " + MAX_CAPACITY + "]");
        }
        if (maxNameBytes < 1 || maxNameBytes > MAX_NAME_BYTES_LIMIT) {
            throw new IllegalArgumentException(
                    "maxNameBytes " + maxNameBytes + " is outside [1, " + MAX_NAME_BYTES_LIMIT + "]");
        }
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
