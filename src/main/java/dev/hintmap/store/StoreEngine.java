package dev.hintmap.store;

import dev.hintmap.eviction.ClockHand;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import dev.hintmap.format.RecordRules;
import dev.hintmap.format.RecordScaling;
import dev.hintmap.format.Saturating;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The concurrency protocol of {@code docs/FORMAT.md} §7–§8 over one mapping: recording, the
 * lock-free consistent read, name resolution, insertion with CLOCK eviction, and recovery of a
 * structural change whose writer died.
 *
 * <h2>Design notes</h2>
 * <ol>
 *   <li>A record takes only its slot's lock (one CAS), writes the copy that is not current and
 *       publishes it with one release store of {@code seq}. Readers never wait for a lock: they
 *       validate {@code seq} and {@code gen} around their loads (a seqlock whose writer never
 *       leaves the record half-visible).</li>
 *   <li>A writer killed anywhere leaves the current copy intact, so a lock taken over from a dead
 *       owner needs no repair; at most the sample in flight is lost.</li>
 *   <li>Structural changes (insert, evict) take the structure lock, journal the slot they touch
 *       and make {@code index_seq} odd; a successor that finds either set rebuilds the index
 *       from the slots. That is O(capacity), but only after a crash inside a structural change.</li>
 *   <li>A resolved (slot, gen) pair is re-checked under the slot lock, so a sample is never
 *       counted under a region that replaced the one it was meant for.</li>
 *   <li>Every critical section releases its lock in a {@code finally}: a throwable inside one
 *       (a {@code StackOverflowError} of a caller deep in recursion, an {@code OutOfMemoryError},
 *       the {@code InternalError} of a fault on the mapping) must not leave a lock that a live
 *       process owns, which every writer of every process would wait 5 s for and then drop its
 *       samples until this JVM exits. What the section wrote is safe to abandon: a record's
 *       unpublished copy is never read (§7.2), a structural change left half done keeps its
 *       journal and odd {@code index_seq}, which the next holder of the structure lock recovers
 *       (§8), exactly as after a crash. A throwable out of the release itself (an overflow at its
 *       entry) is counted, and the lock it left behind is freed by {@link LeakedLockSweep}.</li>
 * </ol>
 */
public final class StoreEngine {
    /** Attempts at a consistent slot read before reporting the region absent (§7.2.1). */
    static final int MAX_READ_ATTEMPTS = 1 << 16;
    /** Attempts at an index lookup racing with structural changes before reporting a miss (§7.3). */
    static final int MAX_RESOLVE_ATTEMPTS = 64;
    /**
     * Re-resolutions of a record whose slot was reassigned between lookup and lock before the
     * sample is dropped (§7.1): one is rare, a thousand in a row only happen when another writer
     * keeps rewriting the slot's generation, and that must not hang this one.
     */
    static final int MAX_RECORD_ATTEMPTS = 1024;
    /**
     * Slots a rebuild of the index (§8 step 2) walks between two reports of progress to the leak
     * sweep (LeakedLockSweep). A rebuild is often the first in its process, so interpreted: one was
     * measured at ~275 µs a slot on a loaded 2-core machine, so 1,024 slots would take 0.28 s, a
     * seventh of the structure lock's leak period; 64 take ~18 ms, and the report (one volatile
     * increment) costs nothing beside a slot's name check.
     */
    static final int REBUILD_PROGRESS_SLOTS = 64;
    /** Spins of {@link #size()} before it yields to a writer inside a structural change. */
    private static final int SIZE_SPINS = 1024;
    /** How long {@link #size()} waits for a structural change before it returns the unvalidated count (§7.5). */
    private static final long SIZE_STALL_NANOS = 10_000_000L;

    /** Gives each engine its {@link #id}. */
    private static final AtomicLong IDS = new AtomicLong();

    /**
     * This engine's identity for the thread-local name cache (EncodedNames.CachedName), unique in
     * the JVM and never 0: the cache names a store by it rather than by a reference, so that a
     * closed store does not stay reachable from every thread that recorded into it.
     */
    final long id = IDS.incrementAndGet();
    private final FileGeometry geometry;
    private final Slots slots;
    private final HashIndex index;
    private final OwnerLock locks;
    /** Frees the locks a throwable left behind; counts the throwables. Null for a read-only engine. */
    private final LeakedLockSweep leaks;
    /** Null outside tests ({@link StoreSettings#heldLockProbe}). */
    private final HeldLockProbe probe;
    private final ClockFrames clockFrames = new ClockFrames();
    /** The mapping as a constant the JIT can fold (SegmentConstant); the hot paths read it once. */
    private final SegmentConstant mapping;

    /** Set under the structure lock when the index proved inconsistent with the slots. */
    private boolean needsRebuild;
    /**
     * The lock offset of the victim slot {@link #lockVictim} holds for {@link #recordStructural}, or
     * 0; under the structure lock. A field, not a return value, so that a throwable between the
     * two frames still leaves the lock to recordStructural's {@code finally}.
     */
    private long lockedVictim;
    /** Set by any thread that met an index entry naming no slot: the next structural change rebuilds. */
    private volatile boolean indexSuspect;

    /**
     * @param locks the lock protocol with this writer's owner word, or null for a read-only engine
     * @param probe called inside every critical section, or null (always, outside tests)
     */
    StoreEngine(Memory memory, FileGeometry geometry, OwnerLock locks, HeldLockProbe probe) {
        this.mapping = SegmentConstant.of(memory.segment);
        this.geometry = geometry;
        this.slots = new Slots(geometry);
        this.index = new HashIndex(geometry);
        this.locks = locks;
        this.probe = probe;
        this.leaks = locks == null ? null : locks.attachLeakSweep(slots);
    }

    private void probe(HeldLockProbe.Section section) {
        if (probe != null) {
            probe.whileHeld(section);
        }
    }

    public int capacity() {
        return slots.capacity;
    }

    public int maxNameBytes() {
        return slots.maxNameBytes;
    }

    public FileGeometry geometry() {
        return geometry;
    }

    /**
     * Number of LIVE regions, clamped into range (the word is mutable file content).
     *
     * <p>Read under {@code index_seq} like a lookup (§7.5): a structural change stores
     * {@code live_count} while {@code index_seq} is odd, so a count read between two equal even
     * values of {@code index_seq} agrees with every region a lookup can see. Reading the word
     * alone could count a region before it is visible, or miss one already found (jcstress
     * {@code InsertSizeStress}).
     */
    public int size() {
        MemorySegment seg = mapping.segment();
        long deadline = 0;
        for (int attempt = 0; ; attempt++) {
            long v1 = Memory.acquireLong(seg, Layouts.HDR_INDEX_SEQ);
            long live = Memory.acquireLong(seg, Layouts.HDR_LIVE_COUNT);
            Memory.acquireFence(); // the loads above happen before the re-check below
            if ((v1 & 1) == 0 && Memory.opaqueLong(seg, Layouts.HDR_INDEX_SEQ) == v1) {
                return clampCount(live);
            }
            if (attempt < SIZE_SPINS) {
                Thread.onSpinWait();
                continue;
            }
            // the changing writer is descheduled or dead: yield to it, up to the stall bound
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + SIZE_STALL_NANOS;
            } else if (now - deadline > 0) {
                return clampCount(Memory.acquireLong(seg, Layouts.HDR_LIVE_COUNT)); // a hint, possibly off by one
            }
            Thread.yield();
        }
    }

    private int clampCount(long live) {
        return (int) Math.max(0, Math.min(live, slots.capacity));
    }

    /**
     * {@code index_seq}, acquire: the start of a read that must overlap no structural change
     * (§7.5 "every region in one cut"). Pairs with §7.4 step 11's release, so every slot a change
     * that ended before it made LIVE is visible to the reads after it.
     */
    public long indexSeqAcquire() {
        return Memory.acquireLong(mapping.segment(), Layouts.HDR_INDEX_SEQ);
    }

    /**
     * Whether {@code index_seq} still holds {@code v1} after the caller's reads: an acquire fence
     * orders those reads before the load (§7.5), as {@link #size()} does for its count.
     */
    public boolean indexSeqStill(long v1) {
        Memory.acquireFence(); // the slot reads before this call happen before the re-check below
        return Memory.opaqueLong(mapping.segment(), Layouts.HDR_INDEX_SEQ) == v1;
    }

    /**
     * Slots that were ever used: the iteration bound, {@code high_water} clamped to capacity as an
     * unsigned number (FORMAT §5 step 5, §9.1). A damaged word with the top bit set (2^63, 2^64-1)
     * is above capacity, not below 0: read as signed it made every scan stop at once while
     * lookups still found every region (issue 32 finding 15).
     */
    public int highWater() {
        return slots.usedSlots(Memory.acquireLong(mapping.segment(), Layouts.HDR_HIGH_WATER));
    }

    /** A statistics counter of the header; a value with the top bit set (a damaged file) reads as 0 (§1). */
    public long counter(long offset) {
        return Math.max(0, Memory.acquireLong(mapping.segment(), offset));
    }

    // ------------------------------------------------------------------ reading

    /**
     * Reads slot {@code k} consistently into {@code out} (§7.2.1), with the name copied as the
     * little-endian words the slot stores (§3.3) into {@code nameWords} unless it is null (at least
     * {@code ceil(maxNameBytes / 8)} long; words past the name's last are not written): the scan
     * path of {@code forEach}, a few aligned word loads instead of a byte copy per region.
     *
     * @return the name length when the slot is LIVE, else 0
     */
    public int slotRead(int k, long[] nameWords, SlotRecord out) {
        return slotRead(mapping.segment(), k, null, nameWords, READ_SOUND, out);
    }

    /**
     * As {@link #slotRead(int, long[], SlotRecord)}, with the record as the slot stores it, even one
     * that §7.2.1 rejects: for verify, which reports what is wrong with it.
     */
    int slotReadAsStored(int k, SlotRecord out) {
        return slotRead(mapping.segment(), k, null, null, READ_AS_STORED, out);
    }

    /** {@link #slotRead(MemorySegment, int, EncodedName, long[], int, SlotRecord)}: a sound record or absent (§7.2.1). */
    private static final int READ_SOUND = 0;
    /** As {@link #READ_SOUND}, with a record §7.2.1 rejects returned too (verify). */
    private static final int READ_AS_STORED = 1;
    /** As {@link #READ_SOUND} for the rebuild (§8 step 2c): a read that gave up returns {@link #UNSETTLED}. */
    private static final int READ_REBUILD = 2;
    /** What a {@link #READ_REBUILD} read returns when writers kept publishing for the whole bound. */
    private static final int UNSETTLED = -1;

    /**
     * The one seqlock read of a slot (§7.2.1), as C's {@code hmi_slot_read}, through the segment the
     * operation read once: every access below checks that one value (Memory, docs/PERF-READ.md).
     * The closed arena and a truncated page still fail each access exactly as before.
     *
     * @param name null, or the name the slot must hold (compared as the words it stores)
     * @param nameWords null, or where the name's words go
     * @param mode {@link #READ_SOUND}, {@link #READ_AS_STORED} or {@link #READ_REBUILD}, a constant at
     *     each call site
     * @param out filled only when this returns a length
     * @return the name length when the slot is LIVE (and holds {@code name}); else 0, or, for
     *     {@link #READ_REBUILD}, {@link #UNSETTLED} when no consistent read came within the bound
     */
    private int slotRead(MemorySegment seg, int k, EncodedName name, long[] nameWords, int mode, SlotRecord out) {
        long slot = slots.slot(k);
        for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++) {
            long g1 = Memory.acquireLong(seg, Slots.gen(slot));
            if ((g1 & 1) != 0) {
                return 0; // BUSY: being reassigned right now
            }
            long s1 = Memory.acquireLong(seg, Slots.seq(slot));
            int length = Memory.opaqueInt(seg, Slots.nameLen(slot));
            if (length <= 0 || length > slots.maxNameBytes) {
                Memory.acquireFence();
                if (Memory.opaqueLong(seg, Slots.gen(slot)) == g1) {
                    return 0; // FREE (or damaged: treated as absent)
                }
                continue;
            }
            boolean matches = name == null
                    || (length == name.byteLength && Memory.plainLong(seg, Slots.hash(slot)) == name.hash
                        && nameEquals(seg, slot, name));
            if (matches && nameWords != null) {
                int words = (length + 7) >>> 3;
                for (int i = 0; i < words; i++) {
                    nameWords[i] = Memory.plainLong(seg, Slots.nameWord(slot, i));
                }
            }
            long copy = Slots.copy(slot, s1);
            long count = RecordCopies.plainDispatchCount(seg, copy);
            long total = RecordCopies.plainKernelNsTotal(seg, copy);
            long max = RecordCopies.plainKernelNsMax(seg, copy);
            long bytes = RecordCopies.plainBytesTotal(seg, copy);
            if (mode == READ_REBUILD) {
                probe(HeldLockProbe.Section.REBUILD_READ); // under the structure lock: a test publishes here
            }
            Memory.acquireFence(); // the loads above happen before the re-checks below
            long s2 = Memory.opaqueLong(seg, Slots.seq(slot));
            long g2 = Memory.opaqueLong(seg, Slots.gen(slot));
            if (s1 != s2 || g1 != g2) {
                Thread.onSpinWait();
                continue;
            }
            if (!matches || !(mode == READ_AS_STORED || RecordRules.isSound(count, total, max, bytes))) {
                return 0; // absent, or a record no writer could have produced (damaged file)
            }
            out.set(k, g1, count, total, max, bytes);
            return length;
        }
        return mode == READ_REBUILD ? UNSETTLED : 0;
    }

    private static boolean nameEquals(MemorySegment seg, long slot, EncodedName name) {
        int words = name.wordCount();
        for (int i = 0; i < words; i++) {
            if (Memory.plainLong(seg, Slots.nameWord(slot, i)) != name.words[i]) {
                return false;
            }
        }
        return true;
    }

    /** Finds the region {@code name} (§7.3) and reads its record into {@code out}. */
    public boolean resolve(EncodedName name, SlotRecord out) {
        if (slots.capacity == 0) {
            return false;
        }
        MemorySegment seg = mapping.segment(); // read once for the probe, the compares and the read
        long hash = name.hash;
        for (int attempt = 0; attempt < MAX_RESOLVE_ATTEMPTS; attempt++) {
            long v1 = Memory.acquireLong(seg, Layouts.HDR_INDEX_SEQ);
            int j = index.home(hash);
            for (int p = 0; p < index.maxProbe; p++) {
                long e = index.entryAcquire(seg, j);
                if (e == 0) {
                    break;
                }
                if (HashIndex.matches(e, HashIndex.probeKey(hash, p))) {
                    long k = HashIndex.slotOf(e);
                    if (k < 0 || k >= slots.capacity) {
                        indexSuspect = true; // damaged file: repaired under the structure lock
                    } else if (slotRead(seg, (int) k, name, null, READ_SOUND, out) > 0) {
                        return true;
                    }
                }
                j = (j + 1) & index.mask;
            }
            Memory.acquireFence();
            if ((v1 & 1) == 0 && Memory.opaqueLong(seg, Layouts.HDR_INDEX_SEQ) == v1) {
                return false;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    // ------------------------------------------------------------------ handle reads (§7.2.2)

    /**
     * What {@link #slotReadAt} returns when slot {@code k}'s generation is no longer the handle's: the
     * slot was reassigned (or is being), so the caller resolves the name again (§7.3).
     */
    public static final long STALE = -1;
    /** {@link #slotReadAt}'s answer: the dispatch count, {@code >= 1}. */
    public static final int ANSWER_COUNT = 0;
    /** {@link #slotReadAt}'s answer: the mean kernel time ({@link RecordRules#mean}). */
    public static final int ANSWER_MEAN = 1;
    /** {@link #slotReadAt}'s answer: 1 when hot ({@link RecordRules#isHot}), else 0. */
    public static final int ANSWER_HOT = 2;
    /** {@link #slotReadAt}'s answer: 1 with the whole record in {@code out}. */
    public static final int ANSWER_RECORD = 3;

    /**
     * Reads the region a handle {@code (k, gen)} resolved, without a name compare (§7.2.2):
     * §7.2.1's loop with the handle's generation in place of the name (a slot's name changes only
     * while its {@code gen} is odd, so an unchanged even {@code gen} proves the slot still holds
     * the name the handle matched). Every answer reads the whole copy and needs it sound, as
     * §7.2.1, so that the queries agree on whether a region is present. Callers pass a constant
     * {@code answer}, so each inlined copy keeps only its own branch.
     *
     * @param k a slot that a consistent read (§7.2.1, §7.3) or a record of the region's name returned
     * @param gen the generation that read or record returned with {@code k}
     * @param answer one of the {@code ANSWER_} constants
     * @param thresholdNs the hot threshold, for {@link #ANSWER_HOT}
     * @param out where {@link #ANSWER_RECORD} puts the record; unused by the other answers
     * @return the answer, 0 when the region reads as absent, or {@link #STALE}
     */
    public long slotReadAt(int k, long gen, int answer, long thresholdNs, SlotRecord out) {
        MemorySegment seg = mapping.segment();
        long slot = slots.slot(k);
        for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++) {
            if (Memory.acquireLong(seg, Slots.gen(slot)) != gen) {
                return STALE; // reassigned, or BUSY being reassigned (odd never equals a handle's even gen)
            }
            long s1 = Memory.acquireLong(seg, Slots.seq(slot));
            long copy = Slots.copy(slot, s1);
            long count = RecordCopies.plainDispatchCount(seg, copy);
            long total = RecordCopies.plainKernelNsTotal(seg, copy);
            long max = RecordCopies.plainKernelNsMax(seg, copy);
            long bytes = RecordCopies.plainBytesTotal(seg, copy);
            Memory.acquireFence(); // the loads above happen before the re-checks below
            long s2 = Memory.opaqueLong(seg, Slots.seq(slot));
            if (Memory.opaqueLong(seg, Slots.gen(slot)) != gen) {
                return STALE;
            }
            if (s1 != s2) {
                Thread.onSpinWait();
                continue;
            }
            // §7.2.2: every answer needs the whole record sound, so that all queries agree on whether
            // the region is present (hot only when readInto finds it: the file fuzzer's check)
            if (!RecordRules.isSound(count, total, max, bytes)) {
                return 0;
            }
            if (answer != ANSWER_RECORD) {
                return SlotRecord.answer(answer, count, total, thresholdNs);
            }
            out.set(k, gen, count, total, max, bytes);
            return 1;
        }
        return 0; // a writer rewriting the slot without pause: absent, as §7.2.1
    }

    // ------------------------------------------------------------------ writing

    /**
     * Records one sample for {@code name}, inserting the region (and evicting one) when it is
     * absent. On return {@code scratch.slot}/{@code gen} name the slot recorded into, or slot is
     * -1 when the region could not be inserted (probe bound, §7.4 step 10).
     */
    public void record(EncodedName name, long kernelNs, long bytes, SlotRecord scratch) {
        add(name, 1, kernelNs, kernelNs, bytes, scratch);
    }

    /**
     * Adds a whole record to {@code name}: {@code count} dispatches with the given sums and
     * maximum (a sample is the record {@code (1, ns, ns, bytes)}). Counts and sums add with
     * saturation, the maximum is the larger one; an absent region is inserted with exactly this
     * record. The caller guarantees the record's invariants (§7.2.1). Where it went is reported as
     * for {@link #record}.
     */
    public void add(EncodedName name, long count, long total, long max, long bytes, SlotRecord scratch) {
        leaks.sweepIfNeeded();
        try {
            for (int attempt = 0; attempt < MAX_RECORD_ATTEMPTS; attempt++) {
                if (resolve(name, scratch)) {
                    if (slotRecord(scratch.slot, scratch.gen, count, total, max, bytes)) {
                        return;
                    }
                    continue; // evicted between lookup and lock: resolve again
                }
                scratch.setRecord(count, total, max, bytes); // carries the region's first record to slotAssign
                if (recordStructural(name, scratch)) {
                    return;
                }
                // present after all (another writer inserted it): scratch names it, record as usual
                if (slotRecord(scratch.slot, scratch.gen, count, total, max, bytes)) {
                    return;
                }
            }
            scratch.slot = -1; // the slot was reassigned under every attempt: only a hostile writer does that (§7.1)
        } catch (Throwable e) {
            leaks.throwables++; // a field increment, no call: it may have left a lock behind (LeakedLockSweep)
            throw e;
        }
    }

    /**
     * Records one sample into slot {@code k} if it still has generation {@code gen} (§7.1).
     *
     * @return false when the slot was reassigned since it was resolved; true when the sample was
     *     recorded, or dropped because a live holder kept the slot lock past the wait limit (§6.2)
     */
    public boolean recordInto(int k, long gen, long kernelNs, long bytes) {
        leaks.sweepIfNeeded();
        try {
            return slotRecord(k, gen, 1, kernelNs, kernelNs, bytes);
        } catch (Throwable e) {
            leaks.throwables++; // as in add
            throw e;
        }
    }

    /** §7.1 with a whole record instead of one sample; false when the slot was reassigned. */
    private boolean slotRecord(int k, long gen, long count, long total, long max, long bytes) {
        MemorySegment seg = mapping.segment(); // read once: every access below checks this value (Memory)
        long slot = slots.slot(k);
        long lock = Slots.lock(slot);
        boolean held = false;
        try {
            held = locks.acquire(seg, lock); // from here on, a throwable anywhere still releases it
            if (!held) {
                return true; // gave up (§6.2): nothing changed, the sample is dropped
            }
            if (Memory.plainLong(seg, Slots.gen(slot)) != gen) {
                return false;
            }
            probe(HeldLockProbe.Section.RECORD_SLOT);
            long seq = Memory.plainLong(seg, Slots.seq(slot)); // plain: only the slot lock's holder stores seq
            long current = Slots.copy(slot, seq);
            copyPublish(seg, slot, seq,
                    Saturating.add(RecordCopies.plainDispatchCount(seg, current), count),
                    Saturating.add(RecordCopies.plainKernelNsTotal(seg, current), total),
                    Saturating.max(RecordCopies.plainKernelNsMax(seg, current), max),
                    Saturating.add(RecordCopies.plainBytesTotal(seg, current), bytes));
            long ref = slots.ref(k);
            if (Memory.opaqueByte(seg, ref) == 0) { // test first: a hot region's byte stays a shared line (§3.9)
                Memory.plainByte(seg, ref, (byte) 1); // racing with the hand only ages the region
            }
            return true;
        } finally {
            if (held) {
                // on every exit: a throwable above drops this one sample, nothing more
                locks.release(seg, lock);
            }
        }
    }

    /**
     * §7.1's publish, the one way a LIVE slot's record changes (record, add and decay all end here;
     * C's {@code copy_publish}): with the slot lock held and {@code seq} the value this holder read,
     * a release fence, the four plain stores of the copy that is not current, then the release
     * store of {@code seq + 1} that makes it current.
     *
     * <p>The fence comes before any store into the copy (FORMAT §1, §7.1): it orders the {@code seq}
     * the previous holder published, which this holder saw on taking the lock, before those stores,
     * so a reader (§7.2.1) whose load sees one of them re-reads at least that {@code seq} after its
     * acquire fence, and retries, under the C11 model too. Free on x86-64 (a compiler barrier), one
     * {@code dmb ish} on AArch64. Readers see the old record or the new one, never a mix; a writer
     * killed inside leaves the old one current (§7.2).
     */
    private static void copyPublish(MemorySegment seg, long slot, long seq, long count, long total, long max,
            long bytes) {
        Memory.releaseFence();
        RecordCopies.plainWrite(seg, Slots.copy(slot, seq + 1), count, total, max, bytes);
        Memory.releaseLong(seg, Slots.seq(slot), seq + 1); // publishes the copy written above
    }

    /**
     * Scales the record of slot {@code k}, if it is LIVE, by {@code factor} in {@code (0, 1]}
     * under its slot lock (§7.1's publish, so readers see the old or the new record, never a
     * mix), as {@link dev.hintmap.RegionRecord#scaled} does (FORMAT.md §7.6). Allocates nothing
     * (RecordScaling): other processes' writers spin on the lock it holds. The reference byte is
     * left alone: ageing is not a use.
     *
     * @return {@link Decay#AGED} when the slot held a region and it was aged, {@link Decay#NOT_LIVE}
     *     when it held none (or a damaged record), {@link Decay#LOCK_HELD} when a live holder kept
     *     its lock past the wait limit (§6.2) and nothing was looked at: the caller reads the slot
     *     lock-free to learn whether a region was skipped
     */
    public Decay decaySlot(int k, double factor) {
        leaks.sweepIfNeeded();
        try {
            MemorySegment seg = mapping.segment();
            long slot = slots.slot(k);
            long lock = Slots.lock(slot);
            boolean held = false;
            try {
                held = locks.acquire(seg, lock); // from here on, a throwable anywhere still releases it
                if (!held) {
                    return Decay.LOCK_HELD; // a live holder kept it past the wait limit (§6.2): not aged
                }
                long gen = Memory.plainLong(seg, Slots.gen(slot));
                int length = Memory.plainInt(seg, Slots.nameLen(slot));
                if ((gen & 1) != 0 || length <= 0 || length > slots.maxNameBytes) {
                    return Decay.NOT_LIVE;
                }
                probe(HeldLockProbe.Section.DECAY_SLOT);
                long seq = Memory.plainLong(seg, Slots.seq(slot));
                long current = Slots.copy(slot, seq);
                long count = RecordCopies.plainDispatchCount(seg, current);
                long total = RecordCopies.plainKernelNsTotal(seg, current);
                long max = RecordCopies.plainKernelNsMax(seg, current);
                long bytes = RecordCopies.plainBytesTotal(seg, current);
                if (!RecordRules.isSound(count, total, max, bytes)) {
                    return Decay.NOT_LIVE; // damaged: readers treat it as absent, ageing it would not help
                }
                if (factor != 1) { // f = 1 leaves the record exactly as it is (§7.6), not rounded through a double
                    long agedCount = RecordScaling.count(count, factor);
                    total = RecordScaling.scale(total, agedCount, count); // floor(total * count' / count), exact
                    bytes = RecordScaling.scale(bytes, agedCount, count);
                    max = Math.min(max, total);
                    count = agedCount;
                }
                copyPublish(seg, slot, seq, count, total, max, bytes); // §7.1's publish: old or new record, never a mix
                return Decay.AGED;
            } finally {
                if (held) {
                    locks.release(seg, lock);
                }
            }
        } catch (Throwable e) {
            leaks.throwables++; // as in add
            throw e;
        }
    }

    /** What {@link #decaySlot} did with one slot. */
    public enum Decay { AGED, NOT_LIVE, LOCK_HELD }

    /**
     * Insert path (§7.4) under the structure lock.
     *
     * @param scratch on entry, the record the region is inserted with; on return, where it went
     * @return true when the sample was inserted (or dropped); false when the name turned out to
     *     be present, with {@code scratch.slot}/{@code gen} naming it: the caller records there
     *     after the structure lock is released
     */
    private boolean recordStructural(EncodedName name, SlotRecord scratch) {
        MemorySegment seg = mapping.segment();
        boolean held = false;
        try {
            held = locks.acquire(seg, Layouts.HDR_STRUCT_LOCK); // from here on, a throwable anywhere still releases it
            if (!held) {
                scratch.slot = -1; // gave up on a live holder (§6.2): dropped, nothing changed
                return true;
            }
            probe(HeldLockProbe.Section.INSERT_STRUCTURE);
            if ((needsRecovery() || indexSuspect) && !recover()) {
                scratch.slot = -1; // recovery gave up on a slot lock: the next holder recovers
                return true;
            }
            int found = resolveLocked(name);
            if (found >= 0) {
                scratch.slot = found;
                scratch.gen = Memory.plainLong(seg, Slots.gen(slots.slot(found)));
                return false;
            }
            if (!index.hasRoom(seg, name.hash)) {
                // No entry within the probe bound: drop the sample without evicting anyone (§7.4 step 3).
                Memory.releaseAddLong(seg, Layouts.HDR_DROPPED_INSERTS, 1);
                scratch.slot = -1;
                return true;
            }
            try {
                int k = lockVictim(); // when it returns the victim locked, lockedVictim names its lock
                if (k < 0) {
                    scratch.slot = -1; // the victim's lock is held by a live process: dropped, nothing changed
                    return true;
                }
                probe(HeldLockProbe.Section.INSERT_SLOT);
                slotAssign(k, name, scratch);
            } finally {
                long victimLock = lockedVictim;
                if (victimLock != 0) {
                    lockedVictim = 0; // before the release: a release that throws leaves the lock to the sweep
                    locks.release(seg, victimLock);
                }
            }
            // §7.4 step 8: the index proved inconsistent; rebuilt now that the slot lock is released.
            // The sample counts as inserted only if the rebuild finished and kept the new region where it was put.
            if (needsRebuild && (!indexRebuild() || resolveLocked(name) != scratch.slot)) {
                scratch.slot = -1; // a rebuild that gave up (§6.2) leaves index_seq odd for the next holder
            }
            return true;
        } finally {
            // On an exception the journal and index_seq stay as they are: the next holder recovers.
            if (held) {
                locks.release(seg, Layouts.HDR_STRUCT_LOCK);
            }
        }
    }

    /**
     * Steps 3–4 of §7.4: chooses a slot by CLOCK and takes its lock (waiting for a record in
     * flight into it, stealing from a dead holder). The choice read the victim's reference bit
     * without its lock; a record that completed before we got the lock has set the bit again, and
     * evicting the region now would not be the CLOCK choice of any order of the two operations
     * (Lincheck {@code StoreLinearizabilityTest}, jcstress {@code ClockChoiceStress}). So the bit
     * is re-checked under the lock: if set, the region gets its second chance (bit cleared, lock
     * released) and the hand moves on, at most {@code capacity} times.
     *
     * <p>A busy victim is waited for, not passed over: passing over it would let an eviction
     * depend on a record that readers cannot see yet, which no order of the operations explains
     * (Lincheck {@code StoreLinearizabilityTest}).
     *
     * @return the slot, locked; -1 when a live holder kept its lock past the wait limit (§6.2)
     */
    private int lockVictim() {
        MemorySegment seg = mapping.segment();
        long hand = Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND);
        long highWater = Memory.plainLong(seg, Layouts.HDR_HIGH_WATER);
        for (int secondChances = 0; ; secondChances++) {
            int k = ClockHand.choose(clockFrames);
            long slot = slots.slot(k);
            long lock = Slots.lock(slot);
            boolean held = false;
            boolean chosen = false;
            try {
                held = locks.acquire(seg, lock); // from here on, a throwable anywhere still releases it
                if (!held) {
                    // §6.2 give up: put the hand and high_water back (the bits it cleared only aged regions)
                    Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND, hand);
                    Memory.releaseLong(seg, Layouts.HDR_HIGH_WATER, highWater);
                    return -1;
                }
                lockedVictim = lock; // once chosen, the caller's finally releases it
                probe(HeldLockProbe.Section.VICTIM_SLOT);
                if (secondChances >= slots.capacity || Memory.plainInt(seg, Slots.nameLen(slot)) == 0
                        || Memory.opaqueByte(seg, slots.ref(k)) == 0) {
                    chosen = true;
                    return k; // returned locked: the caller releases lockedVictim
                }
                Memory.plainByte(seg, slots.ref(k), (byte) 0); // recorded since the hand looked: second chance
            } finally {
                if (held && !chosen) {
                    // second chance, or a throwable before the choice
                    lockedVictim = 0;
                    locks.release(seg, lock);
                }
            }
        }
    }

    /** Exact lookup under the structure lock: names and the index cannot change meanwhile. */
    private int resolveLocked(EncodedName name) {
        MemorySegment seg = mapping.segment();
        int j = index.home(name.hash);
        for (int p = 0; p < index.maxProbe; p++) {
            long e = index.entryLocked(seg, j);
            if (e == 0) {
                return -1;
            }
            long k = HashIndex.slotOf(e);
            if (k < 0 || k >= slots.capacity) {
                indexSuspect = true;
            } else if (HashIndex.matches(e, HashIndex.probeKey(name.hash, p))) {
                long slot = slots.slot((int) k);
                if (Memory.plainInt(seg, Slots.nameLen(slot)) == name.byteLength
                        && Memory.plainLong(seg, Slots.hash(slot)) == name.hash && nameEquals(seg, slot, name)
                        && (Memory.plainLong(seg, Slots.gen(slot)) & 1) == 0) {
                    return (int) k;
                }
            }
            j = (j + 1) & index.mask;
        }
        return -1;
    }

    /**
     * Steps 5–11 of §7.4: gives slot {@code k}, whose lock the caller holds, to {@code name} with
     * its first record, {@code scratch}'s, and sets {@code scratch.slot}/{@code gen} to where it
     * went (slot -1 when the index had no room). Each access names its memory mode and why, as C's {@code slot_assign}
     * does; the structure lock and the slot lock are held throughout, so this thread's plain
     * loads read what it (or the previous holder, ordered by the lock's acquire) stored.
     */
    private void slotAssign(int k, EncodedName name, SlotRecord scratch) {
        needsRebuild = false; // this change's own finding only: a throwable may have left an earlier one set
        MemorySegment seg = mapping.segment();
        long slot = slots.slot(k); // its lock is held (lockVictim)
        // 5: opaque (C relaxed), as FORMAT §3.2 says: only a later struct_lock holder acts on it,
        // ordered by the lock; the fence orders it before the odd index_seq of step 6
        Memory.opaqueLong(seg, Layouts.HDR_JOURNAL_SLOT, k + 1L);
        Memory.storeStoreFence();
        long indexSeq = Memory.plainLong(seg, Layouts.HDR_INDEX_SEQ); // plain: only the struct_lock holder stores it
        Memory.opaqueLong(seg, Layouts.HDR_INDEX_SEQ, indexSeq + 1); // 6: opaque, odd; lock-free readers load it
        Memory.storeStoreFence(); // readers see index_seq odd before any index entry changes
        long busy = Memory.plainLong(seg, Slots.gen(slot)) | 1; // odd even if a damaged file left it odd
        Memory.opaqueLong(seg, Slots.gen(slot), busy); // 7: opaque, BUSY; readers load gen lock-free
        Memory.storeStoreFence(); // readers see BUSY before any field of the new region
        long live = Memory.plainLong(seg, Layouts.HDR_LIVE_COUNT); // plain: only the struct_lock holder stores it
        int oldLength = Memory.plainInt(seg, Slots.nameLen(slot)); // plain: the slot lock's holder wrote it last
        if (oldLength != 0) { // 8: the slot had a name (gen is odd by now): its entry goes
            if (!index.delete(seg, Memory.plainLong(seg, Slots.hash(slot)), k)) {
                needsRebuild = true; // no such entry, or a damaged one (damaged file): rebuild after step 11
            }
            live = live > 0 ? live - 1 : 0; // §7.4 step 8: never below 0, as C's
            Memory.releaseAddLong(seg, Layouts.HDR_EVICTIONS, 1); // the struct_lock holder's counter: plain load, release store
        }
        // 9: plain: gen is odd, so readers discard what they read here; the release of gen in step 11 publishes it
        Memory.plainLong(seg, Slots.hash(slot), name.hash);
        Memory.plainInt(seg, Slots.nameLen(slot), name.byteLength);
        int words = name.wordCount();
        for (int i = 0; i < slots.nameAreaWords; i++) {
            Memory.plainLong(seg, Slots.nameWord(slot, i), i < words ? name.words[i] : 0L);
        }
        long seq = Memory.plainLong(seg, Slots.seq(slot)); // plain: only the slot lock's holder stores seq
        RecordCopies.plainWrite(seg, Slots.copy(slot, seq), 0, 0, 0, 0); // plain, published by step 11 as above
        RecordCopies.plainWrite(seg, Slots.copy(slot, seq + 1), scratch.dispatchCount, scratch.kernelNsTotal,
                scratch.kernelNsMax, scratch.bytesTotal);
        Memory.plainLong(seg, Slots.seq(slot), seq + 1); // plain: gen's release in step 11 publishes it with the copies
        // opaque: the CLOCK hand clears it without the slot lock; a first sample is no second reference (FORMAT.md §10)
        Memory.plainByte(seg, slots.ref(k), (byte) 0);
        if (index.insert(seg, name.hash, k)) { // 10
            live++;
            scratch.slot = k;
            scratch.gen = busy + 1;
        } else {
            clearName(slot); // plain, as step 9: the slot becomes FREE
            RecordCopies.plainWrite(seg, Slots.copy(slot, seq + 1), 0, 0, 0, 0); // and holds no record, as §8 step 1 leaves one
            Memory.releaseAddLong(seg, Layouts.HDR_DROPPED_INSERTS, 1); // as evictions above
            Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND, k); // plain: only struct_lock holders use the hand; reuse the free slot
            scratch.slot = -1;
        }
        Memory.releaseLong(seg, Layouts.HDR_LIVE_COUNT, live); // release, while index_seq is odd (§7.5)
        Memory.releaseLong(seg, Slots.gen(slot), busy + 1); // 11: release: even, publishes the slot
        if (!needsRebuild) {
            // release: even, index stable; a pending rebuild keeps it odd until the rebuild ends, so a
            // death before then leaves the §8 trigger (odd index_seq) and lookups never trust the gap
            Memory.releaseLong(seg, Layouts.HDR_INDEX_SEQ, indexSeq + 2);
        }
        Memory.releaseLong(seg, Layouts.HDR_JOURNAL_SLOT, 0L); // release: change complete (§3.2, as C)
    }

    private void clearName(long slot) {
        MemorySegment seg = mapping.segment();
        Memory.plainInt(seg, Slots.nameLen(slot), 0);
        Memory.plainLong(seg, Slots.hash(slot), 0L);
        for (int i = 0; i < slots.nameAreaWords; i++) {
            Memory.plainLong(seg, Slots.nameWord(slot, i), 0L);
        }
    }

    // ------------------------------------------------------------------ recovery (§8)

    /** §8: a dead writer left a structural change unfinished, or a coordination word is out of range. */
    private boolean needsRecovery() {
        MemorySegment seg = mapping.segment();
        long capacity = slots.capacity;
        return Memory.plainLong(seg, Layouts.HDR_JOURNAL_SLOT) != 0
                || (Memory.plainLong(seg, Layouts.HDR_INDEX_SEQ) & 1) != 0
                || Long.compareUnsigned(Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND), capacity) >= 0
                || Long.compareUnsigned(Memory.plainLong(seg, Layouts.HDR_HIGH_WATER), capacity) > 0
                || Long.compareUnsigned(Memory.plainLong(seg, Layouts.HDR_LIVE_COUNT), capacity) > 0;
    }

    /**
     * Repairs a structural change that a dead writer left unfinished; structure lock held.
     *
     * @return false when it gave up on a slot lock held by a live process (§6.2): the journal and
     *     {@code index_seq} are left as they are, for the next holder of the structure lock
     */
    boolean recover() {
        MemorySegment seg = mapping.segment();
        long journal = Memory.plainLong(seg, Layouts.HDR_JOURNAL_SLOT);
        // §8 step 1: only a journaled slot left BUSY is half-changed. One whose gen is even is the
        // untouched victim (a death before step 7) or the complete new region (after step 11's
        // gen): freeing it would lose completed records and shrink the region count while
        // index_seq is even; step 2 keeps it if sound.
        // Plain: gen changes only under the slot lock, which the dead writer held.
        if (journal > 0 && journal <= slots.capacity
                && (Memory.plainLong(seg, Slots.gen(slots.slot((int) (journal - 1)))) & 1) != 0
                && !slotFree((int) (journal - 1))) {
            return false;
        }
        if (!indexRebuild()) {
            return false;
        }
        Memory.releaseLong(seg, Layouts.HDR_JOURNAL_SLOT, 0L);
        Memory.releaseAddLong(seg, Layouts.HDR_RECOVERIES, 1);
        return true;
    }

    /** Frees slot {@code k} under its lock; false when the lock's live holder kept it (§6.2). */
    private boolean slotFree(int k) {
        MemorySegment seg = mapping.segment();
        long slot = slots.slot(k);
        long lock = Slots.lock(slot);
        boolean held = false;
        try {
            held = locks.acquire(seg, lock); // from here on, a throwable anywhere still releases it
            if (!held) {
                return false;
            }
            probe(HeldLockProbe.Section.RECOVERY_SLOT);
            slotClear(k, slot);
        } finally {
            if (held) {
                locks.release(seg, lock);
            }
        }
        return true;
    }

    private void slotClear(int k, long slot) {
        MemorySegment seg = mapping.segment();
        long gen = Memory.plainLong(seg, Slots.gen(slot));
        long busy = gen | 1;
        Memory.opaqueLong(seg, Slots.gen(slot), busy);
        Memory.storeStoreFence();
        clearName(slot);
        long seq = Memory.plainLong(seg, Slots.seq(slot));
        RecordCopies.plainWrite(seg, Slots.copy(slot, seq), 0, 0, 0, 0);
        RecordCopies.plainWrite(seg, Slots.copy(slot, seq + 1), 0, 0, 0, 0);
        Memory.plainByte(seg, slots.ref(k), (byte) 0);
        Memory.releaseLong(seg, Slots.gen(slot), busy + 1);
        Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND, k); // the next insertion takes the free slot, not a live region
    }

    /** §8 step 2; false when it gave up on a slot lock, leaving {@code index_seq} odd for the next holder. */
    private boolean indexRebuild() {
        MemorySegment seg = mapping.segment();
        long indexSeq = Memory.plainLong(seg, Layouts.HDR_INDEX_SEQ) | 1;
        Memory.opaqueLong(seg, Layouts.HDR_INDEX_SEQ, indexSeq);
        Memory.storeStoreFence();
        index.clear(seg);
        long storedHighWater = Memory.plainLong(seg, Layouts.HDR_HIGH_WATER);
        long highWater = Long.compareUnsigned(storedHighWater, slots.capacity) > 0 ? slots.capacity : storedHighWater;
        Memory.plainLong(seg, Layouts.HDR_HIGH_WATER, highWater);
        if (Long.compareUnsigned(Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND), Math.max(1, slots.capacity)) >= 0) {
            Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND, 0L);
        }
        long live = 0;
        EncodedName stored = new EncodedName(); // recovery only: allocation is fine here
        SlotRecord record = new SlotRecord();
        SlotSoundness.Kept indexed = new SlotSoundness.Kept() { // the slots kept so far are the index rebuilt so far
            @Override
            public int slotOf(EncodedName name) {
                return resolveLocked(name);
            }

            @Override
            public boolean keep(EncodedName name, int k) {
                return index.insert(seg, name.hash, k);
            }
        };
        for (int k = 0; k < highWater; k++) {
            if ((k & (REBUILD_PROGRESS_SLOTS - 1)) == REBUILD_PROGRESS_SLOTS - 1) {
                locks.structureProgress(); // a long rebuild is alive, not a leaked lock (LeakedLockSweep)
            }
            long slot = slots.slot(k);
            int length = Memory.plainInt(seg, Slots.nameLen(slot));
            long gen = Memory.plainLong(seg, Slots.gen(slot));
            if (length == 0 && (gen & 1) == 0) {
                continue; // FREE
            }
            // Sound (SlotSoundness, §8 step 2c): the rule verify's LIVE count uses, so a repaired file verifies clean.
            // A record that writers kept republishing for the whole read bound (UNSETTLED) is not known
            // to be unsound: the region is kept, not destroyed for a hint that was only missing (§8 2c).
            boolean sound = (gen & 1) == 0
                    && SlotSoundness.nameSound(seg, slots, slot, length, stored, SlotSoundness.IGNORED)
                    && slotRead(seg, k, null, null, READ_REBUILD, record) != 0 // sound, or not known to be unsound
                    && SlotSoundness.keptFirst(indexed, stored, k, SlotSoundness.IGNORED); // a later duplicate, or no room: freed
            if (sound) {
                live++;
            } else if (!slotFree(k)) {
                return false;
            }
        }
        Memory.releaseLong(seg, Layouts.HDR_LIVE_COUNT, live);
        Memory.releaseLong(seg, Layouts.HDR_INDEX_SEQ, indexSeq + 1);
        needsRebuild = false;
        indexSuspect = false;
        return true;
    }

    // ------------------------------------------------------------------ CLOCK over the mapping

    private final class ClockFrames implements ClockHand.Frames {
        @Override
        public int capacity() {
            return slots.capacity;
        }

        @Override
        public long highWater() {
            return Memory.plainLong(mapping.segment(), Layouts.HDR_HIGH_WATER);
        }

        @Override
        public void highWater(long value) {
            Memory.releaseLong(mapping.segment(), Layouts.HDR_HIGH_WATER, value);
        }

        @Override
        public long hand() {
            return Memory.plainLong(mapping.segment(), Layouts.HDR_CLOCK_HAND);
        }

        @Override
        public void hand(long value) {
            Memory.plainLong(mapping.segment(), Layouts.HDR_CLOCK_HAND, value);
        }

        @Override
        public boolean clearReferenced(int slot) {
            MemorySegment seg = mapping.segment();
            long offset = slots.ref(slot);
            if (Memory.opaqueByte(seg, offset) == 0) {
                return false;
            }
            Memory.plainByte(seg, offset, (byte) 0);
            return true;
        }
    }
}
