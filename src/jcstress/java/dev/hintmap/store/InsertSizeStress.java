package dev.hintmap.store;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * §7.4 step 11 against {@code size()}: an insertion into a fresh slot publishes the region
 * ({@code gen}, {@code index_seq}) and the new {@code live_count}. A reader that has seen the new
 * region must not then read a size that does not count it (no linearization explains it), and a
 * reader that counted it must then find it.
 */
public final class InsertSizeStress {
    private InsertSizeStress() {}

    @State
    public static class Empty {
        final StoreEngine engine = StressStores.engine(4);
        final EncodedName name = StressStores.name("fresh");
        final SlotRecord writerScratch = new SlotRecord();
        final SlotRecord readerScratch = new SlotRecord();
    }

    @JCStressTest
    @Description("Reader looks the new region up, then reads size(), while it is inserted.")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "linearizable")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "NOT LINEARIZABLE: region found, then size() does not count it")
    @Outcome(expect = FORBIDDEN, desc = "impossible size")
    public static class LookupThenSize {
        @Actor
        public void insert(Empty s) {
            s.engine.record(s.name, 5, 5, s.writerScratch);
        }

        @Actor
        public void reader(Empty s, II_Result r) {
            r.r1 = s.engine.resolve(s.name, s.readerScratch) ? 1 : 0;
            r.r2 = s.engine.size();
        }
    }

    @JCStressTest
    @Description("Reader reads size(), then looks the new region up, while it is inserted.")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "linearizable")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "NOT LINEARIZABLE: size() counts the region, then it is not found")
    @Outcome(expect = FORBIDDEN, desc = "impossible size")
    public static class SizeThenLookup {
        @Actor
        public void insert(Empty s) {
            s.engine.record(s.name, 5, 5, s.writerScratch);
        }

        @Actor
        public void reader(Empty s, II_Result r) {
            r.r1 = s.engine.size();
            r.r2 = s.engine.resolve(s.name, s.readerScratch) ? 1 : 0;
        }
    }
}
