package dev.hintmap.store;

import dev.hintmap.RegionRecord;
import java.util.List;

/**
 * What a hint file of an earlier format version holds, read by {@link OldVersionReader#read} so
 * that {@code hintmap upgrade} can write it again in the current version (FORMAT.md §12). Not API:
 * the command line tool, in the same module, is its only user (docs/DESIGN.md §1).
 *
 * @param formatVersion the file's format version: 1 or 2, or the current one (then nothing was
 *     read: {@code regions} is empty and there is nothing to convert)
 * @param capacity the file's capacity
 * @param maxNameBytes the file's longest name stored whole (a version-2 file may have less than
 *     today's minimum, 33)
 * @param hotThresholdNs the file's hot threshold
 * @param createdEpochMs when the file was created
 * @param regions every sound region (§8 step 2c), in slot order, each name once, each under the
 *     name the file stores it by
 * @param unsoundSlots used slots that held no sound region (damaged, or left by a crash), not carried over
 * @param shortenedNames regions whose name has the form version 2 gave a name over its
 *     {@code max_name_bytes} (a prefix, {@code '~'} and 16 hex digits of hm64): their whole name is
 *     not in the file, so they keep that name, and the whole name finds a new region in version 3
 * @param liveWriterPids processes still attached to the file as writers: running, and mapping this very
 *     file (FORMAT.md §6.3; converting now would lose what they record next)
 * @param evictions the file's {@code evictions} counter (a converted file starts its own at 0)
 * @param recoveries the file's {@code recoveries} counter
 * @param droppedInserts the file's {@code dropped_inserts} counter
 * @param stolenLocks the file's {@code stolen_locks} counter
 */
public record OldVersionProfile(int formatVersion, int capacity, int maxNameBytes, long hotThresholdNs,
        long createdEpochMs, List<RegionRecord> regions, int unsoundSlots, int shortenedNames, List<Long> liveWriterPids,
        long evictions, long recoveries, long droppedInserts, long stolenLocks) {

    /** Copies the lists. */
    public OldVersionProfile {
        regions = List.copyOf(regions);
        liveWriterPids = List.copyOf(liveWriterPids);
    }
}
