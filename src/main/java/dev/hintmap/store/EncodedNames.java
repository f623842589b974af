package dev.hintmap.store;

import dev.hintmap.format.StoredName;

/**
 * Per-thread scratch space for the record and query paths, and the resolution a
 * {@code Region} handle caches. Keeping these here lets the API classes stay free of
 * {@code MemorySegment} plumbing while the hot path allocates nothing.
 *
 * <p>Recording by name would cost a UTF-8 encoding and a hash per call. Each thread therefore
 * keeps a name cache, direct-mapped and keyed by the identity of the name's {@code String} (a
 * runtime passes the same generator-name instance on every dispatch): a hit reuses the
 * encoded name and the (slot, gen) it last resolved to in that store, so a record by name
 * costs what a record through a {@code Region} handle costs. A stale slot is caught by the
 * generation check under the slot lock (FORMAT.md §7.1), exactly as for a handle.
 */
public final class EncodedNames {
    /**
     * Direct-mapped entries per thread, each made on first use: room for a GPU runtime's working set
     * of names with few collisions (64 names collide in about 2 of them; at 256 entries, in about 7,
     * and a collision re-encodes the name on every call, which for a 200-byte kernel name costs more
     * than the record itself: LongNameBench).
     */
    private static final int NAME_CACHE_ENTRIES = 1024;
    /** An entry's buffer to start with (128 bytes); it grows once for a longer name (kernel names run 100–400). */
    private static final int CACHED_NAME_WORDS = 16;

    private EncodedNames() {}

    /**
     * One entry of the name cache: a name's encoding and, for one store, where it was last found.
     * C's twin is {@code hm_store.name_cache} (hm_internal.h), keyed by the caller's pointer and
     * length, which keeps only the slot: C's caller owns the bytes, so there is nothing to encode.
     *
     * <p>The store is named by its engine's {@link StoreEngine#id}, never by a reference: a thread's
     * 1,024 entries outlive the stores it recorded into (a {@code top --watch} reopens its file every
     * refresh), and a reference would keep each closed store's engine, lock state and sweep
     * reachable for as long as the thread lives (issue 32 finding 14). Ids are never reused, so a
     * stale entry can never pass for another store's; the check stays one compare on the record
     * path, as the reference compare was.
     */
    public static final class CachedName {
        public final EncodedName name;
        /** {@link StoreEngine#id} of the store {@link #slot} and {@link #gen} belong to; 0: none. */
        long engineId;
        int slot = -1;
        long gen;

        CachedName(EncodedName name) {
            this.name = name;
        }

        /** Remembers where {@code engine} put this name (slot -1: nowhere). */
        void resolvedIn(StoreEngine engine, int slot, long gen) {
            this.engineId = engine.id;
            this.slot = slot;
            this.gen = gen;
        }
    }

    /** One thread's reusable encoding buffer, snapshot and name cache. */
    public static final class Scratch {
        public final EncodedName name = new EncodedName();
        public final SlotRecord snapshot = new SlotRecord();
        /**
         * This thread's encoder, which every name it encodes passes through ({@link EncodedName#encodeChecked},
         * {@link StoredName#of}): kept here so the record path finds it with the one thread-local lookup
         * it makes anyway (a ThreadLocal of its own cost recordCopy 12-20 ns of ~130).
         */
        final StoredName.Encoder encoder = StoredName.Encoder.ofThisThread();
        /** Filled on first use of each entry: a thread pays for the names it uses, not for the table. */
        final CachedName[] nameCache = new CachedName[NAME_CACHE_ENTRIES];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    public static Scratch scratch() {
        return SCRATCH.get();
    }

    /**
     * The cache entry for {@code name}, encoded as {@code engine}'s store stores it
     * ({@link EncodedName#encodeChecked} with the store's limit and long-name policy).
     *
     * @throws IllegalArgumentException for a bad name
     */
    public static CachedName cached(Scratch scratch, String name, StoreEngine engine) {
        if (name == null) {
            throw new IllegalArgumentException("region name is null");
        }
        int h = name.hashCode();
        int i = (h ^ (h >>> 16)) & (NAME_CACHE_ENTRIES - 1);
        CachedName entry = scratch.nameCache[i];
        if (entry == null) {
            entry = scratch.nameCache[i] = new CachedName(new EncodedName(CACHED_NAME_WORDS));
        }
        if (entry.name.source != name) {
            entry.engineId = 0;
        }
        entry.name.encodeChecked(name, engine.maxNameBytes(), engine.rejectsLongNames(), scratch.encoder);
        return entry;
    }

    /** A slot and the generation it had when resolved. */
    public record Resolution(int slot, long gen) {}

    /** Validates and encodes {@code name} as {@code engine}'s store stores it, into a new exact-size instance. */
    public static EncodedName encodeCopy(String name, StoreEngine engine) {
        Scratch scratch = scratch();
        EncodedName scratchName = scratch.name;
        scratchName.encodeChecked(name, engine.maxNameBytes(), engine.rejectsLongNames(), scratch.encoder);
        return scratchName.copy();
    }

    /** Records by name and returns where the sample went, or null when it was dropped. */
    public static Resolution recordResolving(StoreEngine engine, EncodedName name, long kernelNs, long bytes) {
        SlotRecord s = scratch().snapshot;
        engine.record(name, kernelNs, bytes, s);
        return s.slot >= 0 ? new Resolution(s.slot, s.gen) : null;
    }

    /** Records by name through the thread's cache (see the class comment). */
    public static void record(StoreEngine engine, CachedName entry, SlotRecord scratch, long kernelNs, long bytes) {
        if (entry.engineId == engine.id && entry.slot >= 0 && engine.recordInto(entry.slot, entry.gen, kernelNs, bytes)) {
            return;
        }
        engine.record(entry.name, kernelNs, bytes, scratch);
        entry.resolvedIn(engine, scratch.slot, scratch.gen);
    }

    /**
     * Answers a query by name through the thread's cache: the entry's (slot, gen) read as a handle
     * (§7.2.2), else the name resolved (§7.3) and remembered.
     *
     * @param out the record's holder: filled for {@link Answer#RECORD} when present, scratch otherwise
     * @return as {@link StoreEngine#slotReadAt}, never {@link StoreEngine#STALE}
     */
    public static long query(StoreEngine engine, CachedName entry, Answer answer, SlotRecord out) {
        if (entry.engineId == engine.id && entry.slot >= 0) {
            long v = engine.slotReadAt(entry.slot, entry.gen, answer, out);
            if (v != StoreEngine.STALE) {
                return v;
            }
        }
        boolean found = engine.resolve(entry.name, out);
        entry.resolvedIn(engine, found ? out.slot : -1, out.gen);
        return found ? out.answer(answer, engine.hotThresholdNs()) : 0;
    }
}
