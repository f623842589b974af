package dev.hintmap;

import java.util.Optional;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of {@link HintStore#record}, {@link Region#record}, {@link HintStore#recordFor}
 * and {@link HintStore#size} on an in-memory store, against {@link ReferenceModel} as the
 * sequential specification (Lincheck 3.7, stress mode). Two configurations: capacity 3 for 3
 * names (nothing is evicted) and capacity 2 for 3 names, where the specification is the
 * reference model's exact CLOCK (fresh slots first, then second chance), so every eviction the
 * store makes must be the one CLOCK makes in some linearization.
 *
 * <p>Stress mode, not model checking: Lincheck's model checker switches threads only at the
 * shared-memory accesses it instruments (fields, arrays, atomics), and it does not see accesses
 * to a {@code MemorySegment}. It passed a mutant whose {@code recordInto} takes no slot lock
 * (4,000 invocations), so it would prove nothing here. The races inside one record or insert are
 * jcstress's job (src/jcstress/java); this test checks the observable semantics under real
 * concurrency. Run longer with {@code -Dlincheck.iterations=100}: see docs/archive/RELIABILITY.md.
 */
class StoreLinearizabilityTest {
    static final String[] NAMES = {"gemm", "conv", "attn"};

    @Param(name = "region", gen = IntGen.class, conf = "0:2")
    @Param(name = "ns", gen = IntGen.class, conf = "1:3")
    public abstract static class Ops {
        final HintStore store;
        final Region[] handles = new Region[NAMES.length];

        Ops(int capacity) {
            store = HintStore.inMemory(HintStoreOptions.defaults().capacity(capacity));
            for (int i = 0; i < NAMES.length; i++) {
                handles[i] = store.region(NAMES[i]);
            }
        }

        @Operation
        public void record(@Param(name = "region") int region, @Param(name = "ns") int ns) {
            store.record(NAMES[region], ns, 10L * ns);
        }

        @Operation
        public void recordByHandle(@Param(name = "region") int region, @Param(name = "ns") int ns) {
            handles[region].record(ns, 10L * ns);
        }

        @Operation
        public String recordFor(@Param(name = "region") int region) {
            return show(store.recordFor(NAMES[region]));
        }

        @Operation
        public int size() {
            return store.size();
        }

        @Validate
        public void close() {
            store.close();
        }
    }

    static String show(Optional<RegionRecord> r) {
        return r.map(x -> x.dispatchCount() + "/" + x.kernelNsTotal() + "/" + x.kernelNsMax() + "/" + x.bytesTotal())
                .orElse("absent");
    }

    public abstract static class Spec {
        final ReferenceModel model;

        Spec(int capacity) {
            model = new ReferenceModel(capacity, 100_000);
        }

        public void record(int region, int ns) {
            model.record(NAMES[region], ns, 10L * ns);
        }

        public void recordByHandle(int region, int ns) {
            model.record(NAMES[region], ns, 10L * ns);
        }

        public String recordFor(int region) {
            return show(model.recordFor(NAMES[region]));
        }

        public int size() {
            return model.size();
        }
    }

    /** Capacity 3 for 3 names: nothing is ever evicted. */
    public static class NoEviction extends Ops {
        public NoEviction() {
            super(3);
        }
    }

    public static class NoEvictionSpec extends Spec {
        public NoEvictionSpec() {
            super(3);
        }
    }

    /** Capacity 2 for 3 names: inserts evict by CLOCK, handles go stale. */
    public static class Eviction extends Ops {
        public Eviction() {
            super(2);
        }
    }

    public static class EvictionSpec extends Spec {
        public EvictionSpec() {
            super(2);
        }
    }

    /**
     * Scenarios of 2 threads x 4 operations, with 2 before and 2 after; iterations x invocations
     * per test from {@code -Dlincheck.iterations} / {@code -Dlincheck.invocations} (defaults 10 x
     * 1000, about 25 s per test on 2 cores).
     */
    static StressOptions stress(Class<?> spec) {
        return new StressOptions().sequentialSpecification(spec).threads(2).actorsPerThread(4)
                .actorsBefore(2).actorsAfter(2).iterations(Integer.getInteger("lincheck.iterations", 10))
                .invocationsPerIteration(Integer.getInteger("lincheck.invocations", 1000));
    }

    @Test
    void recordRecordForAndSizeAreLinearizableWithoutEviction() {
        stress(NoEvictionSpec.class).check(NoEviction.class);
    }

    @Test
    void recordRecordForAndSizeAreLinearizableUnderClockEviction() {
        stress(EvictionSpec.class).check(Eviction.class);
    }
}
