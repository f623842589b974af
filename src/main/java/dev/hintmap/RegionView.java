package dev.hintmap;

import dev.hintmap.format.Utf8;
import dev.hintmap.store.SlotRecord;
import dev.hintmap.store.StoreEngine;
import java.util.Objects;

/**
 * One region as a scan by {@link HintStore#forEachView(RecordVisitor)} sees it: its name, as the
 * UTF-8 bytes the file stores (the stored form of a name longer than the file's limit, FORMAT.md
 * §1.1), and its record, read together in one consistent read (the name and
 * the record belong to the same region, the record is one update, never a mix of two). The scan
 * refills one view for every region, so a view is valid only during the
 * {@link RecordVisitor#visit} call it is passed to.
 *
 * <p>Nothing here allocates per region except {@link #name()} and {@link #toRecord()}: compare
 * names with {@link #nameEquals(String)} or {@link #nameStartsWith(String)} (the scan's first
 * compare makes one buffer of {@link HintStore#maxNameBytes()} bytes), or copy the bytes out with
 * {@link #nameBytes(byte[])}, and decode a {@code String} only for the regions that need one.
 *
 * <p>Its mean and hot answers are {@link RecordFigures}'s, as for {@link RegionRecord}; {@link #isHot()}
 * asks with the scanned store's threshold.
 */
public final class RegionView implements RecordFigures {
    final SlotRecord values = new SlotRecord();
    /** The name as the slot stores it: UTF-8 bytes packed little-endian into words. */
    final long[] words;
    int nameLength;
    private final long hotThresholdNs;
    /** The UTF-8 of {@link #compared}, made on a scan's first name compare. */
    private byte[] utf8;
    /** The String last compared with a name (by identity: Strings are immutable), and its encoded length. */
    private String compared;
    private int comparedLength;

    RegionView(int maxNameBytes, long hotThresholdNs) {
        this.words = new long[(maxNameBytes + 7) >>> 3];
        this.hotThresholdNs = hotThresholdNs;
    }

    /** Fills this view from slot {@code k} with one consistent read (FORMAT.md §7.2.1); false when it holds no region. */
    boolean read(StoreEngine engine, int k) {
        nameLength = engine.slotRead(k, words, values);
        return nameLength > 0;
    }

    /**
     * Length of the region's name in UTF-8.
     *
     * @return the number of bytes, in {@code [1, HintStore.maxNameBytes()]}
     */
    public int nameLength() {
        return nameLength;
    }

    /**
     * One byte of the region's UTF-8 name.
     *
     * @param index the byte's position, in {@code [0, nameLength())}
     * @return the byte
     * @throws IndexOutOfBoundsException if {@code index} is outside the name
     */
    public byte nameByte(int index) {
        Objects.checkIndex(index, nameLength);
        return byteAt(index);
    }

    /**
     * Copies the region's UTF-8 name into {@code dst}, from index 0; allocates nothing.
     *
     * @param dst the destination, at least {@link #nameLength()} long (a buffer of
     *     {@link HintStore#maxNameBytes()} fits every name)
     * @return the number of bytes copied, {@link #nameLength()}
     * @throws IndexOutOfBoundsException if {@code dst} is shorter than the name
     */
    public int nameBytes(byte[] dst) {
        Objects.checkFromIndexSize(0, nameLength, dst.length);
        for (int i = 0; i < nameLength; i++) {
            dst[i] = byteAt(i);
        }
        return nameLength;
    }

    /**
     * Whether the region's name is {@code other}, compared in UTF-8 without allocating per region.
     *
     * @param other a name
     * @return true when {@code other}'s UTF-8 encoding is exactly the region's name; false for a
     *     string with an unpaired surrogate, which no region name is
     * @throws NullPointerException if {@code other} is null
     */
    public boolean nameEquals(String other) {
        return matched(other) == nameLength;
    }

    /**
     * Whether the region's name begins with {@code prefix}, compared in UTF-8 without allocating per region.
     *
     * @param prefix a prefix; the empty string matches every name
     * @return true when {@code prefix}'s UTF-8 encoding is a prefix of the region's name
     * @throws NullPointerException if {@code prefix} is null
     */
    public boolean nameStartsWith(String prefix) {
        return matched(prefix) >= 0;
    }

    /**
     * The UTF-8 length of {@code s} when it is a prefix of the name, else -1. The encoding is
     * {@link Utf8#encode}, the record path's: an unpaired surrogate is not encodable, so it matches
     * nothing. The last string compared stays encoded, so a visitor that compares every region with
     * the same String encodes it once per scan.
     */
    private int matched(String s) {
        Objects.requireNonNull(s, "name");
        if (s != compared) {
            if (utf8 == null) {
                utf8 = new byte[words.length * 8]; // the first compare of a scan; at least maxNameBytes
            }
            comparedLength = Utf8.encode(s, utf8, utf8.length); // longer than any name, or unencodable: < 0
            compared = s;
        }
        int length = comparedLength;
        if (length < 0 || length > nameLength) {
            return -1;
        }
        for (int i = 0; i < length; i++) {
            if (byteAt(i) != utf8[i]) {
                return -1;
            }
        }
        return length;
    }

    /**
     * The region's name, decoded; allocates a {@code String}.
     *
     * @return the stored name, as {@link #toRecord()} and {@link HintStore#snapshot()} give it (bytes
     *     that are not UTF-8, found only in a damaged file, decode to one U+FFFD for each maximal
     *     ill-formed subpart, FORMAT.md §9.1: {@code Utf8.decodeReplacing})
     */
    public String name() {
        byte[] bytes = new byte[nameLength];
        nameBytes(bytes);
        return Utf8.decodeReplacing(bytes, nameLength);
    }

    private byte byteAt(int i) {
        return (byte) (words[i >>> 3] >>> ((i & 7) << 3));
    }

    /**
     * Samples recorded since the region was (last) inserted.
     *
     * @return the dispatch count, {@code >= 1}
     */
    public long dispatchCount() {
        return values.dispatchCount();
    }

    /**
     * Sum of kernel times.
     *
     * @return the total in ns, {@code >= 0}
     */
    public long kernelNsTotal() {
        return values.kernelNsTotal();
    }

    /**
     * Largest kernel time.
     *
     * @return the maximum in ns, {@code >= 0}
     */
    public long kernelNsMax() {
        return values.kernelNsMax();
    }

    /**
     * Sum of bytes touched.
     *
     * @return the total in bytes, {@code >= 0}
     */
    public long bytesTotal() {
        return values.bytesTotal();
    }

    /**
     * Whether the region is hot, by the scanned store's {@link HintStore#hotThresholdNs()}.
     *
     * @return true when its mean kernel time is at least the threshold
     */
    public boolean isHot() {
        return isHot(hotThresholdNs);
    }

    /**
     * Copies the record into {@code into}, to keep it past the visit; allocates nothing.
     *
     * @param into the holder to fill
     * @throws NullPointerException if {@code into} is null
     */
    public void readInto(MutableRecord into) {
        into.values.copyFrom(values);
    }

    /**
     * An immutable copy of the region, name included; allocates a record and a {@code String}, as
     * {@link HintStore#snapshot()} does per region.
     *
     * @return a new record
     */
    public RegionRecord toRecord() {
        return new RegionRecord(name(), dispatchCount(), kernelNsTotal(), kernelNsMax(), bytesTotal());
    }

    @Override
    public String toString() {
        return "RegionView[" + name() + ", dispatchCount=" + dispatchCount() + ", kernelNsTotal=" + kernelNsTotal()
                + ", kernelNsMax=" + kernelNsMax() + ", bytesTotal=" + bytesTotal() + "]";
    }
}
