package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * jqwik properties: the allocation-free queries ({@link HintStore#readInto}, the {@link Region}
 * queries, {@link HintStore#forEachView}) agree with {@link ReferenceModel} after any sequence of
 * records, whatever CLOCK evicts and re-inserts meanwhile. Handles are resolved once and kept for
 * the whole sequence, so they must follow their regions through eviction and re-insertion.
 */
class QueryPathProperties {
    private static final long THRESHOLD = 1_000;
    private static final int NAMES = 24;

    /** One step: record (by name or by handle), query one name every way, or scan with the visitor. */
    record Op(int kind, int name, long ns, long bytes) {
        static final int RECORD_BY_NAME = 0;
        static final int RECORD_BY_HANDLE = 1;
        static final int QUERY = 2;
        static final int SCAN = 3;

        @Override
        public String toString() {
            return switch (kind) {
                case RECORD_BY_NAME -> "record(n" + name + ", " + ns + ", " + bytes + ")";
                case RECORD_BY_HANDLE -> "region(n" + name + ").record(" + ns + ", " + bytes + ")";
                case QUERY -> "query(n" + name + ")";
                default -> "scan()";
            };
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 9), Arbitraries.integers().between(0, NAMES - 1),
                Arbitraries.longs().between(0, 3_000), Arbitraries.longs().between(0, 1 << 20))
                .as((k, name, ns, bytes) -> new Op(k < 4 ? Op.RECORD_BY_NAME : k < 7 ? Op.RECORD_BY_HANDLE : k < 9 ? Op.QUERY : Op.SCAN,
                        name, ns, bytes));
        return op.list().ofMaxSize(200);
    }

    private static void query(HintStore store, Region[] handles, ReferenceModel model, int n, MutableRecord holder) {
        String name = "n" + n;
        Optional<RegionRecord> expected = model.recordFor(name);
        assertEquals(expected.isPresent(), store.readInto(name, holder), name);
        assertEquals(expected.orElse(new RegionRecord(name, 0, 0, 0, 0)), holder.toRecord(name), name);
        assertEquals(expected.isPresent(), handles[n].readInto(holder), name);
        assertEquals(expected.orElse(new RegionRecord(name, 0, 0, 0, 0)), holder.toRecord(name), name);
        assertEquals(model.isHot(name), handles[n].isHot(), name);
        assertEquals(expected.map(RegionRecord::dispatchCount).orElse(0L), handles[n].dispatchCount(), name);
        assertEquals(expected.map(RegionRecord::meanKernelNs).orElse(0L), handles[n].meanKernelNs(), name);
        assertEquals(model.isHot(name), store.isHot(name), name);
    }

    private static void scan(HintStore store, ReferenceModel model) {
        Set<RegionRecord> expected = new HashSet<>();
        for (int n = 0; n < NAMES; n++) {
            model.recordFor("n" + n).ifPresent(expected::add);
        }
        Set<RegionRecord> seen = new HashSet<>();
        int[] visits = new int[1];
        store.forEachView(v -> {
            visits[0]++;
            seen.add(v.toRecord());
        });
        assertEquals(expected.size(), visits[0], "each live region exactly once");
        assertEquals(expected, seen);
    }

    private static void run(List<Op> ops, int capacity) {
        ReferenceModel model = new ReferenceModel(capacity, THRESHOLD);
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(capacity).hotThresholdNs(THRESHOLD))) {
            Region[] handles = new Region[NAMES];
            for (int n = 0; n < NAMES; n++) {
                handles[n] = store.region("n" + n);
            }
            MutableRecord holder = new MutableRecord();
            for (Op op : ops) {
                switch (op.kind()) {
                    case Op.RECORD_BY_NAME -> {
                        store.record("n" + op.name(), op.ns(), op.bytes());
                        model.record("n" + op.name(), op.ns(), op.bytes());
                    }
                    case Op.RECORD_BY_HANDLE -> {
                        handles[op.name()].record(op.ns(), op.bytes());
                        model.record("n" + op.name(), op.ns(), op.bytes());
                    }
                    case Op.QUERY -> query(store, handles, model, op.name(), holder);
                    default -> scan(store, model);
                }
            }
            for (int n = 0; n < NAMES; n++) {
                query(store, handles, model, n, holder);
            }
            scan(store, model);
        }
    }

    @Property(tries = 300)
    void everyQueryPathAgreesWithTheModelThroughEvictionAndReinsertion(@ForAll("ops") List<Op> ops,
            @ForAll @IntRange(min = 1, max = 10) int capacity) {
        run(ops, capacity);
    }

    @Property(tries = 100)
    void withRoomForEveryNameNothingIsEvictedAndEveryQueryAgrees(@ForAll("ops") List<Op> ops) {
        run(ops, NAMES);
    }

    @Property(tries = 30)
    void capacityZeroReadsEveryRegionAbsent(@ForAll("ops") List<Op> ops) {
        run(ops, 0);
    }
}
