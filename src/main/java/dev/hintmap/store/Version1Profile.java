package dev.hintmap.store;

import dev.hintmap.RegionRecord;
import java.util.List;

/**
 * What a hint file of format version 1 holds, read by {@link Version1Reader#read} so that
 * {@code hintmap upgrade} can write it again as version 2 (FORMAT.md §12). Not API: the command
 * line tool, in the same module, is its only user (docs/DESIGN.md §1).
 *
 * @param capacity the file's capacity
 * @param maxNameBytes the file's longest accepted name
 * @param hotThresholdNs the file's hot threshold
 * @param createdEpochMs when the version-1 file was created
 * @param regions every sound region (§8 step 2c), in slot order, each name once
 * @param unsoundSlots used slots that held no sound region (damaged, or left by a crash), not carried over
 * @param liveWriterPids processes still attached to the file as writers: running, and mapping this very
 *     file (FORMAT.md §6.3; converting now would lose what they record next)
 * @param evictions the file's {@code evictions} counter (a version-2 file starts its own at 0)
 * @param recoveries the file's {@code recoveries} counter
 * @param droppedInserts the file's {@code dropped_inserts} counter
 * @param stolenLocks the file's {@code stolen_locks} counter
 */
public record Version1Profile(int capacity, int maxNameBytes, long hotThresholdNs, long createdEpochMs,
        List<RegionRecord> regions, int unsoundSlots, List<Long> liveWriterPids,
        long evictions, long recoveries, long droppedInserts, long stolenLocks) {

    /** Copies the lists. */
    public Version1Profile {
        regions = List.copyOf(regions);
        liveWriterPids = List.copyOf(liveWriterPids);
    }
}
