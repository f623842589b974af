package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** §8 step 2c's name rule, one check for recovery, verify and upgrade: each flaw found and told, a sound name read whole. */
class SlotSoundnessTest {
    private static final FileGeometry GEOMETRY = new FileGeometry(2, 20); // a 64-byte name area
    private final Slots slots = new Slots(GEOMETRY);
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment seg = arena.allocate(GEOMETRY.fileBytes(), 4096);
    private final long slot = slots.slot(1);

    /** Records every flaw as "kind value". */
    private static final class Told implements SlotSoundness.Flaws {
        final List<String> flaws = new ArrayList<>();

        @Override
        public void nameLength(int length) {
            flaws.add("length " + length);
        }

        @Override
        public void padding(long offset) {
            flaws.add("padding " + offset);
        }

        @Override
        public void hash(long stored, long computed) {
            flaws.add("hash");
        }

        @Override
        public void notUtf8(int length) {
            flaws.add("utf8 " + length);
        }

        @Override
        public void duplicate(int lower) {
            flaws.add("duplicate of " + lower);
        }
    }

    private void store(byte[] name, long hash) {
        seg.asSlice(Slots.nameWord(slot, 0), name.length).copyFrom(MemorySegment.ofArray(name));
        seg.set(Layouts.U64, Slots.hash(slot), hash);
    }

    private List<String> check(int length, EncodedName out) {
        Told told = new Told();
        boolean sound = SlotSoundness.nameSound(seg, slots, slot, length, out, told);
        assertEquals(told.flaws.isEmpty(), sound, told.flaws.toString());
        return told.flaws;
    }

    @Test
    void aWellFormedNameIsSoundAndReadWithItsHash() {
        byte[] name = "gemm_bf16_ü".getBytes(StandardCharsets.UTF_8);
        store(name, Hm64.ofBytes(name, name.length));
        EncodedName out = new EncodedName();
        assertEquals(List.of(), check(name.length, out));
        assertEquals(name.length, out.byteLength);
        assertEquals(Hm64.ofBytes(name, name.length), out.hash);
        assertEquals("gemm_bf16_ü", out.decodeStrict());
    }

    @Test
    void aLengthOutOfRangeStopsTheCheck() {
        assertEquals(List.of("length 0"), check(0, new EncodedName()));
        assertEquals(List.of("length 21"), check(21, new EncodedName()));
        assertEquals(List.of("length -1"), check(-1, new EncodedName()));
    }

    @Test
    void theFirstNonZeroBytePastTheNameIsToldByItsFileOffsetAndTheHashIsStillChecked() {
        byte[] name = "abcdefghijk".getBytes(StandardCharsets.US_ASCII); // 11 bytes: the second word is partial
        store(name, Hm64.ofBytes(name, name.length));
        seg.set(ValueLayout.JAVA_BYTE, Slots.nameWord(slot, 0) + 13, (byte) 7);
        seg.set(ValueLayout.JAVA_BYTE, Slots.nameWord(slot, 0) + 40, (byte) 1);
        EncodedName out = new EncodedName();
        assertEquals(List.of("padding " + (Slots.nameWord(slot, 0) + 13)), check(name.length, out));
        assertEquals(Hm64.ofBytes(name, name.length), out.hash, "the hash is the name's, not its padding's");
    }

    @Test
    void aWrongHashAndBadUtf8AreEachTold() {
        byte[] name = {'a', (byte) 0xC0, (byte) 0x80}; // an overlong NUL: not strict UTF-8
        store(name, 12345);
        assertEquals(List.of("hash", "utf8 3"), check(name.length, new EncodedName()));
    }

    @Test
    void aSurrogateEncodedInUtf8IsNotSound() {
        byte[] name = {(byte) 0xED, (byte) 0xA0, (byte) 0x80};
        store(name, Hm64.ofBytes(name, name.length));
        assertEquals(List.of("utf8 3"), check(name.length, new EncodedName()));
        assertFalse(SlotSoundness.nameSound(seg, slots, slot, 1, new EncodedName(), SlotSoundness.IGNORED),
                "a name cut inside a character");
    }

    private static EncodedName encoded(String name) {
        EncodedName out = new EncodedName();
        out.encodeChecked(name, 256, false);
        return out;
    }

    /**
     * The last part of the rule, one check for every pass (recovery's index, verify's and upgrade's
     * map): the first slot kept under a name wins, a later one is told as its duplicate and not kept.
     */
    @Test
    void theFirstSlotKeptUnderANameWinsAndALaterOneIsToldAsItsDuplicate() {
        String gemm = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        String softmax = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float,"
                + " at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
        SlotSoundness.Kept kept = SlotSoundness.keptByName();
        Told told = new Told();
        assertTrue(SlotSoundness.keptFirst(kept, encoded(gemm), 2, told));
        assertTrue(SlotSoundness.keptFirst(kept, encoded(softmax), 3, told));
        assertFalse(SlotSoundness.keptFirst(kept, encoded(gemm), 5, told));
        assertFalse(SlotSoundness.keptFirst(kept, encoded(new String(softmax)), 6, told));
        assertEquals(List.of("duplicate of 2", "duplicate of 3"), told.flaws);
        assertEquals(2, kept.slotOf(encoded(gemm)), "the lower slot stays the one kept");
    }
}
