package dev.hintmap.format;

import java.lang.foreign.MemorySegment;

/**
 * The format versions a reader knows, and what differs between their headers: the current one,
 * which every open reads, and versions 1 and 2, which {@code hintmap upgrade} converts (FORMAT.md
 * §12). The header's fields and the slot's did not move between them. Version 1 has no reference
 * table, so its slots start where the later versions' reference table does, and its layout
 * fingerprint is its own. Version 2 has the current layout; it stored a name over
 * {@code max_name_bytes} with {@code hm64} instead of SHA-256 (§1.1) and allowed limits below
 * {@link FileGeometry#MIN_MAX_NAME_BYTES}. {@link Header#validate} checks a header against one of them.
 */
public enum FormatVersion {
    /** Version 1 (FORMAT.md §12 step 1), read only to convert it. */
    V1(Layouts.FORMAT_VERSION_1, 0xe2e3f6978519fdfeL, "version 1's layout", 1),
    /** Version 2 (FORMAT.md §12), read only to convert it: the current layout, v2's stored names. */
    V2(Layouts.FORMAT_VERSION_2, Layouts.fingerprint(), "this build", 1),
    /** The version this library writes and opens. */
    CURRENT(Layouts.FORMAT_VERSION_VALUE, Layouts.fingerprint(), "this build", FileGeometry.MIN_MAX_NAME_BYTES);

    private final int number;
    private final long fingerprint;
    private final String layoutName;
    private final int minMaxNameBytes;

    FormatVersion(int number, long fingerprint, String layoutName, int minMaxNameBytes) {
        this.number = number;
        this.fingerprint = fingerprint;
        this.layoutName = layoutName;
        this.minMaxNameBytes = minMaxNameBytes;
    }

    /**
     * The version whose number the header {@code h} declares, or null when it declares none of
     * these (or is too short to declare one). It says which version to validate the header as;
     * it checks nothing else ({@link Header#validate} does, magic first).
     */
    public static FormatVersion declaredBy(MemorySegment h) {
        if (h.byteSize() < Layouts.HDR_FORMAT_VERSION + 4) {
            return null;
        }
        int found = h.get(Layouts.U32, Layouts.HDR_FORMAT_VERSION);
        for (FormatVersion v : values()) {
            if (v.number == found) {
                return v;
            }
        }
        return null;
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

    /**
     * The smallest {@code max_name_bytes} a file of this version may have (§2):
     * {@link FileGeometry#MIN_MAX_NAME_BYTES} now, so that a stored form holds its whole digest
     * (§1.1); 1 in versions 1 and 2.
     */
    public int minMaxNameBytes() {
        return minMaxNameBytes;
    }

    /** Whether the header has {@code ref_table_offset} and the file a reference table (§3.9): not in version 1. */
    public boolean hasReferenceTable() {
        return this != V1;
    }

    /**
     * The offset of slot 0: in version 1 the slots follow the index, page-aligned, where the
     * later versions' reference table starts.
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
