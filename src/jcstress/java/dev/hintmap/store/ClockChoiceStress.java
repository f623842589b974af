package dev.hintmap.store;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * §7.4 step 3–4 against §7.1: the CLOCK choice of a victim and a record into that victim. Capacity
 * 2 holds A (slot 0) and C (slot 1), both reference bits clear, the hand at slot 0. One writer
 * records into A, the other inserts B. In any sequential order A survives: recorded first, A's
 * bit is set and the hand evicts C; inserted first, B evicts A and the record re-inserts A
 * (evicting C). So A must be present afterwards. Found by Lincheck
 * ({@code StoreLinearizabilityTest}, eviction case): the insert chose A while its bit was clear,
 * the record completed before the insert took A's slot lock, and A was evicted with the sample.
 * The arbiter reports the dispatch counts of (A, B, C).
 */
public final class ClockChoiceStress {
    private ClockChoiceStress() {}

    @State
    public static class Full {
        final StoreEngine engine = StressStores.engine(2);
        final EncodedName a = StressStores.name("A");
        final EncodedName b = StressStores.name("B");
        final EncodedName c = StressStores.name("C");
        final SlotRecord scratch1 = new SlotRecord();
        final SlotRecord scratch2 = new SlotRecord();

        public Full() {
            engine.record(a, 1, 1, scratch1);
            engine.record(c, 1, 1, scratch1);
        }

        int count(EncodedName name) {
            SlotRecord s = new SlotRecord();
            return engine.resolve(name, s) ? (int) s.dispatchCount : 0;
        }
    }

    @JCStressTest
    @Description("Record into A vs an insert whose CLOCK sweep finds A's bit clear: A must survive.")
    @Outcome(id = "2, 1, 0", expect = ACCEPTABLE, desc = "record first: A's bit set, C evicted")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "insert first: A evicted, re-inserted by the record, C evicted")
    @Outcome(id = "0, 1, 1", expect = FORBIDDEN,
            desc = "NOT CLOCK: A evicted although its record (and reference bit) came before the eviction")
    @Outcome(expect = FORBIDDEN, desc = "lost sample or wrong region set")
    public static class RecordVsInsert {
        @Actor
        public void recordA(Full s) {
            s.engine.record(s.a, 1, 1, s.scratch1);
        }

        @Actor
        public void insertB(Full s) {
            s.engine.record(s.b, 1, 1, s.scratch2);
        }

        @Arbiter
        public void arbiter(Full s, III_Result r) {
            r.r1 = s.count(s.a);
            r.r2 = s.count(s.b);
            r.r3 = s.count(s.c);
        }
    }
}
