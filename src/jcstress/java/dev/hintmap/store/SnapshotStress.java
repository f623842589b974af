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
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * §7.1 (writer: copy the current record into the other copy, publish it by a release store of
 * {@code seq}) against §7.2.1 (reader: validate {@code seq} and {@code gen} around the four
 * loads).
 *
 * <p>The n-th sample of the region has kernel time {@code n*K} and {@code B} bytes, so after n
 * samples the record is exactly {@code (n, K*n(n+1)/2, n*K, n*B)}. The reader decodes each field
 * back to the n it implies ({@code -1} when no n fits): a consistent snapshot gives four equal
 * numbers, a torn one (fields of two different updates) gives unequal ones. The writer makes
 * 40 updates after the insertion, so the reader's copy is rewritten under it again and again
 * (the double buffer wraps around), which is the case §7.2.1 must detect; the reader reads as
 * many times, so that its reads overlap the writes, and reports the first torn read.
 */
public final class SnapshotStress {
    private SnapshotStress() {}

    static final long K = 1000;
    static final long B = 7;
    /** Samples the writer adds; enough that the reader's loads overlap rewrites of its copy. */
    static final int UPDATES = 40;

    @State
    public static class Region {
        final StoreEngine engine = StressStores.engine(1);
        final EncodedName name = StressStores.name("gemm");
        final SlotRecord writerScratch = new SlotRecord();
        final SlotRecord readerScratch = new SlotRecord();
        final long[] nameOut = new long[2];
        /** The pair a Region handle holds after its first query (§7.2.2). */
        final int slot;
        final long gen;

        public Region() {
            engine.record(name, K, B, writerScratch); // sample 1
            slot = writerScratch.slot;
            gen = writerScratch.gen;
        }

        void writer() {
            for (int n = 2; n <= UPDATES + 1; n++) {
                engine.record(name, n * K, B, writerScratch);
            }
        }
    }

    /** Reads {@link #UPDATES} times, as long as the writer writes; reports the first torn or absent read, else the last. */
    static void readRepeatedly(java.util.function.BooleanSupplier read, SlotRecord s, IIII_Result r) {
        for (int i = 0; i < UPDATES; i++) {
            decode(read.getAsBoolean(), s, r);
            if (r.r1 == 0 || r.r1 != r.r2 || r.r1 != r.r3 || r.r1 != r.r4) {
                return;
            }
        }
    }

    /** The n that each field implies, or (0,0,0,0) when absent. */
    static void decode(boolean found, SlotRecord s, IIII_Result r) {
        if (!found) {
            r.r1 = r.r2 = r.r3 = r.r4 = 0;
            return;
        }
        r.r1 = (int) s.dispatchCount;
        r.r2 = -1;
        for (int n = 1; n <= UPDATES + 1; n++) {
            if (s.kernelNsTotal == K * n * (n + 1) / 2) {
                r.r2 = n;
            }
        }
        r.r3 = s.kernelNsMax % K == 0 ? (int) (s.kernelNsMax / K) : -1;
        r.r4 = s.bytesTotal % B == 0 ? (int) (s.bytesTotal / B) : -1;
    }

    @JCStressTest
    @Description("Lookup (seqlock read) racing with records into the same slot: never a torn record.")
    @Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE, desc = "consistent: only the first sample")
    @Outcome(id = "41, 41, 41, 41", expect = ACCEPTABLE, desc = "consistent: all 41 samples")
    @Outcome(id = "([1-9][0-9]*), \\1, \\1, \\1", expect = ACCEPTABLE, desc = "consistent snapshot after n samples")
    @Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "absent: the reader gave up after 65,536 attempts (allowed by §7.2.1, should not happen)")
    @Outcome(expect = FORBIDDEN, desc = "TORN: count, total, max and bytes come from different updates")
    public static class Lookup {
        @Actor
        public void writer(Region s) {
            s.writer();
        }

        @Actor
        public void reader(Region s, IIII_Result r) {
            readRepeatedly(() -> s.engine.resolve(s.name, s.readerScratch), s.readerScratch, r);
        }
    }

    @JCStressTest
    @Description("Iteration (slotRead with the name, as forEach reads) racing with records: never torn.")
    @Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE, desc = "consistent: only the first sample")
    @Outcome(id = "41, 41, 41, 41", expect = ACCEPTABLE, desc = "consistent: all 41 samples")
    @Outcome(id = "([1-9][0-9]*), \\1, \\1, \\1", expect = ACCEPTABLE, desc = "consistent snapshot after n samples")
    @Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "absent: the reader gave up after 65,536 attempts (allowed by §7.2.1, should not happen)")
    @Outcome(expect = FORBIDDEN, desc = "TORN: count, total, max and bytes come from different updates")
    public static class Iteration {
        @Actor
        public void writer(Region s) {
            s.writer();
        }

        @Actor
        public void reader(Region s, IIII_Result r) {
            readRepeatedly(() -> s.engine.slotRead(0, s.nameOut, s.readerScratch) == 4, s.readerScratch, r);
        }
    }

    @JCStressTest
    @Description("A handle's whole-record read (§7.2.2: generation instead of name) racing with records: never torn.")
    @Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE, desc = "consistent: only the first sample")
    @Outcome(id = "41, 41, 41, 41", expect = ACCEPTABLE, desc = "consistent: all 41 samples")
    @Outcome(id = "([1-9][0-9]*), \\1, \\1, \\1", expect = ACCEPTABLE, desc = "consistent snapshot after n samples")
    @Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "absent: the reader gave up after 65,536 attempts (allowed by §7.2.1, should not happen)")
    @Outcome(expect = FORBIDDEN, desc = "TORN (or STALE, which no eviction here explains): fields of different updates")
    public static class Handle {
        @Actor
        public void writer(Region s) {
            s.writer();
        }

        @Actor
        public void reader(Region s, IIII_Result r) {
            readRepeatedly(() -> s.engine.slotReadAt(s.slot, s.gen, Answer.RECORD, s.readerScratch) == 1,
                    s.readerScratch, r);
        }
    }

    @JCStressTest
    @Description("A handle's mean read (computed from dispatch_count and kernel_ns_total) racing with records.")
    @Outcome(id = "1", expect = ACCEPTABLE, desc = "every mean read is the mean after some n samples, K*(n+1)/2")
    @Outcome(id = "0", expect = ACCEPTABLE_INTERESTING, desc = "absent: the reader gave up after 65,536 attempts")
    @Outcome(expect = FORBIDDEN, desc = "TORN: a mean no n gives (count and total of different updates), or STALE")
    public static class HandleMean {
        @Actor
        public void writer(Region s) {
            s.writer();
        }

        @Actor
        public void reader(Region s, I_Result r) {
            r.r1 = 1;
            for (int i = 0; i < UPDATES; i++) {
                long mean = s.engine.slotReadAt(s.slot, s.gen, Answer.MEAN, null);
                if (mean <= 0) {
                    r.r1 = mean == 0 ? 0 : -2;
                    return;
                }
                if (mean * 2 % K != 0 || mean * 2 / K < 2 || mean * 2 / K > UPDATES + 2) {
                    r.r1 = -1; // K*(n+1)/2 with K even is exact: n + 1 = 2*mean/K in [2, 42]
                    return;
                }
            }
        }
    }
}
