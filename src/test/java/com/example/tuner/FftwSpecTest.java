package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * fftwf-wisdom's problem syntax as the FFTW runtime names its regions ({@code fftw:SPEC}): the specs
 * it writes parse into their parts; anything else is refused with the reason, and transforms past
 * the bound are not planned.
 */
class FftwSpecTest {
    @Test
    void parsesTypePlaceDirectionAndSizes() {
        FftwSpec c = FftwSpec.parse("cof256x256");
        assertEquals('c', c.type());
        assertFalse(c.inPlace());
        assertTrue(c.forward());
        assertEquals(List.of(256L, 256L), c.dims());
        assertEquals(65_536, c.points());
        FftwSpec r = FftwSpec.parse("rib1024x768");
        assertEquals('r', r.type());
        assertTrue(r.inPlace());
        assertFalse(r.forward(), "backward real: complex to real");
        FftwSpec k = FftwSpec.parse("ko64e10x32o00x2h");
        assertEquals(List.of(64L, 32L, 2L), k.dims());
        assertEquals(List.of("e10", "o00", "h"), k.kinds());
        assertEquals(List.of(999_999_999L), FftwSpec.parse("cof999999999").dims());
    }

    @Test
    void javaAndCAgreeOnTheSharedVectors() throws Exception {
        List<String> lines;
        try (InputStream in = FftwSpecTest.class.getResourceAsStream("/vectors/fftw-specs.txt")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        }
        assertTrue(lines.size() >= 25, "vectors: " + lines.size());
        FftwTunables tunables = new FftwTunables();
        for (String line : lines) {
            String spec = line.substring(0, line.indexOf('\t'));
            String want = line.substring(line.indexOf('\t') + 1);
            Tunable<FftwTask> t = tunables.of(FftwTunables.PREFIX + spec);
            if (want.startsWith("ok ")) {
                assertEquals(Long.parseLong(want.substring(3)), t.task().size(), spec);
            } else if (want.startsWith("bound ")) {
                assertEquals(want.substring(6), t.reason(), spec);
            } else {
                assertTrue(want.startsWith("refused "), line);
                assertEquals(want.substring(8), assertThrows(IllegalArgumentException.class, () -> FftwSpec.parse(spec))
                        .getMessage(), spec);
            }
        }
    }

    @Test
    void anythingButTheCanonicalSpellingIsRefusedWithTheReason() {
        Map<String, String> bad = Map.ofEntries(
                Map.entry("", "too short for <type><place><direction><sizes>"),
                Map.entry("zof256", "type 'z' is not c (complex), r (real) or k (real-to-real)"),
                Map.entry("Cof256", "type 'C' is not c (complex), r (real) or k (real-to-real)"),
                Map.entry("cxf256", "place 'x' is not i (in place) or o (out of place)"),
                Map.entry("coz256", "direction 'z' is not f (forward) or b (backward)"),
                Map.entry("cof", "no sizes"),
                Map.entry("cof0256", "a size is zero or has a leading zero: '0256'"),
                Map.entry("cof0", "a size is zero or has a leading zero: '0'"),
                Map.entry("cof256x", "'' does not start with a size"),
                Map.entry("cofx256", "'' does not start with a size"),
                Map.entry("cof1234567890", "a size has more than 9 digits: '1234567890'"),
                Map.entry("cof256f", "'f' after size 256 (kinds are for k transforms only)"),
                Map.entry("cof256*8", "'*8' after size 256 (kinds are for k transforms only)"),
                Map.entry("cof2x2x2x2", "4 dimensions: at most 3"),
                Map.entry("ko64", "size 64 of a k transform needs a kind (f, b, h, e00-e11, o00-o11), not ''"),
                Map.entry("ko64e20", "size 64 of a k transform needs a kind (f, b, h, e00-e11, o00-o11), not 'e20'"),
                Map.entry("kof64", "'f64' does not start with a size"),
                Map.entry("cof256 ", "' ' after size 256 (kinds are for k transforms only)"),
                Map.entry("cof25\n6", "'\\x0a6' after size 25 (kinds are for k transforms only)"));
        bad.forEach((spec, reason) -> assertEquals(reason,
                assertThrows(IllegalArgumentException.class, () -> FftwSpec.parse(spec)).getMessage(), spec));
    }

    @Test
    void regionsMapToOneRunPerTransformAndPastTheBoundAreRefused() {
        FftwTunables t = new FftwTunables();
        FftwTask task = t.of("fftw:rof1024x768").task();
        assertEquals("rof1024x768", task.label());
        assertEquals(786_432, task.size());
        assertEquals("not an FFTW region", t.of("clblast:Xgemm:f32:m=128,n=128,k=128:NN").reason());
        assertEquals("not an FFTW problem: a size is zero or has a leading zero: '0'", t.of("fftw:cof0").reason());
        assertEquals("over the bound: 999999998000000001 points exceed 2^24", t.of("fftw:cof999999999x999999999").reason());
        assertEquals("over the bound: more than 2^63 points exceed 2^24",
                t.of("fftw:cof999999999x999999999x999999999").reason());
        assertEquals("over the bound: 16777217 points exceed 2^24", t.of("fftw:cof16777217").reason());
        assertEquals(1L << 24, t.of("fftw:cof4096x4096").task().size(), "exactly 2^24 is within");
    }
}
