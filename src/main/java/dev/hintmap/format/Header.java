package dev.hintmap.format;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * The immutable part of a header (§3.1): written once by the creator, validated by every opener
 * before any slot is touched.
 *
 * @param geometry layout parameters and derived offsets
 * @param hotThresholdNs mean kernel ns at or above which a region is hot
 * @param createdEpochMs creation time
 */
public record Header(FileGeometry geometry, long hotThresholdNs, long createdEpochMs) {

    /** Writes lines 0-1 except {@code magic} into a zeroed header; the caller publishes magic last. */
    public void writeImmutablePart(MemorySegment h) {
        h.set(Layouts.U32, Layouts.HDR_FORMAT_VERSION, Layouts.FORMAT_VERSION_VALUE);
        h.set(Layouts.U32, Layouts.HDR_HEADER_BYTES, (int) Layouts.HEADER.byteSize());
        h.set(Layouts.U64, Layouts.HDR_LAYOUT_FINGERPRINT, Layouts.fingerprint());
        h.set(Layouts.U32, Layouts.HDR_CAPACITY, geometry.capacity());
        h.set(Layouts.U32, Layouts.HDR_MAX_NAME_BYTES, geometry.maxNameBytes());
        h.set(Layouts.U32, Layouts.HDR_SLOT_BYTES, geometry.slotBytes());
        h.set(Layouts.U32, Layouts.HDR_INDEX_ENTRIES, geometry.indexEntries());
        h.set(Layouts.U32, Layouts.HDR_MAX_PROBE, geometry.maxProbe());
        h.set(Layouts.U32, Layouts.HDR_WRITER_ENTRIES, geometry.writerEntries());
        h.set(Layouts.U64, Layouts.HDR_HOT_THRESHOLD_NS, hotThresholdNs);
        h.set(Layouts.U64, Layouts.HDR_CREATED_EPOCH_MS, createdEpochMs);
        h.set(Layouts.U64, Layouts.HDR_WRITER_TABLE_OFFSET, geometry.writerTableOffset());
        h.set(Layouts.U64, Layouts.HDR_INDEX_OFFSET, geometry.indexOffset());
        h.set(Layouts.U64, Layouts.HDR_SLOTS_OFFSET, geometry.slotsOffset());
        h.set(Layouts.U64, Layouts.HDR_FILE_BYTES, geometry.fileBytes());
        h.set(Layouts.U64, Layouts.HDR_REF_TABLE_OFFSET, geometry.refTableOffset());
        h.set(Layouts.U64, Layouts.HDR_HEADER_CHECKSUM, checksum(h));
    }

    /** {@code hm64} of the bytes between {@code magic} and {@code header_checksum}. */
    static long checksum(MemorySegment h) {
        int from = (int) Layouts.HDR_FORMAT_VERSION;
        int length = (int) (Layouts.HDR_HEADER_CHECKSUM - from);
        byte[] bytes = h.asSlice(from, length).toArray(ValueLayout.JAVA_BYTE);
        return Hm64.ofBytes(bytes, length);
    }

    /**
     * Validates a header read from {@code file} as the current format version (§5 opening steps
     * 1–4) and returns it: {@link #validate(Path, MemorySegment, long, FormatVersion)} for
     * {@link FormatVersion#CURRENT}.
     */
    public static Header validate(Path file, MemorySegment h, long fileSize) throws HintFileException {
        return validate(file, h, fileSize, FormatVersion.CURRENT);
    }

    /**
     * Validates a header read from {@code file} as format version {@code version} (§5 opening
     * steps 1–4; §12 step 1 for versions 1 and 2) and returns it. Each problem names its own field.
     *
     * @param h at least the first {@code min(fileSize, 4096)} bytes of the file
     * @param fileSize the file's size in bytes
     * @param version the version the file must be
     * @return the header; its geometry's offsets are the current version's, {@code version}'s
     *     {@link FormatVersion#slotsOffset} gives version 1's slots
     * @throws HintFileException naming the first problem found
     */
    public static Header validate(Path file, MemorySegment h, long fileSize, FormatVersion version)
            throws HintFileException {
        long headerBytes = Layouts.HEADER.byteSize();
        if (fileSize < headerBytes || h.byteSize() < headerBytes) {
            throw new HintFileException(file, Problem.TRUNCATED, null,
                    "file is " + fileSize + " bytes, shorter than the " + headerBytes + "-byte header");
        }
        long magic = h.get(Layouts.U64, Layouts.HDR_MAGIC);
        if (magic == 0) {
            throw new HintFileException(file, Problem.UNFINISHED, "magic",
                    "file was never completely initialised (magic is 0): its creator died or is still creating it");
        }
        if (magic != Layouts.MAGIC_VALUE) {
            throw new HintFileException(file, Problem.NOT_A_HINT_FILE, "magic",
                    String.format("not a hint file: magic is 0x%016x, expected 0x%016x", magic, Layouts.MAGIC_VALUE));
        }
        int found = h.get(Layouts.U32, Layouts.HDR_FORMAT_VERSION);
        if (found != version.number()) {
            throw new HintFileException(file, Problem.UNSUPPORTED_VERSION, "format_version",
                    versionProblem(file, found, version));
        }
        requireEqual(file, "header_bytes", Integer.toUnsignedLong(h.get(Layouts.U32, Layouts.HDR_HEADER_BYTES)), headerBytes);
        long storedChecksum = h.get(Layouts.U64, Layouts.HDR_HEADER_CHECKSUM);
        long actualChecksum = checksum(h);
        if (storedChecksum != actualChecksum) {
            throw new HintFileException(file, Problem.CORRUPT_HEADER, "header_checksum",
                    String.format("header is corrupt: checksum 0x%016x does not match its contents (0x%016x)",
                            storedChecksum, actualChecksum));
        }
        long fingerprint = h.get(Layouts.U64, Layouts.HDR_LAYOUT_FINGERPRINT);
        if (fingerprint != version.fingerprint()) {
            throw new HintFileException(file, Problem.LAYOUT_MISMATCH, "layout_fingerprint",
                    String.format("written by a build with another binary layout (fingerprint 0x%016x, %s 0x%016x)",
                            fingerprint, version.layoutName(), version.fingerprint()));
        }
        long capacity = Integer.toUnsignedLong(h.get(Layouts.U32, Layouts.HDR_CAPACITY));
        requireRange(file, "capacity", capacity, 0, FileGeometry.MAX_CAPACITY);
        long maxName = Integer.toUnsignedLong(h.get(Layouts.U32, Layouts.HDR_MAX_NAME_BYTES));
        if (maxName < version.minMaxNameBytes() || maxName > FileGeometry.MAX_NAME_BYTES_LIMIT) {
            // Below the minimum a stored form could not keep its whole digest (§1.1, §2): damaged.
            throw new HintFileException(file, Problem.INCONSISTENT, "max_name_bytes", "max_name_bytes is " + maxName
                    + ", outside [" + version.minMaxNameBytes() + ", " + FileGeometry.MAX_NAME_BYTES_LIMIT + "]"
                    + (maxName < version.minMaxNameBytes() && version == FormatVersion.CURRENT
                            ? " (the minimum holds a stored name's '~' and 32 hex digits)" : ""));
        }
        long threshold = h.get(Layouts.U64, Layouts.HDR_HOT_THRESHOLD_NS);
        requireRange(file, "hot_threshold_ns", threshold, 0, Long.MAX_VALUE);
        FileGeometry g = new FileGeometry((int) capacity, (int) maxName);
        requireEqual(file, "slot_bytes", Integer.toUnsignedLong(h.get(Layouts.U32, Layouts.HDR_SLOT_BYTES)), g.slotBytes());
        requireEqual(file, "index_entries", Integer.toUnsignedLong(h.get(Layouts.U32, Layouts.HDR_INDEX_ENTRIES)), g.indexEntries());
        requireEqual(file, "max_probe", Integer.toUnsignedLong(h.get(Layouts.U32, Layouts.HDR_MAX_PROBE)), g.maxProbe());
        requireEqual(file, "writer_entries", Integer.toUnsignedLong(h.get(Layouts.U32, Layouts.HDR_WRITER_ENTRIES)), g.writerEntries());
        requireEqual(file, "writer_table_offset", h.get(Layouts.U64, Layouts.HDR_WRITER_TABLE_OFFSET), g.writerTableOffset());
        requireEqual(file, "index_offset", h.get(Layouts.U64, Layouts.HDR_INDEX_OFFSET), g.indexOffset());
        if (version.hasReferenceTable()) {
            requireEqual(file, "ref_table_offset", h.get(Layouts.U64, Layouts.HDR_REF_TABLE_OFFSET), g.refTableOffset());
        }
        requireEqual(file, "slots_offset", h.get(Layouts.U64, Layouts.HDR_SLOTS_OFFSET), version.slotsOffset(g));
        long fileBytes = version.fileBytes(g);
        requireEqual(file, "file_bytes", h.get(Layouts.U64, Layouts.HDR_FILE_BYTES), fileBytes);
        if (fileSize != fileBytes) {
            throw new HintFileException(file, fileSize < fileBytes ? Problem.TRUNCATED : Problem.INCONSISTENT,
                    "file_bytes", "file is " + fileSize + " bytes but its header declares " + fileBytes);
        }
        return new Header(g, threshold, h.get(Layouts.U64, Layouts.HDR_CREATED_EPOCH_MS));
    }

    /**
     * Why a file of version {@code found} is not read as {@code wanted}: for versions 1 and 2, how
     * to convert them; for a version {@code hintmap upgrade} does not convert, that.
     */
    private static String versionProblem(Path file, int found, FormatVersion wanted) {
        if (wanted != FormatVersion.CURRENT) {
            return "format version " + Integer.toUnsignedString(found) + ", not " + wanted.number()
                    + ": not a version to convert (1 or 2)";
        }
        if (found == Layouts.FORMAT_VERSION_1 || found == Layouts.FORMAT_VERSION_2) {
            return "hint file format version " + found + "; this library reads version " + Layouts.FORMAT_VERSION_VALUE
                    + ": convert it, keeping every record, with: hintmap upgrade " + file + upgradeCommandSource(file);
        }
        String who = Integer.compareUnsigned(found, Layouts.FORMAT_VERSION_VALUE) > 0
                ? "a newer hintmap" : "an older or unknown hintmap";
        return "format version " + Integer.toUnsignedString(found) + " was written by " + who
                + "; this library reads version " + Layouts.FORMAT_VERSION_VALUE;
    }

    private static void requireEqual(Path file, String field, long actual, long expected) throws HintFileException {
        if (actual != expected) {
            throw new HintFileException(file, Problem.INCONSISTENT, field,
                    field + " is " + actual + ", expected " + expected + " for this file's parameters");
        }
    }

    private static void requireRange(Path file, String field, long actual, long min, long max) throws HintFileException {
        if (actual < min || actual > max) {
            throw new HintFileException(file, Problem.INCONSISTENT, field,
                    field + " is " + actual + ", outside [" + min + ", " + max + "]");
        }
    }

    /**
     * Where a user of the library alone (a Maven dependency, no hintmap command installed) gets the
     * command that converts a version-1 or version-2 file: the distribution, an artifact of the same version
     * beside the library's jar (README "Install the hintmap command").
     */
    private static String upgradeCommandSource(Path file) {
        String version = ReleaseVersion.VALUE;
        if (version.equals("unknown")) {
            return " (the hintmap command: README \"Install the hintmap command\")";
        }
        String dir = "hintmap-" + version;
        return " (the hintmap command; with Maven alone: mvn dependency:unpack -Dartifact=dev.hintmap:hintmap:" + version
                + ":tar.gz:bin -DoutputDirectory=. && sh " + dir + "/bin/hintmap upgrade " + file + ")";
    }
}
