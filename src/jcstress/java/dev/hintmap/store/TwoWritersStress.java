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
 * §7.1 with two writers on one slot: the slot's owner lock (CAS 0 → owner, release store of 0)
 * must serialise their read-copy-publish sequences, so neither sample is lost. The region holds
 * the sample (1 ns, 1 byte); one writer adds (10 ns, 100 bytes), the other (20 ns, 200 bytes).
 * The arbiter reports {@code (count, total, max, bytes)}.
 */
public final class TwoWritersStress {
    private TwoWritersStress() {}

    @State
    public static class Region {
        final StoreEngine engine = StressStores.engine(4);
        final EncodedName name = StressStores.name("gemm");
        final SlotRecord scratch1 = new SlotRecord();
        final SlotRecord scratch2 = new SlotRecord();
        final int slot;
        final long gen;

        public Region() {
            engine.record(name, 1, 1, scratch1);
            slot = scratch1.slot;
            gen = scratch1.gen;
        }

        /** What a {@code Region} handle does: record into the resolved slot, re-resolve if stale. */
        void recordByHandle(long ns, long bytes, SlotRecord scratch) {
            if (!engine.recordInto(slot, gen, ns, bytes)) {
                engine.record(name, ns, bytes, scratch);
            }
        }

        void result(IIII_Result r) {
            SlotRecord s = new SlotRecord();
            if (engine.resolve(name, s)) {
                r.r1 = (int) s.dispatchCount;
                r.r2 = (int) s.kernelNsTotal;
                r.r3 = (int) s.kernelNsMax;
                r.r4 = (int) s.bytesTotal;
            }
        }
    }

    @JCStressTest
    @Description("Two writers record by name into one existing region: no lost increment.")
    @Outcome(id = "3, 31, 20, 301", expect = ACCEPTABLE, desc = "both samples counted")
    @Outcome(id = "2, 11, 10, 101", expect = FORBIDDEN, desc = "LOST UPDATE: the second writer's sample vanished")
    @Outcome(id = "2, 21, 20, 201", expect = FORBIDDEN, desc = "LOST UPDATE: the first writer's sample vanished")
    @Outcome(expect = FORBIDDEN, desc = "any other record is a lost or torn update")
    public static class ByName {
        @Actor
        public void writer1(Region s) {
            s.engine.record(s.name, 10, 100, s.scratch1);
        }

        @Actor
        public void writer2(Region s) {
            s.engine.record(s.name, 20, 200, s.scratch2);
        }

        @Arbiter
        public void arbiter(Region s, IIII_Result r) {
            s.result(r);
        }
    }

    @JCStressTest
    @Description("Two writers record through resolved handles (recordInto) into one slot: no lost increment.")
    @Outcome(id = "3, 31, 20, 301", expect = ACCEPTABLE, desc = "both samples counted")
    @Outcome(id = "2, 11, 10, 101", expect = FORBIDDEN, desc = "LOST UPDATE: the second writer's sample vanished")
    @Outcome(id = "2, 21, 20, 201", expect = FORBIDDEN, desc = "LOST UPDATE: the first writer's sample vanished")
    @Outcome(expect = FORBIDDEN, desc = "any other record is a lost or torn update")
    public static class ByHandle {
        @Actor
        public void writer1(Region s) {
            s.recordByHandle(10, 100, s.scratch1);
        }

        @Actor
        public void writer2(Region s) {
            s.recordByHandle(20, 200, s.scratch2);
        }

        @Arbiter
        public void arbiter(Region s, IIII_Result r) {
            s.result(r);
        }
    }
}
