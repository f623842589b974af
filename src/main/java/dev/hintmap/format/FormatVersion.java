package dev.hintmap.format;

/**
 * The format versions a reader knows, and what differs between their headers: the current one,
 * which every open reads, and version 1, which {@code hintmap upgrade} converts (FORMAT.md §12).
 * The header's fields and the slot's did not move between them; version 1 has no reference
 * table, so its slots start where version 2's reference table does, and its layout fingerprint
 * is its own. {@link Header#validate} checks a header against one of them.
 */
public enum FormatVersion {
    /** Version 1 (FORMAT.md §12 step 1), read only to convert it. */
    V1(Layouts.FORMAT_VERSION_1, 0xe2e3f6978519fdfeL, "version 1's layout"),
    /** The version this library writes and opens. */
    CURRENT(Layouts.FORMAT_VERSION_VALUE, Layouts.fingerprint(), "this build");

    private final int number;
    private final long fingerprint;
    private final String layoutName;

    FormatVersion(int number, long fingerprint, String layoutName) {
        this.number = number;
        this.fingerprint = fingerprint;
        this.layoutName = layoutName;
    }

    /** The header's {@code format_version}. */
    public int number() {
        return number;
    }

    /** The header's {@code layout_fingerprint} (§3.4; version 1's from vectors/layout.txt before v2). */
    public long fingerprint() {
        return fingerprint;
    }

    /** Whose layout {@link #fingerprint()} is, for a message. */
    String layoutName() {
        return layoutName;
    }

    /** Whether the header has {@code ref_table_offset} and the file a reference table (§3.9): not in version 1. */
    public boolean hasReferenceTable() {
        return this != V1;
    }

    /**
     * The offset of slot 0: in version 1 the slots follow the index, page-aligned, where the
     * current version's reference table starts.
     */
    public long slotsOffset(FileGeometry g) {
        return this == V1 ? g.refTableOffset() : g.slotsOffset();
    }

    /** The file's size for {@code g}: its slots end, rounded up to a page. */
    public long fileBytes(FileGeometry g) {
        return this == V1 ? FileGeometry.roundUp(slotsOffset(g) + (long) g.capacity() * g.slotBytes(), Layouts.PAGE)
                : g.fileBytes();
    }
}
