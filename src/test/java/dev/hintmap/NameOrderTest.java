package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.StoreKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The one order of names (FORMAT.md §1, "The order of names"): UTF-8 bytes, unsigned, a proper prefix
 * first, which is C's {@code memcmp} and the order of code points; every ordering of regions breaks its
 * ties by it. The names below sort differently under {@link String#compareTo}, which compares UTF-16
 * units and so puts a character above U+FFFF (a surrogate pair) before U+E000..U+FFFF.
 */
class NameOrderTest {
    /** The same kernel under four leading characters, in UTF-8 byte order: EE 80 80, EF BC A1, EF BF BD, F0 9F 98 80. */
    static final List<String> IN_BYTE_ORDER = List.of(
            "\uE000 void gemm_bf16_128x128<float>(Params const&)", // a private-use character
            "\uFF21 void gemm_bf16_128x128<float>(Params const&)", // FULLWIDTH LATIN CAPITAL A
            "\uFFFD void gemm_bf16_128x128<float>(Params const&)", // what a damaged name shows
            "\uD83D\uDE00 void gemm_bf16_128x128<float>(Params const&)"); // U+1F600, a supplementary character

    private static int bytewise(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void namesSortByTheirUtf8BytesWhereUtf16OrderDiffers() {
        List<String> shuffled = new ArrayList<>(IN_BYTE_ORDER);
        Collections.shuffle(shuffled, new Random(1));
        shuffled.sort(RegionOrder::compareNames);
        assertEquals(IN_BYTE_ORDER, shuffled);
        assertTrue("\uFFFD".compareTo("\uD83D\uDE00") > 0 && RegionOrder.compareNames("\uFFFD", "\uD83D\uDE00") < 0,
                "the case this order exists for: String.compareTo puts U+1F600 first");
        assertTrue(RegionOrder.compareNames("gemm", "gemm_bf16") < 0, "a proper prefix first");
        assertEquals(0, RegionOrder.compareNames("gemm_\uD83D\uDE00", "gemm_\uD83D\uDE00"));
    }

    @Property(tries = 2000)
    void compareNamesHasTheSignOfComparingTheUtf8BytesUnsigned(@ForAll("names") String a, @ForAll("names") String b) {
        assertEquals(Integer.signum(bytewise(a, b)), Integer.signum(RegionOrder.compareNames(a, b)), a + " | " + b);
    }

    /** Short strings of characters from every UTF-8 length, around the places where UTF-16 and UTF-8 orders part. */
    @Provide
    Arbitrary<String> names() {
        Arbitrary<Integer> codePoint = Arbitraries.oneOf(Arbitraries.integers().between('a', 'c'),
                Arbitraries.of(0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFF21, 0xFFFD, 0xFFFF, 0x10000, 0x1F600,
                        0x10FFFF));
        return codePoint.list().ofMaxSize(4).map(cps -> {
            StringBuilder s = new StringBuilder();
            cps.forEach(s::appendCodePoint);
            return s.toString();
        });
    }

    /** Every order ranks equal keys by name in byte order, in the store and in a snapshot alike. */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void hottestBreaksEqualKeysOfEveryOrderByTheUtf8BytesOfTheName(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults().capacity(16))) {
            List<String> shuffled = new ArrayList<>(IN_BYTE_ORDER);
            Collections.shuffle(shuffled, new Random(2));
            for (String name : shuffled) {
                store.add(new RegionRecord(name, 4, 4_000_000, 1_500_000, 1 << 20));
            }
            for (RegionOrder order : RegionOrder.values()) {
                assertEquals(IN_BYTE_ORDER, store.hottest(4, order).stream().map(RegionRecord::name).toList(),
                        order.toString());
                assertEquals(IN_BYTE_ORDER, store.snapshot().hottest(4, order).stream().map(RegionRecord::name).toList(),
                        order.toString());
                assertEquals(IN_BYTE_ORDER.subList(0, 2),
                        store.hottest(2, order).stream().map(RegionRecord::name).toList(), order + ", k = 2");
            }
            assertEquals(IN_BYTE_ORDER, store.hotSet(1, 1).regions().stream().map(HotRegion::name).toList(),
                    "the hot set ties the same way");
        }
    }
}
