package dev.hintmap.format;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;

/** Region names for properties of the name paths: what GPU programs call their kernels, and strings no name can be. */
public final class NameArbitraries {
    private NameArbitraries() {}

    /**
     * Names as a GPU program has them: mostly ASCII pieces of templated C++ kernel names, with
     * two-, three- and four-byte characters mixed in, and now and then a lone surrogate (two lone
     * halves in a row may happen to pair up, which {@link #encodable} then counts as encodable too).
     */
    public static Arbitrary<String> names(int maxPieces) {
        Arbitrary<String> piece = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.of("void ", "cutlass::", "Kernel2<", "cutlass_80_tensorop_bf16_s16816gemm",
                        "_relu_bf16_128x128_32x3_nn_align8", ">(Params)", "at::native::", "<float, 1024>", ", ", "*")),
                Tuple.of(6, Arbitraries.chars().range(' ', '~').map(String::valueOf)),
                Tuple.of(2, Arbitraries.chars().range('\u0080', '\u07FF').map(String::valueOf)),
                Tuple.of(2, Arbitraries.chars().range('\u0800', '\uFFFF').filter(c -> !Character.isSurrogate(c))
                        .map(String::valueOf)),
                Tuple.of(2, Arbitraries.integers().between(0x10000, 0x10FFFF).map(cp -> new String(Character.toChars(cp)))),
                Tuple.of(1, Arbitraries.chars().range('\uD800', '\uDFFF').map(String::valueOf)));
        return piece.list().ofMaxSize(maxPieces).map(parts -> String.join("", parts));
    }

    /** What the JDK says: true when {@code s} has no unpaired surrogate (it round-trips through UTF-8). */
    public static boolean encodable(String s) {
        return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s);
    }
}
