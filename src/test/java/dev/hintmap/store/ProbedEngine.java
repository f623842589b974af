package dev.hintmap.store;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.TestStores;
import dev.hintmap.format.FileGeometry;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A writer's engine whose critical sections call a {@link HeldLockProbe} with the lock held, then
 * do exactly what production does: each override below runs the probe and calls the production
 * body ({@code super}). Built through the store's {@link EngineBuilder} seam ({@link TestSeams#ENGINE},
 * set around one open), so the production classes carry no test hook, and a test still reaches
 * every window the hooks reached before.
 */
final class ProbedEngine extends StoreEngine {
    private final HeldLockProbe probe;
    /** Whether this thread is in the rebuild's read, whose loads and re-check {@link #betweenLoads} separates. */
    private final ThreadLocal<Boolean> inRebuildRead = ThreadLocal.withInitial(() -> false);

    private ProbedEngine(Memory memory, FileGeometry geometry, long hotThresholdNs, boolean rejectLongNames,
            OwnerLock locks, HeldLockProbe probe) {
        super(memory, geometry, hotThresholdNs, rejectLongNames, locks);
        this.probe = probe;
    }

    /** Opens {@code file} as {@link TestStores#open} does, with a writer engine whose critical sections call {@code probe}. */
    static HintStore open(Path file, HintStoreOptions options, StoreSettings settings, HeldLockProbe probe)
            throws IOException {
        return open(file, options, settings, (memory, geometry, hotThresholdNs, rejectLongNames, writers, owner, token, s) ->
                new ProbedEngine(memory, geometry, hotThresholdNs, rejectLongNames,
                        new Lock(memory, writers, owner, token, s, probe), probe));
    }

    /**
     * Opens {@code file} as {@link TestStores#open} does, with the production engine except for a lock
     * that counts every liveness check of a holder (§6.3) into {@code checks}.
     */
    static HintStore openCountingLivenessChecks(Path file, HintStoreOptions options, StoreSettings settings,
            AtomicLong checks) throws IOException {
        return open(file, options, settings, (memory, geometry, hotThresholdNs, rejectLongNames, writers, owner, token, s) ->
                new StoreEngine(memory, geometry, hotThresholdNs, rejectLongNames, new OwnerLock(memory, writers, owner, token, s) {
                    @Override
                    boolean holderDead(long holder) {
                        checks.incrementAndGet();
                        return super.holderDead(holder);
                    }
                }));
    }

    /** Opens {@code file} as {@link TestStores#open} does, with the writer engine {@code builder} builds. */
    private static HintStore open(Path file, HintStoreOptions options, StoreSettings settings, EngineBuilder builder)
            throws IOException {
        if (!TestSeams.ENABLED) {
            throw new IllegalStateException("the store's test seams are off: run with -D" + TestSeams.PROPERTY + "=true");
        }
        TestSeams.ENGINE.set(builder);
        try {
            return TestStores.open(file, options, settings);
        } finally {
            TestSeams.ENGINE.remove();
        }
    }

    @Override
    StoreRecovery newRecovery() {
        return new Recovery(this);
    }

    @Override
    WholeRecords newWholeRecords() {
        return new Whole(this);
    }

    @Override
    int slotReadForRebuild(MemorySegment seg, int k, SlotRecord out) {
        inRebuildRead.set(true);
        try {
            return super.slotReadForRebuild(seg, k, out);
        } finally {
            inRebuildRead.set(false);
        }
    }

    /** §8 step 2c: between the loads and the re-check of the rebuild's reads (only theirs, not a read the probe makes). */
    @Override
    void betweenLoads() {
        if (inRebuildRead.get()) {
            inRebuildRead.set(false);
            try {
                probe.whileHeld(HeldLockProbe.Section.REBUILD_READ);
            } finally {
                inRebuildRead.set(true);
            }
        }
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

    /**
     * §8: the probe inside slot frees. Built by the engine's constructor, before the engine's
     * {@code probe} is set: so it reads that field when a slot is freed, not here.
     */
    private static final class Recovery extends StoreRecovery {
        private final ProbedEngine engine;

        Recovery(ProbedEngine engine) {
            super(engine);
            this.engine = engine;
        }

        @Override
        void slotClear(MemorySegment seg, int k) {
            engine.probe.whileHeld(HeldLockProbe.Section.RECOVERY_SLOT);
            super.slotClear(seg, k);
        }
    }

    /** §7.6: the probe inside decay's critical section (built as {@link Recovery} is). */
    private static final class Whole extends WholeRecords {
        private final ProbedEngine engine;

        Whole(ProbedEngine engine) {
            super(engine);
            this.engine = engine;
        }

        @Override
        Decay decayLocked(MemorySegment seg, int k, double factor) {
            engine.probe.whileHeld(HeldLockProbe.Section.DECAY_SLOT);
            return super.decayLocked(seg, k, factor);
        }
    }
}
