package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.format.Hm64;
import dev.hintmap.format.StoredName;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class EncodedNameTest {

    private static byte[] bytesOf(EncodedName name) {
        ByteBuffer buffer = ByteBuffer.allocate(name.wordCount() * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < name.wordCount(); i++) {
            buffer.putLong(name.words[i]);
        }
        byte[] out = new byte[name.byteLength];
        System.arraycopy(buffer.array(), 0, out, 0, name.byteLength);
        return out;
    }

    @Property(tries = 500)
    void encodesExactlyTheJdkUtf8BytesAndTheirHash(@ForAll @StringLength(min = 1, max = 60) String name) {
        byte[] expected = name.getBytes(StandardCharsets.UTF_8);
        boolean wellFormed = new String(expected, StandardCharsets.UTF_8).equals(name);
        EncodedName encoded = new EncodedName();
        if (!wellFormed) { // lone surrogates: the JDK substitutes '?', we refuse
            assertThrows(IllegalArgumentException.class, () -> encoded.encodeChecked(name, 1024, false));
            return;
        }
        encoded.encodeChecked(name, 1024, false);
        assertArrayEquals(expected, bytesOf(encoded));
        assertEquals(Hm64.ofBytes(expected, expected.length), encoded.hash);
    }

    /** The allocation-free encoder of the record path and the String rule (FORMAT.md §1.1) agree byte for byte. */
    @Property(tries = 3000)
    void encodesTheStoredFormOfAnyNameForAnyLimit(@ForAll @StringLength(min = 1, max = 120) String name,
            @ForAll @IntRange(min = 33, max = 200) int limit) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        if (!new String(utf8, StandardCharsets.UTF_8).equals(name)) {
            return; // an unpaired surrogate: refused by both, as the property above checks
        }
        EncodedName encoded = new EncodedName(1);
        encoded.encodeChecked(name, limit, false);
        byte[] stored = StoredName.of(name, limit).getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(stored, bytesOf(encoded));
        assertEquals(Hm64.ofBytes(stored, stored.length), encoded.hash);
    }

    @Test
    void encodesSupplementaryCharactersAsFourBytes() {
        EncodedName encoded = new EncodedName();
        encoded.encodeChecked("a\uD83D\uDE80b", 64, false);
        assertArrayEquals("a\uD83D\uDE80b".getBytes(StandardCharsets.UTF_8), bytesOf(encoded));
        assertEquals(6, encoded.byteLength);
    }

    @Test
    void rejectsNamesWhoseUtf8FormIsLongerThanTheLimitEvenWhenCharsFitWhenAskedTo() {
        EncodedName encoded = new EncodedName();
        String threeBytesEach = "\u20AC".repeat(22); // 22 chars, 66 bytes
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> encoded.encodeChecked(threeBytesEach, 64, true));
        assertTrue(e.getMessage().contains("longer than 64 UTF-8 bytes"), e.getMessage());
    }

    @Test
    void reusedNameIsStillCheckedAgainstASmallerLimit() {
        EncodedName encoded = new EncodedName();
        String name = "x".repeat(100);
        encoded.encodeChecked(name, 1024, true);
        assertThrows(IllegalArgumentException.class, () -> encoded.encodeChecked(name, 64, true));
    }

    @Test
    void aNameLongerThanTheLimitIsEncodedAsItsStoredFormEvenWhenCharsFit() {
        EncodedName encoded = new EncodedName();
        String threeBytesEach = "\u20AC".repeat(22); // 22 chars, 66 bytes
        encoded.encodeChecked(threeBytesEach, 64, false);
        byte[] stored = StoredName.of(threeBytesEach, 64).getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(stored, bytesOf(encoded));
        assertEquals(63, encoded.byteLength); // 10 euro signs (30 bytes) fit the 31 bytes before the 33-byte tag
        assertEquals(Hm64.ofBytes(stored, stored.length), encoded.hash);
    }

    /** The encoding a thread reuses for one String follows the limit of the store it is used with. */
    @Test
    void aReusedLongNameIsShortenedForEachLimitAndWholeWhereItFits() {
        EncodedName encoded = new EncodedName(2); // a small cache entry: grows
        String name = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        for (int limit : new int[] {64, 1024, 64, 33, 40, 1024}) {
            encoded.encodeChecked(name, limit, false);
            byte[] expected = StoredName.of(name, limit).getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(expected, bytesOf(encoded), "limit " + limit);
            assertEquals(Hm64.ofBytes(expected, expected.length), encoded.hash, "limit " + limit);
        }
    }

    /**
     * A name longer than any the thread's encoder has held grows its buffer and is encoded once there:
     * the stored form is the digest of all its bytes, and a surrogate left unpaired far past the limit is
     * still refused, whatever the limit and the long-name policy.
     */
    @Test
    void aNameLongerThanTheEncodersBufferIsShortenedFromAllItsBytesAndCheckedToItsEnd() throws Exception {
        String kernel = "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<"
                + "cute::C<128>, \u20AC".repeat(400) + ">(Params)"; // 6,871 bytes
        byte[] utf8 = kernel.getBytes(StandardCharsets.UTF_8);
        String tag = "~" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(utf8), 0, 16);
        EncodedName encoded = new EncodedName(2);
        for (int limit : new int[] {64, 1024}) {
            encoded.encodeChecked(kernel, limit, false);
            int keep = limit - tag.length();
            while ((utf8[keep] & 0xC0) == 0x80) {
                keep--; // the cut falls inside a euro sign: keep the whole characters before it
            }
            byte[] expected = (new String(utf8, 0, keep, StandardCharsets.UTF_8) + tag).getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(expected, bytesOf(encoded), "limit " + limit);
            assertEquals(Hm64.ofBytes(expected, expected.length), encoded.hash);
        }
        String unpaired = kernel + "\uD83D";
        for (boolean rejectLong : new boolean[] {false, true}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new EncodedName().encodeChecked(unpaired, 64, rejectLong));
            assertTrue(e.getMessage().contains("unpaired surrogate at index " + kernel.length()), e.getMessage());
        }
    }

    @Test
    void wordsPastTheEndAreZeroAfterEncodingAShorterName() {
        EncodedName encoded = new EncodedName();
        encoded.encodeChecked("abcdefghijk", 64, false);
        encoded.encodeChecked("xyz", 64, false);
        assertEquals(0x7A7978L, encoded.words[0]);
        assertEquals(Hm64.ofBytes("xyz".getBytes(StandardCharsets.UTF_8), 3), encoded.hash);
    }
}
