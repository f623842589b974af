package dev.hintmap.store;

import dev.hintmap.eviction.ClockFrames;
import dev.hintmap.eviction.ClockHand;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import dev.hintmap.format.RecordRules;
import dev.hintmap.format.Saturating;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The concurrency protocol of {@code docs/FORMAT.md} §7 over one mapping, in FORMAT's order:
 * recording (§7.1), the lock-free consistent read (§7.2.1) and the handle read (§7.2.2), name
 * resolution (§7.3), insertion with CLOCK eviction (§7.4) and counting (§7.5). Its siblings hold
 * the rest, in the same order: {@link WholeRecords} (§7.6, merge and decay), {@link StoreRecovery}
 * (§8), {@link HeaderCounters} (the statistics of §3.2–§3.3) and {@link ClockFrames} (§7.4 step 3's
 * words). C's {@code store_engine.c} follows the same order.
 *
 * <p>The engine owns its store's constants — {@link #maxNameBytes()} (the file's), the hot
 * threshold (the file's) and the long-name policy (the opener's) — so that a name is encoded and a
 * query answered with them without every caller passing them along.
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
 *   <li>Every critical section has one form: {@code if (!locks.acquire(..)) return ..; try { body }
 *       finally { locks.release(..) }}, its body a method of its own. A throwable inside the body (a
 *       {@code StackOverflowError} of a caller deep in recursion, an {@code OutOfMemoryError}, the
 *       {@code InternalError} of a fault on the mapping) must not leave a lock that a live process
 *       owns, which every writer of every process would wait 5 s for and then drop its samples
 *       until this JVM exits. What the body wrote is safe to abandon: a record's unpublished copy
 *       is never read (§7.2), a structural change left half done keeps its journal and odd
 *       {@code index_seq}, which the next holder of the structure lock recovers (§8), exactly as
 *       after a crash. A throwable out of the acquire after its CAS, or out of the release itself
 *       (an overflow at its entry), is counted by the entry points ({@code leaks.throwables}), and
 *       the lock it left behind is freed by {@link LeakedLockSweep}.</li>
 *   <li>The bodies are package-private methods so that a test can subclass the engine and its
 *       siblings to act inside a critical section (throw, publish, wait) with the lock held, as
 *       C's tests do through {@code HM_TEST_HOOKS}: production code carries no test hook there
 *       ({@link EngineBuilder}, {@link TestSeams}).</li>
 * </ol>
 */
public class StoreEngine {
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
    /** Spins of {@link #size()} before it yields to a writer inside a structural change. */
    private static final int SIZE_SPINS = 1024;
    /** How long {@link #size()} waits for a structural change before it returns the unvalidated count (§7.5). */
    private static final long SIZE_STALL_NANOS = 10_000_000L;
    /**
     * What the read loop returns when writers kept publishing for its whole bound (§7.2.1): absent to
     * a reader, "not known to be unsound" to the rebuild (§8 step 2c).
     */
    static final int UNSETTLED = -1;
    /**
     * What {@link #slotReadAt} returns when slot {@code k}'s generation is no longer the handle's: the
     * slot was reassigned (or is being), so the caller resolves the name again (§7.3).
     */
    public static final long STALE = -1;
    /** {@link #resolveLocked}: absent, and an entry on the way named no slot (a damaged index, §8). */
    static final int MET_NO_SLOT = -2;

    /** Gives each engine its {@link #id}. */
    private static final AtomicLong IDS = new AtomicLong();

    /**
     * This engine's identity for the thread-local name cache (EncodedNames.CachedName), unique in
     * the JVM and never 0: the cache names a store by it rather than by a reference, so that a
     * closed store does not stay reachable from every thread that recorded into it.
     */
    final long id = IDS.incrementAndGet();
    private final FileGeometry geometry;
    final Slots slots;
    final HashIndex index;
    /** The lock protocol with this writer's owner word; null for a read-only engine. */
    final OwnerLock locks;
    /** Frees the locks a throwable left behind; counts the throwables. Null for a read-only engine. */
    final LeakedLockSweep leaks;
    /** The mapping as a constant the JIT can fold (SegmentConstant); the hot paths read it once. */
    final SegmentConstant mapping;
    private final HeaderCounters counters;
    private final ClockFrames clockFrames;
    private final long hotThresholdNs;
    private final boolean rejectLongNames;
    /** §8. */
    final StoreRecovery recovery;
    /** §7.6. */
    final WholeRecords wholeRecords;

    /**
     * The lock offset of the victim slot {@link #lockVictim} holds for {@link #insertLocked}, or 0;
     * under the structure lock. A field, not a return value, so that a throwable between the two
     * frames still leaves the lock to insertLocked's {@code finally}.
     */
    private long lockedVictim;

    /**
     * @param hotThresholdNs the file's hot threshold, which every hot answer uses
     * @param rejectLongNames whether a name over {@code maxNameBytes} is an error rather than stored
     *     in its stored form (the opener's option)
     * @param locks the lock protocol with this writer's owner word, or null for a read-only engine
     */
    StoreEngine(Memory memory, FileGeometry geometry, long hotThresholdNs, boolean rejectLongNames, OwnerLock locks) {
        this.mapping = SegmentConstant.of(memory.segment);
        this.geometry = geometry;
        this.slots = new Slots(geometry);
        this.index = new HashIndex(geometry);
        this.locks = locks;
        this.leaks = locks == null ? null : locks.attachLeakSweep(slots);
        this.counters = new HeaderCounters(mapping);
        this.clockFrames = new ClockFrames(memory.segment, geometry);
        this.hotThresholdNs = hotThresholdNs;
        this.rejectLongNames = rejectLongNames;
        this.recovery = newRecovery();
        this.wholeRecords = newWholeRecords();
    }

    /**
     * This engine's §8 recovery; called once, by the constructor, so a test's engine that returns
     * its subclass here has not set its own fields yet.
     */
    StoreRecovery newRecovery() {
        return new StoreRecovery(this);
    }

    /** This engine's §7.6 whole-record operations; called once, by the constructor (as {@link #newRecovery}). */
    WholeRecords newWholeRecords() {
        return new WholeRecords(this);
    }

    // ------------------------------------------------------------------ the store's constants

    public int capacity() {
        return slots.capacity;
    }

    public int maxNameBytes() {
        return slots.maxNameBytes;
    }

    /** The file's hot threshold: what {@link Answer#HOT} compares the mean with (§7.2.1). */
    public long hotThresholdNs() {
        return hotThresholdNs;
    }

    /** Whether a name longer than {@link #maxNameBytes()} is refused rather than stored shortened (§1.1). */
    public boolean rejectsLongNames() {
        return rejectLongNames;
    }

    public FileGeometry geometry() {
        return geometry;
    }

    /** The header's statistics counters. */
    public HeaderCounters counters() {
        return counters;
    }

    /** Merge and decay (§7.6). */
    public WholeRecords wholeRecords() {
        return wholeRecords;
    }

    // ------------------------------------------------------------------ record (§7.1)

    /**
     * Records one sample for {@code name}, inserting the region (and evicting one) when it is
     * absent. On return {@code scratch.slot}/{@code gen} name the slot recorded into, or slot is
     * -1 when the sample was dropped (probe bound, §7.4 step 10; a lock a live process holds, §6.2).
     */
    public void record(EncodedName name, long kernelNs, long bytes, SlotRecord scratch) {
        record(name, 1, kernelNs, kernelNs, bytes, scratch);
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
            leaks.throwables++; // a field increment, no call: it may have left a lock behind (LeakedLockSweep)
            throw e;
        }
    }

    /**
     * §7.1's loop for a whole record (a sample is {@code (1, ns, ns, bytes)}, §7.6): resolve, record
     * under the slot lock, and re-resolve when the slot was reassigned in between; an absent region
     * is inserted (§7.4) with exactly this record. The caller guarantees the record's invariants.
     */
    void record(EncodedName name, long count, long total, long max, long bytes, SlotRecord scratch) {
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
            leaks.throwables++; // as in recordInto
            throw e;
        }
    }

    /** §7.1 with a whole record; false when the slot was reassigned, true when recorded or given up on (§6.2). */
    private boolean slotRecord(int k, long gen, long count, long total, long max, long bytes) {
        MemorySegment seg = mapping.segment(); // read once: every access below checks this value (Memory)
        long lock = Slots.lock(slots.slot(k));
        if (!locks.acquire(seg, lock)) {
            return true; // gave up (§6.2): nothing changed, the sample is dropped
        }
        try {
            return recordLocked(seg, k, gen, count, total, max, bytes);
        } finally {
            locks.release(seg, lock); // on every exit: a throwable in the body drops this one sample, nothing more
        }
    }

    /** The body of §7.1, slot {@code k}'s lock held: false when its generation is no longer {@code gen}. */
    boolean recordLocked(MemorySegment seg, int k, long gen, long count, long total, long max, long bytes) {
        long slot = slots.slot(k);
        if (Memory.plainLong(seg, Slots.gen(slot)) != gen) {
            return false;
        }
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
    static void copyPublish(MemorySegment seg, long slot, long seq, long count, long total, long max, long bytes) {
        Memory.releaseFence();
        RecordCopies.plainWrite(seg, Slots.copy(slot, seq + 1), count, total, max, bytes);
        Memory.releaseLong(seg, Slots.seq(slot), seq + 1); // publishes the copy written above
    }

    // ------------------------------------------------------------------ consistent read (§7.2.1)

    /**
     * Reads slot {@code k} consistently into {@code out} (§7.2.1), with the name copied as the
     * little-endian words the slot stores (§3.3) into {@code nameWords} unless it is null (at least
     * {@code ceil(maxNameBytes / 8)} long; words past the name's last are not written): the scan
     * path of {@code forEach}, a few aligned word loads instead of a byte copy per region.
     *
     * @return the name length when the slot is LIVE with a sound record, else 0
     */
    public int slotRead(int k, long[] nameWords, SlotRecord out) {
        int length = readLoop(mapping.segment(), k, null, nameWords, out);
        return length > 0 && out.isSound() ? length : 0; // unsound: a damaged file's, read as absent
    }

    /**
     * Verify's read of slot {@code k}: the record as the slot stores it, even one that §7.2.1 rejects,
     * so that verify can say what is wrong with it.
     *
     * @return the name length when the slot is LIVE and a consistent read came within the bound, else 0
     */
    int slotReadAsStored(int k, SlotRecord out) {
        return Math.max(0, readLoop(mapping.segment(), k, null, null, out));
    }

    /**
     * The rebuild's read of slot {@code k} (§8 step 2c), lock-free as every reader's (a test's engine
     * acts between its loads and its re-check: {@link #betweenLoads}).
     *
     * @return the name length with {@code out} as stored, 0 when not LIVE, or {@link #UNSETTLED}
     */
    int slotReadForRebuild(MemorySegment seg, int k, SlotRecord out) {
        return readLoop(seg, k, null, null, out);
    }

    /**
     * Nothing: called between the loads and the re-check of every attempt of a read, and only when
     * {@link TestSeams#ENABLED}, so that a test's engine can publish there during the rebuild's read
     * ({@link #slotReadForRebuild}), as C's {@code rebuild_read_probe}.
     */
    void betweenLoads() {}

    /**
     * The one seqlock read of a slot (§7.2.1), as C's {@code slot_read}, through the segment the
     * operation read once: every access below checks that one value (Memory, docs/archive/PERF-READ.md).
     * The closed arena and a truncated page still fail each access exactly as before. Whether the
     * record is sound is its callers' question; each is inlined with its own constant arguments.
     *
     * @param name null, or the name the slot must hold (compared as the words it stores)
     * @param nameWords null, or where the name's words go
     * @param out filled, with the record as stored, only when this returns a length
     * @return the name length when the slot is LIVE (and holds {@code name}); 0 when it is not (FREE,
     *     BUSY, another name, a length out of range); {@link #UNSETTLED} when no read was consistent
     */
    private int readLoop(MemorySegment seg, int k, EncodedName name, long[] nameWords, SlotRecord out) {
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
            if (TestSeams.ENABLED) { // a static final false outside tests: C2 folds the call away
                betweenLoads();
            }
            Memory.acquireFence(); // the loads above happen before the re-checks below
            long s2 = Memory.opaqueLong(seg, Slots.seq(slot));
            long g2 = Memory.opaqueLong(seg, Slots.gen(slot));
            if (s1 != s2 || g1 != g2) {
                Thread.onSpinWait();
                continue;
            }
            if (!matches) {
                return 0;
            }
            out.set(k, g1, count, total, max, bytes);
            return length;
        }
        return UNSETTLED;
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

    // ------------------------------------------------------------------ handle read (§7.2.2)

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
     * @param answer what to answer; {@link Answer#HOT} compares with {@link #hotThresholdNs()}
     * @param out where {@link Answer#RECORD} puts the record; unused by the other answers
     * @return the answer, 0 when the region reads as absent, or {@link #STALE}
     */
    public long slotReadAt(int k, long gen, Answer answer, SlotRecord out) {
        // The slot's fixed part as one slice, read at constant offsets: one bounds check per read
        // instead of one per access (docs/archive/PERF-READ.md, "One slice per read"). C2 scalar-replaces
        // the slice; the interpreter and C1 allocate it (the steady-state promise, HintStore).
        MemorySegment fixed = mapping.segment().asSlice(slots.slot(k), Layouts.SLOT_NAME);
        for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++) {
            if (Memory.acquireLong(fixed, Layouts.SLOT_GEN) != gen) {
                return STALE; // reassigned, or BUSY being reassigned (odd never equals a handle's even gen)
            }
            long s1 = Memory.acquireLong(fixed, Layouts.SLOT_SEQ);
            long copy = Slots.copy(0, s1);
            long count = RecordCopies.plainDispatchCount(fixed, copy);
            long total = RecordCopies.plainKernelNsTotal(fixed, copy);
            long max = RecordCopies.plainKernelNsMax(fixed, copy);
            long bytes = RecordCopies.plainBytesTotal(fixed, copy);
            Memory.acquireFence(); // the loads above happen before the re-checks below
            long s2 = Memory.opaqueLong(fixed, Layouts.SLOT_SEQ);
            if (Memory.opaqueLong(fixed, Layouts.SLOT_GEN) != gen) {
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
            if (answer != Answer.RECORD) {
                return answer.of(count, total, hotThresholdNs);
            }
            out.set(k, gen, count, total, max, bytes);
            return 1;
        }
        return 0; // a writer rewriting the slot without pause: absent, as §7.2.1
    }

    // ------------------------------------------------------------------ resolve (§7.3)

    /**
     * Finds the region {@code name} (§7.3) and reads its record into {@code out}. An index entry
     * naming no slot is no match: the probe goes on, and nothing is remembered of it (a writer meets
     * it again under the structure lock and recovers, §7.4 step 2).
     */
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
                    if (k >= 0 && k < slots.capacity && readLoop(seg, (int) k, name, null, out) > 0
                            && out.isSound()) {
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

    /**
     * Exact lookup under the structure lock (names and the index cannot change meanwhile), as C's
     * {@code resolve_locked}.
     *
     * @return the slot holding {@code name}; -1 when none does; {@link #MET_NO_SLOT} when none does
     *     and an entry that would have been followed named no slot (a damaged index: the caller recovers)
     */
    int resolveLocked(EncodedName name) {
        MemorySegment seg = mapping.segment();
        int j = index.home(name.hash);
        int absent = -1;
        for (int p = 0; p < index.maxProbe; p++) {
            long e = index.entryLocked(seg, j);
            if (e == 0) {
                break;
            }
            if (HashIndex.matches(e, HashIndex.probeKey(name.hash, p))) {
                long k = HashIndex.slotOf(e);
                if (k < 0 || k >= slots.capacity) {
                    absent = MET_NO_SLOT;
                } else {
                    long slot = slots.slot((int) k);
                    if (Memory.plainInt(seg, Slots.nameLen(slot)) == name.byteLength
                            && Memory.plainLong(seg, Slots.hash(slot)) == name.hash && nameEquals(seg, slot, name)
                            && (Memory.plainLong(seg, Slots.gen(slot)) & 1) == 0) {
                        return (int) k;
                    }
                }
            }
            j = (j + 1) & index.mask;
        }
        return absent;
    }

    // ------------------------------------------------------------------ structural change (§7.4)

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
        if (!locks.acquire(seg, Layouts.HDR_STRUCT_LOCK)) {
            scratch.slot = -1; // gave up on a live holder (§6.2): dropped, nothing changed
            return true;
        }
        try {
            return insertLocked(seg, name, scratch);
        } finally {
            // On a throwable the journal and index_seq stay as they are: the next holder recovers (§8).
            locks.release(seg, Layouts.HDR_STRUCT_LOCK);
        }
    }

    /** The body of §7.4, the structure lock held: as {@link #recordStructural} returns. */
    boolean insertLocked(MemorySegment seg, EncodedName name, SlotRecord scratch) {
        if (recovery.needed() && !recovery.recover()) { // 1
            scratch.slot = -1; // recovery gave up on a slot lock: the next holder recovers
            return true;
        }
        int found = resolveLocked(name); // 2
        if (found == MET_NO_SLOT) {
            // an entry on the way named no slot (a damaged index, §8): repair, then look again
            if (!recovery.recover()) {
                scratch.slot = -1;
                return true;
            }
            found = resolveLocked(name);
        }
        if (found >= 0) {
            scratch.slot = found;
            scratch.gen = Memory.plainLong(seg, Slots.gen(slots.slot(found)));
            return false;
        }
        if (!index.hasRoom(seg, name.hash)) {
            // No entry within the probe bound: drop the sample without evicting anyone (§7.4 step 3).
            counters.holderCount(Layouts.HDR_DROPPED_INSERTS);
            scratch.slot = -1;
            return true;
        }
        boolean rebuild;
        try {
            int k = lockVictim(seg); // 3-4: when it returns the victim locked, lockedVictim names its lock
            if (k < 0) {
                scratch.slot = -1; // the victim's lock is held by a live process: dropped, nothing changed
                return true;
            }
            rebuild = slotAssign(seg, k, name, scratch); // 5-11
        } finally {
            long victimLock = lockedVictim;
            if (victimLock != 0) {
                lockedVictim = 0; // before the release: a release that throws leaves the lock to the sweep
                locks.release(seg, victimLock);
            }
        }
        // §7.4 step 8: the index proved inconsistent; rebuilt now that the slot lock is released.
        // The sample counts as inserted only if the rebuild finished and kept the new region where it was put.
        if (rebuild && (!recovery.indexRebuild() || resolveLocked(name) != scratch.slot)) {
            scratch.slot = -1; // a rebuild that gave up (§6.2) leaves index_seq odd for the next holder
        }
        return true;
    }

    /**
     * Steps 3–4 of §7.4: chooses a slot by CLOCK and takes its lock (waiting for a record in
     * flight into it, stealing from a dead holder). The choice read the victim's reference bit
     * without its lock; a record that completed before we got the lock has set the bit again, and
     * evicting the region now would not be the CLOCK choice of any order of the two operations
     * (Lincheck {@code StoreLinearizabilityTest}, jcstress {@code ClockChoiceStress}). So the bit
     * is re-checked under the lock ({@link #victimLocked}): if set, the region gets its second chance
     * and the hand moves on, at most {@code capacity} times.
     *
     * <p>A busy victim is waited for, not passed over: passing over it would let an eviction
     * depend on a record that readers cannot see yet, which no order of the operations explains
     * (Lincheck {@code StoreLinearizabilityTest}).
     *
     * @return the slot, locked, its lock in {@link #lockedVictim} for the caller's {@code finally};
     *     -1 when a live holder kept its lock past the wait limit (§6.2)
     */
    private int lockVictim(MemorySegment seg) {
        long hand = Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND);
        long highWater = Memory.plainLong(seg, Layouts.HDR_HIGH_WATER);
        for (int secondChances = 0; ; secondChances++) {
            int k = ClockHand.choose(clockFrames);
            long lock = Slots.lock(slots.slot(k));
            if (!locks.acquire(seg, lock)) {
                // §6.2 give up: put the hand and high_water back (the bits it cleared only aged regions)
                Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND, hand);
                Memory.releaseLong(seg, Layouts.HDR_HIGH_WATER, highWater);
                return -1;
            }
            lockedVictim = lock; // from here on the caller's finally releases it, whatever is thrown
            if (victimLocked(seg, k, secondChances)) {
                return k;
            }
            lockedVictim = 0; // before the release, as in the caller's finally
            locks.release(seg, lock);
        }
    }

    /**
     * Step 4's re-check, slot {@code k}'s lock held: true when it is the victim; false when a record
     * set its reference bit since the hand looked, which the region's second chance clears.
     */
    boolean victimLocked(MemorySegment seg, int k, int secondChances) {
        if (secondChances >= slots.capacity || Memory.plainInt(seg, Slots.nameLen(slots.slot(k))) == 0
                || Memory.opaqueByte(seg, slots.ref(k)) == 0) {
            return true;
        }
        Memory.plainByte(seg, slots.ref(k), (byte) 0); // recorded since the hand looked: second chance
        return false;
    }

    /**
     * Steps 5–11 of §7.4: gives slot {@code k}, whose lock the caller holds, to {@code name} with
     * its first record, {@code scratch}'s, and sets {@code scratch.slot}/{@code gen} to where it
     * went (slot -1 when the index had no room). Each access names its memory mode and why, as C's {@code slot_assign}
     * does; the structure lock and the slot lock are held throughout, so this thread's plain
     * loads read what it (or the previous holder, ordered by the lock's acquire) stored.
     *
     * @return true when step 8 found the index inconsistent: {@code index_seq} is left odd and the
     *     caller rebuilds the index once the slot lock is released
     */
    boolean slotAssign(MemorySegment seg, int k, EncodedName name, SlotRecord scratch) {
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
        boolean rebuild = false;
        int oldLength = Memory.plainInt(seg, Slots.nameLen(slot)); // plain: the slot lock's holder wrote it last
        if (oldLength != 0) { // 8: the slot had a name (gen is odd by now): its entry goes
            if (!index.delete(seg, Memory.plainLong(seg, Slots.hash(slot)), k)) {
                rebuild = true; // no such entry, or a damaged one (damaged file): rebuild after step 11
            }
            live = live > 0 ? live - 1 : 0; // §7.4 step 8: never below 0, as C's
            counters.holderCount(Layouts.HDR_EVICTIONS);
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
        // plain (C relaxed): the CLOCK hand clears it without the slot lock; a first sample is no second reference (§10)
        Memory.plainByte(seg, slots.ref(k), (byte) 0);
        if (index.insert(seg, name.hash, k)) { // 10
            live++;
            scratch.slot = k;
            scratch.gen = busy + 1;
        } else {
            clearName(seg, slots, slot); // plain, as step 9: the slot becomes FREE
            RecordCopies.plainWrite(seg, Slots.copy(slot, seq + 1), 0, 0, 0, 0); // and holds no record, as §8 step 1 leaves one
            counters.holderCount(Layouts.HDR_DROPPED_INSERTS);
            Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND, k); // plain: only struct_lock holders use the hand; reuse the free slot
            scratch.slot = -1;
        }
        Memory.releaseLong(seg, Layouts.HDR_LIVE_COUNT, live); // release, while index_seq is odd (§7.5)
        Memory.releaseLong(seg, Slots.gen(slot), busy + 1); // 11: release: even, publishes the slot
        if (!rebuild) {
            // release: even, index stable; a pending rebuild keeps it odd until the rebuild ends, so a
            // death before then leaves the §8 trigger (odd index_seq) and lookups never trust the gap
            Memory.releaseLong(seg, Layouts.HDR_INDEX_SEQ, indexSeq + 2);
        }
        Memory.releaseLong(seg, Layouts.HDR_JOURNAL_SLOT, 0L); // release: change complete (§3.2, as C)
        return rebuild;
    }

    /** Zeroes a slot's name, its length and hash (plain: the caller holds the slot lock with {@code gen} odd). */
    static void clearName(MemorySegment seg, Slots slots, long slot) {
        Memory.plainInt(seg, Slots.nameLen(slot), 0);
        Memory.plainLong(seg, Slots.hash(slot), 0L);
        for (int i = 0; i < slots.nameAreaWords; i++) {
            Memory.plainLong(seg, Slots.nameWord(slot, i), 0L);
        }
    }

    // ------------------------------------------------------------------ counting regions (§7.5)

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

    /** §7.5/§9.1: a count with the top bit set is damaged and reads as 0; any other is clamped to capacity. */
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
}
