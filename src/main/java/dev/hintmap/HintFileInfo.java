package dev.hintmap;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * What a hint file's header, coordination words and writer table say (FORMAT.md §3), read in place:
 * the answer of {@code hintmap stat}. Counters are read one by one, each current, not one atomic
 * cut.
 *
 * @param file the file, or null for an in-memory store
 * @param formatVersion the format version ({@link HintFiles#FORMAT_VERSION})
 * @param layoutFingerprint the layout fingerprint (§3.4), equal to this build's
 * @param fileBytes the file's size, bytes
 * @param capacity maximum number of regions
 * @param maxNameBytes longest region name, UTF-8 bytes
 * @param slotBytes bytes per slot
 * @param indexEntries entries of the hash index
 * @param maxProbe longest probe sequence of the index
 * @param hotThresholdNs mean kernel ns at or above which a region is hot
 * @param created creation time of the file
 * @param regions regions held now
 * @param highWater slots ever used
 * @param structuralChanges insertions, evictions and repairs since creation (half of {@code index_seq}):
 *     the file's generation, which moves whenever the set of regions changes
 * @param evictions regions evicted since creation
 * @param recoveries structural changes of crashed writers repaired since creation
 * @param droppedInserts new regions dropped because the index had no room within the probe bound
 * @param stolenLocks locks taken over from dead writers since creation
 * @param changeInterrupted whether a structural change is under way or was left by a crashed writer
 *     (the next insertion repairs it)
 * @param writerAttachments how many times a writer process has attached to the file since creation
 * @param writers the writer processes attached now
 */
public record HintFileInfo(
        Path file, int formatVersion, long layoutFingerprint, long fileBytes,
        int capacity, int maxNameBytes, int slotBytes, int indexEntries, int maxProbe,
        long hotThresholdNs, Instant created,
        int regions, int highWater, long structuralChanges, long evictions, long recoveries,
        long droppedInserts, long stolenLocks, boolean changeInterrupted,
        long writerAttachments, List<Writer> writers) {

    /**
     * Keeps an immutable copy of the writer list; the other components are taken as they are
     * (see the class comment for each).
     *
     * @param writers the writer processes attached now, copied
     * @throws NullPointerException if {@code writers} or one of its elements is null
     */
    public HintFileInfo {
        writers = List.copyOf(writers);
    }

    /**
     * One attached writer process.
     *
     * @param entry its writer-table entry
     * @param pid its process id
     * @param alive whether that process is still running (a dead one's entry is reclaimed by the
     *     next writer that attaches)
     * @param attachments how many writers have held this entry since creation
     */
    public record Writer(int entry, long pid, boolean alive, long attachments) {}
}
