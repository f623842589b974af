package dev.hintmap.store;

import dev.hintmap.format.Hm64;
import dev.hintmap.format.RecordRules;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether a slot holds a sound region (FORMAT.md §8 step 2c): {@code gen} even, its name sound
 * ({@link #nameSound}), its current record sound ({@link RecordRules#isSound}), and no lower
 * slot kept under the same name ({@link #keptFirst}). The one rule by which recovery keeps a slot
 * ({@code StoreRecovery.indexRebuild}, which also needs it to fit the index), {@code verify}
 * counts it LIVE ({@code FileVerifier}, §9.1) and {@code upgrade} carries it over
 * ({@code OldVersionReader}): so a file recovery has repaired verifies clean, and an upgrade keeps
 * what recovery would keep. Each caller reads the record its own way (a seqlock read under
 * writers, a plain read of a version-1 or version-2 file) and reports flaws its own way ({@link Flaws}).
 * C: {@code slot_name_sound} and {@code hm_record_sound}, in {@code index_rebuild}.
 */
final class SlotSoundness {
    private SlotSoundness() {}

    /**
     * Why a name is not sound, told to the caller as each flaw is found: recovery and the
     * old-version reader ignore them ({@link #IGNORED}), {@code verify} reports each one.
     */
    interface Flaws {
        /** {@code name_len} is outside {@code [1, max_name_bytes]}: nothing else is checked. */
        default void nameLength(int length) {}

        /** The byte at file offset {@code offset}, past the name in its area, is not zero (the first such). */
        default void padding(long offset) {}

        /** The stored {@code hash} is not {@code hm64} of the name. */
        default void hash(long stored, long computed) {}

        /** The name's {@code length} bytes are not valid UTF-8. */
        default void notUtf8(int length) {}

        /** An otherwise sound slot holds the name of slot {@code lower}, kept before it: it is not kept. */
        default void duplicate(int lower) {}
    }

    /**
     * The slots a pass over the slots in ascending order has kept so far, by name: what the last
     * part of the rule, "no lower-numbered slot kept has the same name", asks of the slots before.
     * Recovery keeps them in the index it rebuilds (which it needs anyway, and which costs no
     * memory of its own at any capacity); verify and upgrade, which write nothing, in
     * {@link #keptByName()}.
     */
    interface Kept {
        /** The slot kept under {@code name}, or -1. */
        int slotOf(EncodedName name);

        /** Keeps slot {@code k} under {@code name}; false when it cannot (recovery: no room within max_probe). */
        boolean keep(EncodedName name, int k);
    }

    /**
     * Whether slot {@code k}, whose name {@code name} and record are sound, is kept: unless a lower
     * slot is already kept under the same name (told to {@code flaws}), it is, if {@code kept} has
     * room for it. The first slot in slot order wins, so every pass keeps the same one.
     */
    static boolean keptFirst(Kept kept, EncodedName name, int k, Flaws flaws) {
        int lower = kept.slotOf(name);
        if (lower >= 0) {
            flaws.duplicate(lower);
            return false;
        }
        return kept.keep(name, k);
    }

    /** A {@link Kept} of its own, a map from the name to the slot, for a pass that rebuilds no index. */
    static Kept keptByName() {
        return new Kept() {
            private final Map<String, Integer> slots = new HashMap<>();

            @Override
            public int slotOf(EncodedName name) {
                return slots.getOrDefault(name.decodeStrict(), -1); // a sound name: strictly valid UTF-8
            }

            @Override
            public boolean keep(EncodedName name, int k) {
                slots.put(name.decodeStrict(), k);
                return true;
            }
        };
    }

    /** Flaws nobody reports. */
    static final Flaws IGNORED = new Flaws() {};

    /**
     * Reads the name of the slot at offset {@code slot}, {@code length} bytes long by its
     * {@code name_len} (read by the caller, in its memory mode), into {@code out} and checks that
     * it is sound: {@code 1 <= name_len <= max_name_bytes}, every byte of the name area past it
     * zero, {@code hash == hm64(name)}, the name valid UTF-8 ({@link EncodedName#decodeStrict}).
     * The caller then checks the record, and last asks {@link #keptFirst}.
     * Every flaw found is told to {@code flaws}; a wrong length stops the check.
     *
     * @param out receives the name's words, length and hash (its cached source is dropped)
     * @return true when the name is sound
     */
    static boolean nameSound(MemorySegment seg, Slots slots, long slot, int length, EncodedName out, Flaws flaws) {
        if (length <= 0 || length > slots.maxNameBytes) {
            flaws.nameLength(length);
            return false;
        }
        int words = (length + 7) >>> 3;
        if (out.words.length < words) {
            out.words = new long[words];
        }
        long firstNonZero = -1;
        for (int i = 0; i < slots.nameAreaWords; i++) {
            long word = Memory.plainLong(seg, Slots.nameWord(slot, i));
            long past = word; // the bytes of this word past the name's end
            if (i < words) {
                int bytes = Math.min(8, length - 8 * i);
                long name = bytes == 8 ? -1L : (1L << (8 * bytes)) - 1;
                out.words[i] = word & name;
                past = word & ~name;
            }
            if (past != 0 && firstNonZero < 0) {
                firstNonZero = Slots.nameWord(slot, i) + Long.numberOfTrailingZeros(past) / 8; // little-endian words
            }
        }
        out.byteLength = length;
        out.hash = Hm64.ofWords(out.words, length);
        out.source = null;
        boolean sound = true;
        if (firstNonZero >= 0) {
            flaws.padding(firstNonZero);
            sound = false;
        }
        long stored = Memory.plainLong(seg, Slots.hash(slot));
        if (stored != out.hash) {
            flaws.hash(stored, out.hash);
            sound = false;
        }
        if (out.decodeStrict() == null) {
            flaws.notUtf8(length);
            sound = false;
        }
        return sound;
    }
}
