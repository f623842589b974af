package dev.hintmap.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.hintmap.fuzz.FileFuzzing.Kind;
import dev.hintmap.fuzz.FileFuzzing.Mutation;
import dev.hintmap.fuzz.FileFuzzing.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage-guided fuzzing of the same harness as {@link MutatedFileProperties}, with Jazzer: the
 * fuzzer's bytes choose the shape, the mutations and whether the checksum is recomputed.
 *
 * <p>In {@code ./mvnw verify} this replays every input in
 * {@code src/test/resources/dev/hintmap/fuzz/MutatedFileFuzzTestInputs/} (the regression
 * corpus: every crashing or interesting input found). Long run (docs/archive/RELIABILITY.md):
 *
 * <pre>
 * JAZZER_FUZZ=1 ./mvnw test -Dtest=MutatedFileFuzzTest -Djcstress.skip
 * </pre>
 *
 * <p>It stops after {@code maxDuration} or at the first finding, which Jazzer writes into the
 * inputs directory (commit it: it becomes a regression test); the generated corpus goes to
 * {@code .cifuzz-corpus/} (not committed).
 */
class MutatedFileFuzzTest {

    @FuzzTest(maxDuration = "30m")
    void mutatedHintFile(FuzzedDataProvider data) throws Exception {
        Shape shape = data.pickValue(Shape.values());
        boolean fixChecksum = data.consumeBoolean();
        int count = data.consumeInt(1, 8);
        List<Mutation> mutations = new ArrayList<>(count);
        for (int i = 0; i < count && data.remainingBytes() > 0; i++) {
            mutations.add(new Mutation(data.pickValue(Kind.values()), data.consumeInt(), data.consumeInt(), data.consumeLong()));
        }
        FileFuzzing.run(shape, mutations, fixChecksum);
    }
}
