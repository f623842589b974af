package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * jqwik properties: a store driven by any sequence of operations agrees with {@link ReferenceModel}.
 * A failing sequence shrinks to a short script of records and queries.
 */
class StoreModelProperties {
    private static final long THRESHOLD = 1_000;

    /** One step: record (name, ns, bytes) or query name. */
    record Op(boolean isRecord, int name, long ns, long bytes) {
        @Override
        public String toString() {
            return isRecord ? "record(n" + name + ", " + ns + ", " + bytes + ")" : "query(n" + name + ")";
        }
    }

    @Provide
    Arbitrary<List<Op>> fewNames() {
        return ops(8);
    }

    @Provide
    Arbitrary<List<Op>> manyNames() {
        return ops(40);
    }

    private static Arbitrary<List<Op>> ops(int names) {
        Arbitrary<Long> values = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.longs().between(0, 5_000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(Long.MAX_VALUE / 4, Long.MAX_VALUE)));
        Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, names - 1),
                values, values).as((kind, name, ns, bytes) -> new Op(kind != 0, name, ns, bytes));
        return op.list().ofMaxSize(300);
    }

    private static void check(HintStore store, ReferenceModel model, int names) {
        assertEquals(model.size(), store.size());
        assertTrue(store.size() <= store.capacity());
        for (int n = 0; n < names; n++) {
            String name = "n" + n;
            assertEquals(model.recordFor(name), store.recordFor(name), name);
            assertEquals(model.isHot(name), store.isHot(name), name);
            assertEquals(model.recordFor(name).map(RegionRecord::dispatchCount).orElse(0L), store.dispatchCount(name));
        }
        assertEquals(model.evictions, store.info().evictions());
    }

    private static void run(List<Op> ops, int capacity, int names, boolean byHandle) {
        ReferenceModel model = new ReferenceModel(capacity, THRESHOLD);
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(capacity).hotThresholdNs(THRESHOLD))) {
            Region[] handles = new Region[names];
            for (Op op : ops) {
                if (op.isRecord()) {
                    String name = "n" + op.name();
                    if (byHandle && (op.ns() & 1) == 0) {
                        if (handles[op.name()] == null) {
                            handles[op.name()] = store.region(name);
                        }
                        handles[op.name()].record(op.ns(), op.bytes());
                    } else {
                        store.record(name, op.ns(), op.bytes());
                    }
                    model.record(name, op.ns(), op.bytes());
                } else {
                    String name = "n" + op.name();
                    assertEquals(model.recordFor(name), store.recordFor(name), name);
                }
            }
            check(store, model, names);
        }
    }

    @Property(tries = 200)
    void withAtMostCapacityNamesEveryQueryEqualsTheModel(@ForAll("fewNames") List<Op> ops) {
        run(ops, 8, 8, false);
    }

    @Property(tries = 300)
    void withMoreNamesThanCapacityTheStoreEvictsExactlyLikeClock(@ForAll("manyNames") List<Op> ops,
            @ForAll @IntRange(min = 1, max = 12) int capacity) {
        run(ops, capacity, 40, false);
    }

    @Property(tries = 200)
    void regionHandlesAndNamesAreInterchangeable(@ForAll("manyNames") List<Op> ops,
            @ForAll @IntRange(min = 1, max = 6) int capacity) {
        run(ops, capacity, 40, true);
    }

    @Property(tries = 50)
    void capacityZeroStaysEmptyWhateverIsRecorded(@ForAll("manyNames") @Size(max = 100) List<Op> ops) {
        run(ops, 0, 40, true);
    }
}
