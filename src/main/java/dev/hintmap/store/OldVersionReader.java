package dev.hintmap.store;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.FormatVersion;
import dev.hintmap.format.Header;
import dev.hintmap.format.Layouts;
import dev.hintmap.format.RecordRules;
import dev.hintmap.os.MappedFileSighting;
import dev.hintmap.os.ProcessIdentity;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a hint file of format version 1 or 2 (FORMAT.md §12 step 1) for conversion: only what the
 * versions share is reused (the header's and slot's field offsets did not move; v1 has no
 * reference table, so its slots start right after the index; v2 has the current layout and
 * differs in its stored names). Neither index is read. The file is mapped read-only and never
 * changed.
 */
public final class OldVersionReader {
    /** Version 2's tag of a shortened name: {@code '~'} and 16 hex digits of hm64. */
    private static final int VERSION_2_TAG_BYTES = 17;

    private OldVersionReader() {}

    /**
     * Reads every sound region of the version-1 or version-2 file at {@code file}, opened under
     * the rules of every hint file ({@link HintFileOpener#openForReading}: no symbolic link unless
     * {@code options} follow them, a regular file — a FIFO is refused without blocking —, the
     * owner rule, no unallocated range). A file of the current version is validated as such and
     * read no further: its profile has {@link OldVersionProfile#formatVersion()} the current one.
     *
     * @throws HintFileException when it is not a readable hint file of version 1, 2 or the
     *     current one (problem as §9: missing, symlink, foreign owner, sparse, not a hint file,
     *     unsupported version, corrupt header, layout, inconsistent, truncated), or a page of it
     *     cannot be read ({@code IO})
     */
    public static OldVersionProfile read(Path file, HintStoreOptions options) throws IOException {
        return mapped(file, options, (m, h, v) -> v == FormatVersion.CURRENT ? current(h)
                : readRegions(m, h, v, new MappedFileSighting(m.address())));
    }

    /**
     * The processes attached to the version-1 or version-2 file at {@code file} as writers and
     * alive by FORMAT.md §6.3, the rule that they map this very file included (a byte copy of a
     * live file names writers that never opened the copy): what a command about to replace or
     * convert the file would take the new records of.
     */
    public static List<Long> liveWriters(Path file, HintStoreOptions options) throws IOException {
        return mapped(file, options, (m, h, v) -> liveWriters(m, h.geometry(), new MappedFileSighting(m.address())));
    }

    @FunctionalInterface
    private interface MappedRead<T> {
        T read(MemorySegment m, Header h, FormatVersion version);
    }

    private static <T> T mapped(Path file, HintStoreOptions options, MappedRead<T> read) throws IOException {
        try (HintFileOpener.Opened opened = HintFileOpener.openForReading(file, options, true);
                FileChannel channel = opened.channel(); Arena arena = Arena.ofConfined()) {
            long size = opened.size();
            MemorySegment m = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            try {
                // The version the file declares says which rules to validate it by; validate checks it all,
                // magic first. A version no reader knows is checked as version 2, whose message names it.
                FormatVersion declared = FormatVersion.declaredBy(m);
                FormatVersion version = declared == null ? FormatVersion.V2 : declared;
                return read.read(m, Header.validate(file, m, size, version), version);
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

    private static OldVersionProfile current(Header h) {
        FileGeometry g = h.geometry();
        return new OldVersionProfile(FormatVersion.CURRENT.number(), g.capacity(), g.maxNameBytes(), h.hotThresholdNs(),
                h.createdEpochMs(), List.of(), 0, 0, List.of(), 0, 0, 0, 0);
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

    private static OldVersionProfile readRegions(MemorySegment m, Header h, FormatVersion version,
            MappedFileSighting sighting) {
        FileGeometry g = h.geometry();
        List<Long> live = liveWriters(m, g, sighting);
        long highWater = m.get(Layouts.U64, Layouts.HDR_HIGH_WATER);
        Slots slots = new Slots(g, version);
        int used = slots.usedSlots(highWater);
        EncodedName name = new EncodedName();
        List<RegionRecord> regions = new ArrayList<>();
        SlotSoundness.Kept kept = SlotSoundness.keptByName();
        int unsound = 0;
        int shortened = 0;
        for (int k = 0; k < used; k++) {
            long slot = slots.slot(k);
            long gen = Memory.plainLong(m, Slots.gen(slot));
            int length = Memory.opaqueInt(m, Slots.nameLen(slot));
            if (length == 0 && (gen & 1) == 0) {
                continue; // FREE: it holds nothing to lose
            }
            RegionRecord r = (gen & 1) == 0 && SlotSoundness.nameSound(m, slots, slot, length, name, SlotSoundness.IGNORED)
                    ? soundRecord(m, slot, name.decodeStrict()) : null;
            if (r != null && SlotSoundness.keptFirst(kept, name, k, SlotSoundness.IGNORED)) {
                regions.add(r);
                if (version == FormatVersion.V2 && shortenedByVersion2(r.name(), g.maxNameBytes())) {
                    shortened++;
                }
            } else {
                unsound++; // not sound, or a later duplicate: recovery would free it too
            }
        }
        return new OldVersionProfile(version.number(), g.capacity(), g.maxNameBytes(), h.hotThresholdNs(),
                h.createdEpochMs(), regions, unsound, shortened, live, counter(m, Layouts.HDR_EVICTIONS),
                counter(m, Layouts.HDR_RECOVERIES), counter(m, Layouts.HDR_DROPPED_INSERTS),
                counter(m, Layouts.HDR_STOLEN_LOCKS));
    }

    /**
     * Whether {@code name} has the form version 2 gave a name longer than {@code limit} (FORMAT.md
     * §12): at a limit of 17 or more, a prefix of {@code limit - 17} bytes or up to 3 fewer (a
     * character that did not fit is left out whole), {@code '~'} and 16 lowercase hex digits; below
     * 17, exactly {@code limit} hex digits. A short name recorded as such a string looks the same:
     * the count is what upgrade can tell, an upper bound.
     */
    static boolean shortenedByVersion2(String name, int limit) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        if (limit < VERSION_2_TAG_BYTES) {
            return b.length == limit && hexDigits(b, 0, limit);
        }
        int prefix = b.length - VERSION_2_TAG_BYTES;
        int room = limit - VERSION_2_TAG_BYTES;
        return prefix >= Math.max(0, room - 3) && prefix <= room && b[prefix] == '~'
                && hexDigits(b, prefix + 1, VERSION_2_TAG_BYTES - 1);
    }

    private static boolean hexDigits(byte[] b, int from, int count) {
        for (int i = from; i < from + count; i++) {
            if (!(b[i] >= '0' && b[i] <= '9' || b[i] >= 'a' && b[i] <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /**
     * The slot's current record under {@code name} when it is sound (§7.2.1), else null. Plain
     * loads, no seqlock: {@code upgrade} converts only a file no live writer is attached to.
     */
    private static RegionRecord soundRecord(MemorySegment m, long slot, String name) {
        long copy = Slots.copy(slot, Memory.plainLong(m, Slots.seq(slot)));
        long count = RecordCopies.plainDispatchCount(m, copy);
        long total = RecordCopies.plainKernelNsTotal(m, copy);
        long max = RecordCopies.plainKernelNsMax(m, copy);
        long bytes = RecordCopies.plainBytesTotal(m, copy);
        return RecordRules.isSound(count, total, max, bytes) ? new RegionRecord(name, count, total, max, bytes) : null;
    }

    private static long counter(MemorySegment m, long offset) {
        long value = m.get(Layouts.U64, offset);
        return value < 0 ? 0 : value; // §5 step 5: a top bit set reads as 0
    }
}
