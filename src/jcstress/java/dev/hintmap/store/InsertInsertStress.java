package dev.hintmap.store;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * §7.4 steps 1–3: two writers record the same new name at once. Both miss in the lock-free
 * lookup, race for {@code struct_lock}, and the loser must find the winner's region when it
 * re-resolves under the lock, and record into it instead of inserting a second slot. The
 * arbiter reports {@code (size, count, total, bytes)} of the one name.
 */
public final class InsertInsertStress {
    private InsertInsertStress() {}

    @State
    public static class Store {
        final StoreEngine engine;
        final EncodedName name1 = StressStores.name("conv");
        final EncodedName name2 = StressStores.name("conv"); // each writer encodes the name itself
        final SlotRecord scratch1 = new SlotRecord();
        final SlotRecord scratch2 = new SlotRecord();

        Store(int capacity) {
            engine = StressStores.engine(capacity);
        }

        void result(IIII_Result r) {
            r.r1 = engine.size();
            SlotRecord s = new SlotRecord();
            if (engine.resolve(name1, s)) {
                r.r2 = (int) s.dispatchCount;
                r.r3 = (int) s.kernelNsTotal;
                r.r4 = (int) s.bytesTotal;
            }
        }
    }

    @State
    public static class Roomy extends Store {
        public Roomy() {
            super(4);
        }
    }

    @State
    public static class Tight extends Store {
        public Tight() {
            super(1);
        }
    }

    @JCStressTest
    @Description("Insert vs insert of one new name, capacity 4: one slot holding both samples.")
    @Outcome(id = "1, 2, 30, 300", expect = ACCEPTABLE, desc = "one region with both samples")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "DUPLICATE: two slots for one name")
    @Outcome(expect = FORBIDDEN, desc = "a sample was lost or the region is missing")
    public static class CapacityFour {
        @Actor
        public void writer1(Roomy s) {
            s.engine.record(s.name1, 10, 100, s.scratch1);
        }

        @Actor
        public void writer2(Roomy s) {
            s.engine.record(s.name2, 20, 200, s.scratch2);
        }

        @Arbiter
        public void arbiter(Roomy s, IIII_Result r) {
            s.result(r);
        }
    }

    @JCStressTest
    @Description("Insert vs insert of one new name, capacity 1: a duplicate would evict the first copy.")
    @Outcome(id = "1, 2, 30, 300", expect = ACCEPTABLE, desc = "one region with both samples")
    @Outcome(id = {"1, 1, 10, 100", "1, 1, 20, 200"}, expect = FORBIDDEN,
            desc = "DUPLICATE: the second insert evicted the first copy of the same name")
    @Outcome(expect = FORBIDDEN, desc = "a sample was lost or the region is missing")
    public static class CapacityOne {
        @Actor
        public void writer1(Tight s) {
            s.engine.record(s.name1, 10, 100, s.scratch1);
        }

        @Actor
        public void writer2(Tight s) {
            s.engine.record(s.name2, 20, 200, s.scratch2);
        }

        @Arbiter
        public void arbiter(Tight s, IIII_Result r) {
            s.result(r);
        }
    }
}
