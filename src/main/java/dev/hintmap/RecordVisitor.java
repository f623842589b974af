package dev.hintmap;

/**
 * Receives every region of a scan by {@link HintStore#forEachView(RecordVisitor)}, through one
 * reusable {@link RegionView}, so that a scan allocates nothing per region; a visitor that keeps a
 * region copies it ({@link RegionView#toRecord()}, or {@link HintStore#snapshot()} for them all).
 */
@FunctionalInterface
public interface RecordVisitor {
    /**
     * Called once per region present, on the scanning thread.
     *
     * @param view the region's name and consistent record; valid only until this call returns
     *     (the scan refills the same view for the next region): copy what must outlive it
     *     ({@link RegionView#readInto(MutableRecord)}, {@link RegionView#nameBytes(byte[])},
     *     {@link RegionView#name()}, {@link RegionView#toRecord()})
     */
    void visit(RegionView view);
}
