package dev.hintmap.store;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * §7.4 steps 4–11 with §7.1's generation check: at capacity 1, inserting name B evicts name A and
 * reuses A's slot while someone still holds A's slot: a resolved {@code Region} handle
 * {@code (slot, gen)} recording or reading, a lock-free lookup of A, or an iteration over slot 0. A samples are
 * (1 ns, 1 byte), B samples (1000 ns, 1000 bytes), so a record's total shows whose samples it
 * holds.
 */
public final class EvictReuseStress {
    private EvictReuseStress() {}

    static final long A_NS = 1;
    static final long B_NS = 1000;

    @State
    public static class OneSlot {
        final StoreEngine engine = StressStores.engine(1);
        final EncodedName a = StressStores.name("region-A");
        final EncodedName b = StressStores.name("region-B");
        final SlotRecord scratch1 = new SlotRecord();
        final SlotRecord scratch2 = new SlotRecord();
        final long[] nameOut = new long[2];
        /** The resolution a Region handle of A holds. */
        final int slotA;
        final long genA;

        public OneSlot() {
            engine.record(a, A_NS, A_NS, scratch1);
            slotA = scratch1.slot;
            genA = scratch1.gen;
        }

        void insertB() {
            engine.record(b, B_NS, B_NS, scratch2);
        }

        /** The total of {@code name}'s record, 0 when absent, {@code -count} when the count is not 1 or 2. */
        int total(EncodedName name, SlotRecord s) {
            if (!engine.resolve(name, s)) {
                return 0;
            }
            return s.dispatchCount == 1 || s.dispatchCount == 2 ? (int) s.kernelNsTotal : (int) -s.dispatchCount;
        }
    }

    @JCStressTest
    @Description("A Region handle of A records while B's insertion evicts A and reuses its slot.")
    @Outcome(id = "0, 0, 1, 1000", expect = ACCEPTABLE,
            desc = "A's handle recorded first (A had 2 samples), then B evicted A")
    @Outcome(id = "1, 1, 0, 0", expect = ACCEPTABLE,
            desc = "B evicted A first; the stale handle saw the new gen, re-resolved and re-inserted A, evicting B")
    @Outcome(id = {"0, 0, 2, 1001", "0, 0, 3, .*"}, expect = FORBIDDEN,
            desc = "MISATTRIBUTED: A's sample counted under B (stale handle wrote into the reused slot)")
    @Outcome(id = "., [0-9]*1000, .*", expect = FORBIDDEN, desc = "MISATTRIBUTED: B's sample counted under A")
    @Outcome(expect = FORBIDDEN, desc = "a lost sample, two regions at capacity 1, or a torn record")
    public static class HandleVsEvict {
        @Actor
        public void handleOfA(OneSlot s) {
            // Region.record: the cached resolution first, re-resolve by name when it is stale
            if (!s.engine.recordInto(s.slotA, s.genA, A_NS, A_NS)) {
                s.engine.record(s.a, A_NS, A_NS, s.scratch1);
            }
        }

        @Actor
        public void insertB(OneSlot s) {
            s.insertB();
        }

        @Arbiter
        public void arbiter(OneSlot s, IIII_Result r) {
            SlotRecord snap = new SlotRecord();
            if (s.engine.resolve(s.a, snap)) {
                r.r1 = (int) snap.dispatchCount;
                r.r2 = (int) snap.kernelNsTotal;
            }
            if (s.engine.resolve(s.b, snap)) {
                r.r3 = (int) snap.dispatchCount;
                r.r4 = (int) snap.kernelNsTotal;
            }
        }
    }

    @JCStressTest
    @Description("Lock-free lookups of A, then B, while B's insertion evicts A and reuses its slot.")
    @Outcome(id = {"1, 0", "1, 1000", "0, 0", "0, 1000"}, expect = ACCEPTABLE,
            desc = "each name is absent or has exactly its own record")
    @Outcome(id = "1000, .*", expect = FORBIDDEN, desc = "MISATTRIBUTED: B's record returned for name A")
    @Outcome(id = ".*, 1", expect = FORBIDDEN, desc = "MISATTRIBUTED: A's record returned for name B")
    @Outcome(expect = FORBIDDEN, desc = "a torn or otherwise wrong record")
    public static class LookupVsEvict {
        @Actor
        public void reader(OneSlot s, II_Result r) {
            r.r1 = s.total(s.a, s.scratch1);
            r.r2 = s.total(s.b, s.scratch1);
        }

        @Actor
        public void insertB(OneSlot s) {
            s.insertB();
        }
    }

    @JCStressTest
    @Description("A's handle reads (§7.2.2: the generation instead of a name compare) while B's insertion evicts A and reuses its slot.")
    @Outcome(id = {"1, 1", "1, -1", "-1, -1"}, expect = ACCEPTABLE,
            desc = "A's own record (total 1, mean 1), or STALE: the handle resolves A by name next")
    @Outcome(id = {"1000, .*", ".*, 1000"}, expect = FORBIDDEN,
            desc = "MISATTRIBUTED: B's record read through A's handle (a read that skips the generation check)")
    @Outcome(id = "-1, 1", expect = FORBIDDEN, desc = "a handle read its slot as A's again after seeing it reassigned")
    @Outcome(expect = FORBIDDEN, desc = "a torn record, or absent while A's slot kept its generation")
    public static class HandleReadVsEvict {
        @Actor
        public void handleReadsOfA(OneSlot s, II_Result r) {
            long record = s.engine.slotReadAt(s.slotA, s.genA, Answer.RECORD, s.scratch1);
            r.r1 = record == StoreEngine.STALE ? -1 : record == 0 ? 0 : (int) s.scratch1.kernelNsTotal;
            r.r2 = (int) s.engine.slotReadAt(s.slotA, s.genA, Answer.MEAN, null);
        }

        @Actor
        public void insertB(OneSlot s) {
            s.insertB();
        }
    }

    @JCStressTest
    @Description("Iteration reads slot 0 (name and record) while B's insertion evicts A and reuses it.")
    @Outcome(id = {"0, 0", "1, 1", "2, 1000"}, expect = ACCEPTABLE,
            desc = "slot busy/free, or a name with exactly its own record")
    @Outcome(id = {"1, 1000", "2, 1"}, expect = FORBIDDEN, desc = "MISATTRIBUTED: one name with the other's record")
    @Outcome(expect = FORBIDDEN, desc = "a torn record or a half-written name")
    public static class IterateVsEvict {
        @Actor
        public void iterate(OneSlot s, II_Result r) {
            int length = s.engine.slotRead(0, s.nameOut, s.scratch1);
            if (length == 0) {
                return;
            }
            r.r1 = holds(s.nameOut, length, s.a) ? 1 : holds(s.nameOut, length, s.b) ? 2 : 3;
            r.r2 = s.scratch1.dispatchCount == 1 ? (int) s.scratch1.kernelNsTotal : (int) -s.scratch1.dispatchCount;
        }

        @Actor
        public void insertB(OneSlot s) {
            s.insertB();
        }

        /** Whether the name read as {@code words} of {@code length} bytes is {@code name}. */
        private static boolean holds(long[] words, int length, EncodedName name) {
            for (int i = 0; i < name.wordCount(); i++) {
                if (words[i] != name.words[i]) {
                    return false;
                }
            }
            return length == name.byteLength;
        }
    }
}
