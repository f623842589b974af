package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * {@link Utf8}, the one home of UTF-8 in Java: the encoder writes exactly the JDK's bytes for
 * every string without an unpaired surrogate and refuses the others, its length is the JDK's, and
 * the strict decoder accepts exactly the byte strings of {@code vectors/utf8.txt} that C's
 * {@code hmi_utf8_valid} accepts (native-bench/tests/test_rules.c reads the same file).
 */
class Utf8Test {
    static final String GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";

    @Provide
    Arbitrary<String> names() {
        return NameArbitraries.names(40);
    }

    private static boolean encodable(String s) {
        return NameArbitraries.encodable(s);
    }

    /** The index of the first unpaired surrogate, found char by char as the JDK's Character API defines a pair. */
    private static int firstUnpaired(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    @Property(tries = 3000)
    void encodesTheJdkBytesOfAnEncodableStringUpToTheLimitAndRefusesAnUnpairedSurrogate(
            @ForAll("names") String name, @ForAll @IntRange(min = 0, max = 300) int limit) {
        byte[] dst = new byte[Math.max(limit, 4 * name.length())];
        if (!encodable(name)) {
            assertEquals(Utf8.UNPAIRED_SURROGATE, Utf8.encode(name, dst, dst.length), name);
            int at = Utf8.encode(name, dst, limit);
            assertTrue(at == Utf8.UNPAIRED_SURROGATE || at == Utf8.TOO_LONG, "at limit " + limit + ": " + at);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Utf8.length(name));
            assertEquals("unpaired surrogate at index " + firstUnpaired(name), e.getMessage());
            return;
        }
        byte[] expected = name.getBytes(StandardCharsets.UTF_8);
        assertEquals(expected.length, Utf8.length(name));
        int written = Utf8.encode(name, dst, limit);
        if (expected.length > limit) {
            assertEquals(Utf8.TOO_LONG, written, "needs " + expected.length + " bytes, limit " + limit);
        } else {
            assertEquals(expected.length, written);
            assertArrayEquals(expected, Arrays.copyOf(dst, written));
            assertEquals(name, Utf8.decodeStrict(dst, written), "the strict decoder reads back what the encoder wrote");
        }
    }

    @Test
    void encodesAKernelNameAndStopsAtTheLimitBeforeACharacterThatWouldNotFit() {
        byte[] dst = new byte[256];
        assertEquals(99, Utf8.encode(GEMM, dst, 256));
        assertEquals(GEMM, new String(dst, 0, 99, StandardCharsets.UTF_8));
        assertEquals(Utf8.TOO_LONG, Utf8.encode(GEMM, dst, 98));
        assertEquals(Utf8.TOO_LONG, Utf8.encode("gemm_\u20AC", dst, 7), "the euro sign's 3 bytes do not fit in 2");
        assertEquals(8, Utf8.encode("gemm_\u20AC", dst, 8));
        assertEquals(Utf8.UNPAIRED_SURROGATE, Utf8.encode("gemm_\uDE00_bf16", dst, 256), "a low half first");
        assertEquals(Utf8.UNPAIRED_SURROGATE, Utf8.encode("gemm_\uD83D", dst, 256), "a high half last");
        assertEquals(Utf8.TOO_LONG, Utf8.encode("gemm_\uD83D", dst, 4), "the limit is passed before the surrogate");
        assertEquals(Utf8.UNPAIRED_SURROGATE, Utf8.encode("gemm_\uD83D", dst, 5), "the limit is reached, then the surrogate met");
        assertEquals(0, Utf8.encode("", dst, 0));
    }

    @Test
    void decodesExactlyTheSharedVectorsValidBytes() throws IOException {
        int valid = 0;
        int invalid = 0;
        for (String line : resource("/vectors/utf8.txt").split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            assertEquals(3, f.length, line);
            byte[] bytes = HexFormat.of().parseHex(f[1]);
            String decoded = Utf8.decodeStrict(bytes, bytes.length);
            if (f[0].equals("valid")) {
                assertEquals(new String(bytes, StandardCharsets.UTF_8), decoded, line);
                assertArrayEquals(bytes, decoded.getBytes(StandardCharsets.UTF_8), line);
                valid++;
            } else {
                assertEquals("invalid", f[0], line);
                assertNull(decoded, line);
                invalid++;
            }
        }
        assertEquals(15, valid);
        assertEquals(22, invalid);
    }

    /**
     * FORMAT.md §9.1: a name that is not valid UTF-8 is shown with one U+FFFD per maximal
     * ill-formed subpart, as every line of {@code vectors/utf8-replacement.txt} says (C's
     * test_rules and Python's test_names read the same lines); the JDK's decoder gives one U+FFFD
     * for a surrogate's three bytes, where the vectors say three.
     */
    @Test
    void decodesForDisplayWithOneReplacementPerMaximalIllFormedSubpartAsTheSharedVectorsSay() throws IOException {
        int cases = 0;
        for (String line : resource("/vectors/utf8-replacement.txt").split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            assertEquals(3, f.length, line);
            byte[] in = HexFormat.of().parseHex(f[0]);
            String shown = Utf8.decodeReplacing(in, in.length);
            assertEquals(f[1], HexFormat.of().formatHex(shown.getBytes(StandardCharsets.UTF_8)), line);
            cases++;
        }
        assertEquals(28, cases);
        byte[] surrogate = {(byte) 0xED, (byte) 0xA0, (byte) 0x80};
        assertEquals("\uFFFD\uFFFD\uFFFD", Utf8.decodeReplacing(surrogate, 3));
        assertEquals("\uFFFD", new String(surrogate, StandardCharsets.UTF_8), "the JDK's own decoder differs here");
    }

    /** Valid UTF-8 decodes for display to exactly its string; only the first {@code length} bytes count. */
    @Property
    void decodingValidBytesForDisplayGivesTheirString(@ForAll("names") String name) {
        if (!encodable(name)) {
            return;
        }
        byte[] bytes = (name + "\u00FF").getBytes(StandardCharsets.UTF_8);
        assertEquals(name, Utf8.decodeReplacing(bytes, bytes.length - 2));
        assertEquals(name, Utf8.decodeStrict(bytes, bytes.length - 2));
    }

    private static String resource(String path) throws IOException {
        try (InputStream in = Utf8Test.class.getResourceAsStream(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
