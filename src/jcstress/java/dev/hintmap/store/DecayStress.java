package dev.hintmap.store;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * §7.6 decay (writer: the aged record into the other copy, through §7.1's publish: release fence,
 * the four stores, release of {@code seq}) against §7.2.1 (reader). Issue 32 finding 11: decay wrote
 * its copy without the publish's release fence; this is the stress test of the one routine that
 * record, add and decay now share.
 *
 * <p>The region starts as {@code (2^D, 2^D * K, 2^D * K, 2^D * B)} and every decay halves it
 * exactly (factor 1/2: count, totals and bytes are powers of two times K or B, the maximum follows
 * the total). After i decays the record is {@code (2^(D-i), 2^(D-i) K, 2^(D-i) K, 2^(D-i) B)}, so each
 * field tells the i it comes from ({@code -1} when none does): a consistent read gives four equal
 * numbers, a torn one (fields of two different decays) unequal ones.
 */
public final class DecayStress {
    private DecayStress() {}

    static final long K = 1000;
    static final long B = 7;
    /** Decays the writer makes: each halves the record, so the reader's copy is rewritten again and again. */
    static final int DECAYS = 24;
    static final int D = 30;

    @State
    public static class Region {
        final StoreEngine engine = StressStores.engine(1);
        final EncodedName name = StressStores.name("gemm");
        final SlotRecord writerScratch = new SlotRecord();
        final SlotRecord readerScratch = new SlotRecord();
        final long[] nameOut = new long[2];

        public Region() {
            long n = 1L << D;
            engine.wholeRecords().add(name, n, n * K, n * K, n * B, writerScratch);
        }

        void decays() {
            for (int i = 0; i < DECAYS; i++) {
                engine.wholeRecords().decaySlot(0, 0.5);
            }
        }
    }

    /** The i (decays) each field implies, or (99, 99, 99, 99) when absent. */
    static void decode(boolean found, SlotRecord s, IIII_Result r) {
        if (!found) {
            r.r1 = r.r2 = r.r3 = r.r4 = 99;
            return;
        }
        r.r1 = decays(s.dispatchCount, 1);
        r.r2 = decays(s.kernelNsTotal, K);
        r.r3 = decays(s.kernelNsMax, K);
        r.r4 = decays(s.bytesTotal, B);
    }

    private static int decays(long value, long unit) {
        if (value % unit != 0 || Long.bitCount(value / unit) != 1) {
            return -1;
        }
        int i = D - Long.numberOfTrailingZeros(value / unit);
        return i >= 0 && i <= DECAYS ? i : -1;
    }

    @JCStressTest
    @Description("Decay (§7.6, through §7.1's publish) racing with a reader: never a torn record.")
    @Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE, desc = "consistent: before any decay")
    @Outcome(id = "24, 24, 24, 24", expect = ACCEPTABLE, desc = "consistent: after all 24 decays")
    @Outcome(id = "([0-9]+), \\1, \\1, \\1", expect = ACCEPTABLE, desc = "consistent record after i decays")
    @Outcome(id = "99, 99, 99, 99", expect = ACCEPTABLE_INTERESTING,
            desc = "absent: the reader gave up after 65,536 attempts (allowed by §7.2.1, should not happen)")
    @Outcome(expect = FORBIDDEN, desc = "TORN: count, total, max and bytes come from different decays")
    public static class Read {
        @Actor
        public void decayer(Region s) {
            s.decays();
        }

        @Actor
        public void reader(Region s, IIII_Result r) {
            for (int i = 0; i < DECAYS; i++) {
                decode(s.engine.slotRead(0, s.nameOut, s.readerScratch) > 0, s.readerScratch, r);
                if (r.r1 == 99 || r.r1 != r.r2 || r.r1 != r.r3 || r.r1 != r.r4) {
                    return; // the first torn or absent read
                }
            }
        }
    }

    @JCStressTest
    @Description("Decay racing with a handle's whole-record read (§7.2.2): never torn, never STALE.")
    @Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE, desc = "consistent: before any decay")
    @Outcome(id = "24, 24, 24, 24", expect = ACCEPTABLE, desc = "consistent: after all 24 decays")
    @Outcome(id = "([0-9]+), \\1, \\1, \\1", expect = ACCEPTABLE, desc = "consistent record after i decays")
    @Outcome(id = "99, 99, 99, 99", expect = ACCEPTABLE_INTERESTING,
            desc = "absent: the reader gave up after 65,536 attempts (allowed by §7.2.1, should not happen)")
    @Outcome(expect = FORBIDDEN, desc = "TORN (or STALE, which no eviction here explains): fields of different decays")
    public static class Handle {
        @Actor
        public void decayer(Region s) {
            s.decays();
        }

        @Actor
        public void reader(Region s, IIII_Result r) {
            for (int i = 0; i < DECAYS; i++) {
                long v = s.engine.slotReadAt(s.writerScratch.slot, s.writerScratch.gen, Answer.RECORD, s.readerScratch);
                decode(v == 1, s.readerScratch, r);
                if (v == StoreEngine.STALE) {
                    r.r1 = r.r2 = r.r3 = r.r4 = -2;
                }
                if (r.r1 == 99 || r.r1 != r.r2 || r.r1 != r.r3 || r.r1 != r.r4) {
                    return;
                }
            }
        }
    }
}
