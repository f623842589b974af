package dev.hintmap;

import dev.hintmap.store.StoreEngine;
import java.util.ArrayList;
import java.util.List;

/**
 * Every region of a store read in <em>one cut</em> (FORMAT.md §7.5, "Every region in one cut"): a
 * scan of the slots between two equal, even loads of {@code index_seq}, so that no structural
 * change overlapped it and the set of regions read is the set the file held at one moment — no
 * region read twice (evicted from one slot and inserted into another behind the scan) and none
 * missed (moved from a slot ahead of the scan into one behind it). Each record is one consistent
 * read of its slot (§7.2.1); records may go on growing during the scan, which is as
 * {@link HintStore#snapshot()} reads them.
 *
 * <p>A scan that a structural change overlapped is thrown away and made again, at most
 * {@link #MAX_SCANS} times; a structural change that stays unfinished (a writer descheduled, or
 * dead inside it until the next insertion recovers it, §8) is waited for, spinning and then
 * yielding, for at most {@link #STALL_NANOS}, the bound of the region count (§7.5). When neither
 * gives a cut (writers inserting new regions without pause), the last scan is the answer, marked
 * as not one cut: a hint, as a count read past its bound is.
 *
 * <p>The C twin is {@code hmi_region_cut} (native-bench/src/hot_set.c).
 */
final class RegionCut {
    /** Scans made before the last one is taken as it is. */
    static final int MAX_SCANS = 64;
    /** Spins on an odd {@code index_seq} before yielding to the writer inside its change. */
    private static final int SPINS = 1024;
    /** How long an odd {@code index_seq} is waited for, all scans together (§7.5's stall bound). */
    static final long STALL_NANOS = 10_000_000L;

    private RegionCut() {}

    /**
     * The regions read, and whether they are one cut.
     *
     * @param regions every region read, in slot order; a name may appear twice only when
     *     {@code consistent} is false or the file is damaged (two slots of one name)
     * @param consistent whether the scan overlapped no structural change
     */
    record Regions(List<RegionRecord> regions, boolean consistent) {}

    /**
     * Reads every region of {@code engine} in one cut when it can (class description); a test can
     * change the file at a chosen point of a scan ({@link TestSeams#afterSlot}).
     */
    static Regions read(StoreEngine engine, RegionView view) {
        long stallDeadline = 0;
        int spins = 0;
        int scans = 0;
        while (true) {
            long v1 = engine.indexSeqAcquire();
            if ((v1 & 1) != 0) { // a structural change is under way: wait for its end
                if (spins++ < SPINS) {
                    Thread.onSpinWait();
                    continue;
                }
                long now = System.nanoTime();
                if (stallDeadline == 0) {
                    stallDeadline = now + STALL_NANOS;
                } else if (now - stallDeadline > 0) {
                    return new Regions(scan(engine, view), false); // stalled: read it as it is
                }
                Thread.yield();
                continue;
            }
            List<RegionRecord> regions = scan(engine, view);
            if (engine.indexSeqStill(v1)) {
                return new Regions(regions, true);
            }
            if (++scans == MAX_SCANS) {
                return new Regions(regions, false);
            }
        }
    }

    /**
     * One pass over the slots used so far. The high-water mark is read after {@code index_seq}:
     * a slot made LIVE by a change that ended before that load was claimed (§7.4 step 3) before
     * the change's release of {@code index_seq}, so the bound covers it.
     */
    private static List<RegionRecord> scan(StoreEngine engine, RegionView view) {
        int slots = engine.highWater();
        List<RegionRecord> regions = new ArrayList<>(Math.min(slots, 1 << 16));
        for (int k = 0; k < slots; k++) {
            if (view.read(engine, k)) {
                regions.add(view.toRecord());
            }
            if (TestSeams.ENABLED) { // a static final false outside tests: C2 folds the call away
                TestSeams.afterSlot(k);
            }
        }
        return regions;
    }
}
