package dev.hintmap.fuzz;

import dev.hintmap.fuzz.FileFuzzing.Kind;
import dev.hintmap.fuzz.FileFuzzing.Mutation;
import dev.hintmap.fuzz.FileFuzzing.Shape;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * jqwik-generated mutations of valid hint files (docs/archive/RELIABILITY.md "Java fuzzing"): every try
 * builds a file of one {@link Shape}, applies 1–6 structured mutations and runs
 * {@link FileFuzzing#run}: open read-only and read-write, every query, record, close, with a
 * per-try timeout. Only documented outcomes pass: a {@code HintFileException} with a validation
 * problem on open (the file unchanged), or a store whose every answer satisfies FORMAT.md §7.2.1.
 * A failure shrinks to a short list of mutations. About 20 s in all on 2 cores.
 */
class MutatedFileProperties {

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        Arbitrary<Kind> kinds = Arbitraries.frequency(
                net.jqwik.api.Tuple.of(3, Kind.FLIP_BIT),
                net.jqwik.api.Tuple.of(8, Kind.SET_FIELD),
                net.jqwik.api.Tuple.of(4, Kind.SET_LOW_HALF),
                net.jqwik.api.Tuple.of(1, Kind.TRUNCATE),
                net.jqwik.api.Tuple.of(1, Kind.EXTEND));
        return Combinators.combine(kinds, Arbitraries.integers(), Arbitraries.integers(), Arbitraries.longs())
                .as(Mutation::new).list().ofMinSize(1).ofMaxSize(6);
    }

    /** Mutations anywhere, the header checksum left as it is: most header damage stops at the checksum. */
    @Property(tries = 500, edgeCases = EdgeCasesMode.MIXIN)
    void damagedFilesAreRefusedOrReadSafely(@ForAll Shape shape, @ForAll("mutations") List<Mutation> mutations) throws Exception {
        FileFuzzing.run(shape, mutations, false);
    }

    /** The same with the checksum recomputed, so that header mutations reach the range checks and the slots. */
    @Property(tries = 1000, edgeCases = EdgeCasesMode.MIXIN)
    void mutationsBehindAValidChecksumAreRefusedOrReadSafely(@ForAll Shape shape,
            @ForAll("mutations") List<Mutation> mutations) throws Exception {
        FileFuzzing.run(shape, mutations, true);
    }
}
