package dev.hintmap.store;

import dev.hintmap.VerifyReport;
import dev.hintmap.VerifyReport.Finding;
import dev.hintmap.VerifyReport.Severity;
import dev.hintmap.format.RecordRules;
import dev.hintmap.format.StoredName;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import dev.hintmap.os.ProcessIdentity;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Checks every invariant of FORMAT.md on a mapping whose header has already been validated (§5
 * steps 1–4): the parts a normal open never scans. Reads only; every value read from the file is
 * range-checked before it is used as an offset, index or length, so a hostile file can make it
 * report problems but never read outside the mapping.
 *
 * <p>Writers may be working on the file. Records are read with the seqlock protocol (§7.2.1),
 * and the whole check is repeated, up to {@link #ATTEMPTS} times, until {@code index_seq} was the
 * same even value before and after it: only then do index-versus-slot findings describe one
 * state of the file rather than a structural change in flight.
 */
public final class FileVerifier {
    static final int ATTEMPTS = 50;
    private static final long RETRY_PAUSE_NANOS = 2_000_000;
    private static final long OWNER_INDEX_MASK = 0xFFFF_FFFFL;
    /** The monotonic counters of the header, by field name. */
    private static final Map<String, Long> COUNTERS = new TreeMap<>(Map.of(
            "evictions", Layouts.HDR_EVICTIONS, "recoveries", Layouts.HDR_RECOVERIES,
            "dropped_inserts", Layouts.HDR_DROPPED_INSERTS, "stolen_locks", Layouts.HDR_STOLEN_LOCKS));

    private final MemorySegment seg;
    private final FileGeometry geometry;
    private final Slots slots;
    private final HashIndex index;
    private final WriterTable writers;
    /** Reads each record with the one seqlock loop of the read path (§7.2.1). */
    private final StoreEngine engine;
    private final SlotRecord record = new SlotRecord();
    private final List<Finding> findings = new ArrayList<>();
    /** The name of the slot being checked. */
    private final EncodedName name = new EncodedName();
    private int liveSlots;
    private int usedEntries;

    private FileVerifier(Memory memory, FileGeometry geometry, WriterTable writers, StoreEngine engine) {
        this.seg = memory.segment;
        this.geometry = geometry;
        this.slots = new Slots(geometry);
        this.index = new HashIndex(geometry);
        this.writers = writers;
        this.engine = engine;
    }

    /** Verifies the file behind {@code store} (opened read-only or not; nothing is written). */
    public static VerifyReport verify(MappedStore store) {
        store.requireOpen();
        VerifyReport last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            FileVerifier v = new FileVerifier(store.memory(), store.header().geometry(), store.writers(), store.engine());
            long before = Memory.acquireLong(store.memory().segment, Layouts.HDR_INDEX_SEQ);
            boolean changing = (before & 1) != 0 && v.structureLockHolderAlive();
            v.run();
            Memory.acquireFence();
            long after = Memory.acquireLong(store.memory().segment, Layouts.HDR_INDEX_SEQ);
            last = new VerifyReport(store.file(), v.findings, v.liveSlots, v.usedEntries,
                    !changing && before == after);
            if (last.stable()) {
                return last;
            }
            LockSupport.parkNanos(RETRY_PAUSE_NANOS); // a writer is inserting: let it finish
        }
        return last;
    }

    private void run() {
        checkHeaderReserved();
        checkCoordination();
        checkWriterTable();
        SlotSoundness.Kept kept = SlotSoundness.keptByName();
        BitSet live = new BitSet(slots.capacity);
        long highWater = Memory.acquireLong(seg, Layouts.HDR_HIGH_WATER);
        int deadLocks = 0;
        for (int k = 0; k < slots.capacity; k++) {
            long slot = slots.slot(k);
            checkReferenceByte(k);
            if (Long.compareUnsigned(k, highWater) >= 0) {
                checkNeverUsed(k, slot);
                continue;
            }
            if (!checkLockWord(k, Memory.acquireLong(seg, Slots.lock(slot)))) {
                deadLocks++;
            }
            NameFlaws flaws = new NameFlaws(k);
            // LIVE by the rule recovery keeps a slot by (§9.1, §8 step 2c): a later duplicate is not.
            if (checkSlot(k, slot, flaws) && SlotSoundness.keptFirst(kept, name, k, flaws)) {
                live.set(k);
                liveSlots++;
            }
        }
        if (deadLocks > 0) {
            note("slot", -1, -1, "lock", deadLocks + " slot lock(s) held by writers that are no longer running"
                    + " (taken over by the next writer that needs them)");
        }
        checkIndex(live);
        long liveCount = Memory.acquireLong(seg, Layouts.HDR_LIVE_COUNT);
        if (liveCount != liveSlots) {
            error("coordination", -1, -1, "live_count", "is " + Long.toUnsignedString(liveCount) + " but " + liveSlots
                    + " slots are LIVE");
        }
    }

    // ------------------------------------------------------------------ header, coordination, writers

    private void checkHeaderReserved() {
        noteReserved("header", -1, Layouts.HDR_REF_TABLE_OFFSET + 8, Layouts.HDR_HEADER_CHECKSUM, "reserved (line 1)");
        noteReserved("header", -1, Layouts.HDR_STOLEN_LOCKS + 8, Layouts.HEADER.byteSize(), "reserved (line 3 and beyond)");
        noteReserved("reference table", -1, slots.ref(slots.capacity), geometry.slotsOffset(), "padding");
    }

    /** §3.9: a reference byte is 0 or 1; another value is damage (readers take it as 1). */
    private void checkReferenceByte(int k) {
        int value = Byte.toUnsignedInt(Memory.opaqueByte(seg, slots.ref(k)));
        if (value > 1) {
            error("slot", k, -1, "ref", "reference byte is " + value + ", expected 0 or 1");
        }
    }

    private void checkCoordination() {
        long capacity = slots.capacity;
        long structLock = Memory.acquireLong(seg, Layouts.HDR_STRUCT_LOCK);
        long journal = Memory.acquireLong(seg, Layouts.HDR_JOURNAL_SLOT);
        long indexSeq = Memory.acquireLong(seg, Layouts.HDR_INDEX_SEQ);
        boolean holderAlive = structureLockHolderAlive();
        if (structLock != 0 && !validOwner(structLock)) {
            note("coordination", -1, -1, "struct_lock", ownerProblem(structLock));
        }
        if (!holderAlive && (journal != 0 || (indexSeq & 1) != 0)) {
            error("coordination", -1, -1, "journal_slot",
                    "a structural change was interrupted (journal_slot " + journal + ", index_seq " + indexSeq
                            + (structLock != 0 ? ", structure lock held by a writer that is no longer running" : "")
                            + "): the next insertion repairs it (FORMAT.md §8)");
        }
        if (journal != 0 && Long.compareUnsigned(journal, capacity) > 0) {
            error("coordination", -1, -1, "journal_slot", "is " + Long.toUnsignedString(journal)
                    + ", outside [0, " + capacity + "] (slot + 1)");
        }
        long hand = Memory.acquireLong(seg, Layouts.HDR_CLOCK_HAND);
        if (Long.compareUnsigned(hand, Math.max(1, capacity)) >= 0) {
            error("coordination", -1, -1, "clock_hand", "is " + Long.toUnsignedString(hand) + ", outside [0, "
                    + Math.max(0, capacity - 1) + "]");
        }
        requireAtMost("high_water", Layouts.HDR_HIGH_WATER, capacity);
        requireAtMost("live_count", Layouts.HDR_LIVE_COUNT, capacity);
        for (Map.Entry<String, Long> counter : COUNTERS.entrySet()) {
            long value = Memory.acquireLong(seg, counter.getValue());
            if (value < 0) {
                error("coordination", -1, -1, counter.getKey(), "is " + Long.toUnsignedString(value)
                        + ", above 2^63-1 (counters never set the top bit)");
            }
        }
    }

    private void requireAtMost(String field, long offset, long max) {
        long value = Memory.acquireLong(seg, offset);
        if (Long.compareUnsigned(value, max) > 0) {
            error("coordination", -1, -1, field, "is " + Long.toUnsignedString(value) + ", outside [0, " + max + "]");
        }
    }

    private boolean structureLockHolderAlive() {
        long structLock = Memory.acquireLong(seg, Layouts.HDR_STRUCT_LOCK);
        return structLock != 0 && validOwner(structLock) && !writers.isDead(structLock, 0);
    }

    private void checkWriterTable() {
        int deadEntries = 0;
        for (int i = 0; i < writers.entries(); i++) {
            long token = writers.token(i);
            long generation = writers.generation(i);
            if (token == 0) {
                continue;
            }
            if (ProcessIdentity.pidOf(token) == 0) {
                note("writer-table", -1, -1, "token", "entry " + i + " holds token 0x" + Long.toHexString(token)
                        + ", which names process id 0, no process: dead (reclaimed by the next writer that attaches)");
            } else if (generation == 0) {
                note("writer-table", -1, -1, "generation", "entry " + i + " is claimed but its generation is 0: a claim"
                        + " whose generation is not stored yet, or that died before storing it, or 2^64 claims wrapped it");
            } else if (!writers.isAlive(token)) {
                deadEntries++;
            }
        }
        if (deadEntries > 0) {
            note("writer-table", -1, -1, "token", deadEntries + " entr" + (deadEntries == 1 ? "y" : "ies")
                    + " held by writers that are no longer running (reclaimed by the next writer that attaches)");
        }
    }

    private boolean validOwner(long owner) {
        long entry = (owner & OWNER_INDEX_MASK) - 1;
        return entry >= 0 && entry < writers.entries();
    }

    private String ownerProblem(long owner) {
        return "holds owner word 0x" + Long.toHexString(owner) + " naming writer entry "
                + ((owner & OWNER_INDEX_MASK) - 1) + ", outside [0, " + (writers.entries() - 1) + "]"
                + ": a dead owner (FORMAT.md §6.3), taken over by the next writer that needs the lock";
    }

    /** Returns false when the word is a valid owner that is no longer running. */
    private boolean checkLockWord(int k, long lock) {
        if (lock == 0) {
            return true;
        }
        if (!validOwner(lock)) {
            note("slot", k, -1, "lock", ownerProblem(lock));
            return true;
        }
        return !writers.isDead(lock, 0);
    }

    // ------------------------------------------------------------------ slots

    private void checkNeverUsed(int k, long slot) {
        for (long offset = 0; offset < Layouts.SLOT_COPIES; offset += 8) {
            if (Memory.plainLong(seg, slot + offset) != 0) {
                note("slot", k, -1, "gen", "slot at or beyond high_water " + Memory.acquireLong(seg, Layouts.HDR_HIGH_WATER)
                        + " has a non-zero control line (offset " + offset + "): no reader looks there, and the"
                        + " insertion that reaches it takes it over (FORMAT.md §9.1)");
                return;
            }
        }
    }

    /**
     * Checks slot {@code k} below high_water, telling its name's flaws to {@code flaws}; true when it
     * is LIVE with a sound name (read into {@link #name}) and a sound record (§8 step 2c).
     */
    private boolean checkSlot(int k, long slot, NameFlaws flaws) {
        long gen = Memory.acquireLong(seg, Slots.gen(slot));
        int length = Memory.opaqueInt(seg, Slots.nameLen(slot));
        noteReserved("slot", k, slot + Layouts.SLOT_NAME_LEN + 4, slot + Layouts.SLOT_COPIES, "reserved");
        if ((gen & 1) != 0) {
            if (!structureLockHolderAlive()) {
                error("slot", k, -1, "gen", "is odd (" + gen + "): the slot is BUSY but no structural change is under way");
            }
            return false;
        }
        if (length == 0) {
            return false; // FREE: its other bytes are not read (§7.4 step 10 leaves the evicted name there)
        }
        boolean soundName = SlotSoundness.nameSound(seg, slots, slot, length, name, flaws);
        if (flaws.unreadable) {
            return false; // no name whose record to check
        }
        return checkRecord(k, slot, gen) && soundName;
    }

    /** Slot {@code k}'s name flaws as findings. */
    private final class NameFlaws implements SlotSoundness.Flaws {
        private final int k;
        /** Set when the name has no length in range or no UTF-8 reading: its record is not checked. */
        boolean unreadable;

        NameFlaws(int k) {
            this.k = k;
        }

        @Override
        public void nameLength(int length) {
            error("slot", k, -1, "name_len", "is " + Integer.toUnsignedString(length) + ", outside [0, "
                    + slots.maxNameBytes + "]");
            unreadable = true;
        }

        @Override
        public void padding(long offset) {
            nonZero("slot", k, "name", offset);
        }

        @Override
        public void hash(long stored, long computed) {
            error("slot", k, -1, "hash", String.format("is 0x%016x but hm64 of the name is 0x%016x", stored, computed));
        }

        @Override
        public void notUtf8(int length) {
            error("slot", k, -1, "name", "is not valid UTF-8 (" + length + " bytes)");
            unreadable = true;
        }

        @Override
        public void duplicate(int lower) {
            error("slot", k, -1, "name", "holds the same name as slot " + lower + ": " + quote(name.decodeStrict())
                    + " (a name may be stored once; recovery frees the later slot, and it is not LIVE)");
        }
    }

    /** Reads the current record consistently (§7.2.1) and checks its invariants. */
    private boolean checkRecord(int k, long slot, long gen) {
        if (engine.slotReadAsStored(k, record) == 0 || record.gen != gen) {
            return true; // reassigned since, or a writer kept publishing: the slot is in use, not damaged
        }
        long count = record.dispatchCount;
        long total = record.kernelNsTotal;
        long max = record.kernelNsMax;
        long bytes = record.bytesTotal;
        if (RecordRules.isSound(count, total, max, bytes)) {
            return true;
        }
        // The verdict is RecordRules'; what follows only names the §7.2.1 invariants it failed.
        String fields = String.format("(count %s, total %s, max %s, bytes %s)", Long.toUnsignedString(count),
                Long.toUnsignedString(total), Long.toUnsignedString(max), Long.toUnsignedString(bytes));
        if (count < 0 || total < 0 || max < 0 || bytes < 0) {
            error("slot", k, -1, "copies", "record " + fields + " has a field above 2^63-1");
            return false;
        }
        if (count == 0) {
            error("slot", k, -1, "dispatch_count", "is 0 in a LIVE region " + fields + "; expected > 0");
        }
        if (max > total) {
            error("slot", k, -1, "kernel_ns_max", "is above kernel_ns_total " + fields);
        }
        if (count > 0 && RecordRules.mean(total, count) > max) {
            error("slot", k, -1, "kernel_ns_total", "gives a mean above kernel_ns_max " + fields);
        }
        return false;
    }

    // ------------------------------------------------------------------ index

    private void checkIndex(BitSet live) {
        int entries = index.mask + 1;
        BitSet indexed = new BitSet(slots.capacity);
        for (int j = 0; j < entries; j++) {
            long e = index.entryAcquire(seg, j);
            if (e == 0) {
                continue;
            }
            usedEntries++;
            long k = HashIndex.slotOf(e);
            if (k < 0 || k >= slots.capacity) {
                error("index", -1, j, "index", "entry 0x" + Long.toHexString(e) + " names slot " + k + ", outside [0, "
                        + (slots.capacity - 1) + "]");
                continue;
            }
            int slot = (int) k;
            if (!live.get(slot)) {
                error("index", slot, j, "index", "entry names slot " + slot + ", which is not a sound LIVE region");
                continue;
            }
            if (indexed.get(slot)) {
                error("index", slot, j, "index", "slot " + slot + " is also named by an earlier entry");
                continue;
            }
            indexed.set(slot);
            long hash = Memory.plainLong(seg, Slots.hash(slots.slot(slot))); // a sound LIVE slot: its hash is its name's
            if (HashIndex.tag(e) != HashIndex.tag(hash)) {
                error("index", slot, j, "index", String.format("entry tag 0x%08x differs from the slot's hash tag 0x%08x",
                        HashIndex.tag(e), HashIndex.tag(hash)));
            }
            int home = index.home(hash);
            int distance = (j - home) & index.mask;
            if (distance < index.maxProbe && HashIndex.distOf(e) != distance) {
                error("index", slot, j, "index", "entry says it lies " + HashIndex.distOf(e) + " entries from its home "
                        + home + ", but it lies " + distance + ": lookups skip it and deletions move it wrongly");
            }
            if (distance >= index.maxProbe) {
                error("index", slot, j, "max_probe", "entry lies " + distance + " entries from its home " + home
                        + ", beyond max_probe " + index.maxProbe + ": lookups cannot reach it");
                continue;
            }
            for (int d = 0; d < distance; d++) {
                int between = (home + d) & index.mask;
                if (index.entryAcquire(seg, between) == 0) {
                    error("index", slot, j, "index", "empty entry " + between + " lies between the home " + home
                            + " and this entry: lookups stop there and cannot reach it");
                    break;
                }
            }
        }
        for (int k = 0; k < slots.capacity; k++) {
            if (live.get(k) && !indexed.get(k)) {
                error("index", k, -1, "index", "LIVE slot has no index entry: lookups cannot find its region");
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Notes a non-zero byte in {@code [from, to)}: reserved bytes a later version may use (§9.1). */
    private void noteReserved(String area, long slot, long from, long to, String field) {
        for (long offset = from; offset < to; offset++) {
            if (seg.get(ValueLayout.JAVA_BYTE, offset) != 0) {
                note(area, slot, -1, field, "byte at file offset " + offset + " is not zero (reserved or padding:"
                        + " no reader of this version reads it)");
                return;
            }
        }
    }

    /** Requires bytes {@code [from, to)} of the file to be zero; returns whether they are. */
    private boolean checkZero(String area, long slot, long from, long to, String field) {
        for (long offset = from; offset < to; offset++) {
            if (seg.get(ValueLayout.JAVA_BYTE, offset) != 0) {
                nonZero(area, slot, field, offset);
                return false;
            }
        }
        return true;
    }

    private void nonZero(String area, long slot, String field, long offset) {
        error(area, slot, -1, field, "byte at file offset " + offset + " is not zero (reserved or padding)");
    }

    private static String quote(String name) {
        return StoredName.quote(name);
    }

    private void error(String area, long slot, long entry, String field, String message) {
        findings.add(new Finding(Severity.ERROR, area, slot, entry, field, message));
    }

    private void note(String area, long slot, long entry, String field, String message) {
        findings.add(new Finding(Severity.NOTE, area, slot, entry, field, message));
    }
}
