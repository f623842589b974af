package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import java.lang.foreign.MemorySegment;

/**
 * A writer's engine whose critical sections call a {@link HeldLockProbe} with the lock held, then
 * do exactly what production does: each override below runs the probe and calls the production
 * body ({@code super}). Built through the store's {@link EngineBuilder} seam, so the production
 * classes carry no test hook, and a test still reaches every window the hooks reached before.
 */
final class ProbedEngine extends StoreEngine {
    private final HeldLockProbe probe;

    private ProbedEngine(Memory memory, FileGeometry geometry, long hotThresholdNs, boolean rejectLongNames,
            OwnerLock locks, HeldLockProbe probe) {
        super(memory, geometry, hotThresholdNs, rejectLongNames, locks);
        this.probe = probe;
        this.recovery = new Recovery(this, probe);
        this.wholeRecords = new Whole(this, probe);
    }

    /** {@code base} with a writer engine whose critical sections call {@code probe}. */
    static StoreSettings settings(StoreSettings base, HeldLockProbe probe) {
        return base.engineBuilder((memory, geometry, hotThresholdNs, rejectLongNames, writers, owner, token, settings) ->
                new ProbedEngine(memory, geometry, hotThresholdNs, rejectLongNames,
                        new Lock(memory, writers, owner, token, settings, probe), probe));
    }

    @Override
    boolean recordLocked(MemorySegment seg, int k, long gen, long count, long total, long max, long bytes) {
        probe.whileHeld(HeldLockProbe.Section.RECORD_SLOT);
        return super.recordLocked(seg, k, gen, count, total, max, bytes);
    }

    @Override
    boolean insertLocked(MemorySegment seg, EncodedName name, SlotRecord scratch) {
        probe.whileHeld(HeldLockProbe.Section.INSERT_STRUCTURE);
        return super.insertLocked(seg, name, scratch);
    }

    @Override
    boolean victimLocked(MemorySegment seg, int k, int secondChances) {
        probe.whileHeld(HeldLockProbe.Section.VICTIM_SLOT);
        return super.victimLocked(seg, k, secondChances);
    }

    @Override
    boolean slotAssign(MemorySegment seg, int k, EncodedName name, SlotRecord scratch) {
        probe.whileHeld(HeldLockProbe.Section.INSERT_SLOT);
        return super.slotAssign(seg, k, name, scratch);
    }

    /** The lock: the probe right after an acquisition and at the start of a release. */
    private static final class Lock extends OwnerLock {
        private final HeldLockProbe probe;

        Lock(Memory memory, WriterTable writers, long owner, long token, StoreSettings settings, HeldLockProbe probe) {
            super(memory, writers, owner, token, settings);
            this.probe = probe;
        }

        @Override
        boolean acquire(MemorySegment seg, long offset) {
            if (!super.acquire(seg, offset)) {
                return false;
            }
            probe.whileHeld(HeldLockProbe.Section.ACQUIRED); // a throw here leaves the lock just taken behind
            return true;
        }

        @Override
        void release(MemorySegment seg, long offset) {
            probe.whileHeld(HeldLockProbe.Section.RELEASE); // as a StackOverflowError at the release's entry
            super.release(seg, offset);
        }
    }

    /** §8: the probe inside slot frees and between the loads and the re-check of the rebuild's reads. */
    private static final class Recovery extends StoreRecovery {
        private final Runnable rebuildRead;
        private final HeldLockProbe probe;

        Recovery(StoreEngine engine, HeldLockProbe probe) {
            super(engine);
            this.probe = probe;
            this.rebuildRead = () -> probe.whileHeld(HeldLockProbe.Section.REBUILD_READ);
        }

        @Override
        void slotClear(MemorySegment seg, int k) {
            probe.whileHeld(HeldLockProbe.Section.RECOVERY_SLOT);
            super.slotClear(seg, k);
        }

        @Override
        Runnable rebuildReadProbe() {
            return rebuildRead;
        }
    }

    /** §7.6: the probe inside decay's critical section. */
    private static final class Whole extends WholeRecords {
        private final HeldLockProbe probe;

        Whole(StoreEngine engine, HeldLockProbe probe) {
            super(engine);
            this.probe = probe;
        }

        @Override
        Decay decayLocked(MemorySegment seg, int k, double factor) {
            probe.whileHeld(HeldLockProbe.Section.DECAY_SLOT);
            return super.decayLocked(seg, k, factor);
        }
    }
}
