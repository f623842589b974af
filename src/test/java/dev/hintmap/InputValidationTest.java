package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every rejected call names the bad value and records nothing. */
class InputValidationTest {

    private static void assertRejected(Consumer<HintStore> call, String messagePart) {
        assertRejected(HintStoreOptions.defaults().capacity(8), call, messagePart);
    }

    private static void assertRejected(HintStoreOptions options, Consumer<HintStore> call, String messagePart) {
        try (HintStore store = HintStore.inMemory(options)) {
            store.record("existing", 10, 10);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> call.accept(store));
            assertTrue(e.getMessage().contains(messagePart), () -> "message \"" + e.getMessage() + "\" lacks " + messagePart);
            assertEquals(1, store.size(), "nothing new was inserted");
            assertEquals(new RegionRecord("existing", 1, 10, 10, 10), store.recordFor("existing").orElseThrow());
        }
    }

    @Test
    void rejectsNegativeKernelTime() {
        assertRejected(s -> s.record("existing", -1, 10), "kernelNs -1 is negative");
    }

    @Test
    void rejectsNegativeBytes() {
        assertRejected(s -> s.record("existing", 10, -5), "bytesTouched -5 is negative");
    }

    @Test
    void rejectsNullName() {
        assertRejected(s -> s.record(null, 10, 10), "region name is null");
    }

    @Test
    void rejectsEmptyName() {
        assertRejected(s -> s.record("", 10, 10), "region name is empty");
    }

    /** Names over the limit are shortened by default (LongNameTest); rejectLongNames(true) refuses them instead. */
    @Test
    void rejectsOverlongNameWhenAskedTo() {
        String name = "k".repeat(65);
        assertRejected(STRICT, s -> s.record(name, 10, 10), "is longer than 64 UTF-8 bytes");
        assertRejected(STRICT, s -> s.region(name), "is longer than 64 UTF-8 bytes");
        assertRejected(STRICT, s -> s.add(new RegionRecord(name, 1, 1, 1, 1)), "is longer than 64 UTF-8 bytes");
    }

    private static final HintStoreOptions STRICT = HintStoreOptions.defaults().capacity(8).maxNameBytes(64)
            .rejectLongNames(true);

    @Test
    void rejectsNameWithUnpairedSurrogate() {
        assertRejected(s -> s.record("bad\uD800name", 10, 10), "unpaired surrogate at index 3");
        assertRejected(s -> s.record("bad\uDC00", 10, 10), "unpaired surrogate at index 3");
        assertRejected(s -> s.record("end\uD83D", 10, 10), "unpaired surrogate at index 3");
    }

    /**
     * A name both over the limit and not encodable is refused for its surrogate, not its length,
     * with {@code rejectLongNames(true)} too: the order FORMAT.md §1.1 says, which C's
     * {@code hmi_name_encode} follows as well (test_rules.c).
     */
    @Test
    void aNameOverTheLimitWithAnUnpairedSurrogateIsRefusedForTheSurrogateNotItsLength() {
        String gemm = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        String cut = gemm + "\uD83D"; // a high half with no low half after the 99 bytes
        assertRejected(STRICT, s -> s.record(cut, 10, 10), "unpaired surrogate at index 99");
        assertRejected(STRICT, s -> s.region(cut), "unpaired surrogate at index 99");
        assertRejected(STRICT, s -> s.isHot(cut), "unpaired surrogate at index 99");
    }

    @Test
    void queriesRejectBadNamesToo() {
        assertRejected(s -> s.isHot(null), "region name is null");
        assertRejected(s -> s.readInto("", new MutableRecord()), "region name is empty");
        assertRejected(STRICT, s -> s.recordFor("k".repeat(100)), "longer than 64");
        assertRejected(s -> s.region("x\uDFFF"), "unpaired surrogate");
    }

    @Test
    void regionHandleRejectsBadNamesAndNegativeValues() {
        assertRejected(s -> s.region(""), "region name is empty");
        assertRejected(s -> s.region("existing").record(-1, 0), "kernelNs -1 is negative");
        assertRejected(s -> s.region("existing").record(0, Long.MIN_VALUE), "is negative");
    }

    @Test
    void optionsRejectOutOfRangeValues() {
        HintStoreOptions d = HintStoreOptions.defaults();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.capacity(-1)).getMessage().contains("capacity -1"));
        assertThrows(IllegalArgumentException.class, () -> d.capacity(HintStoreOptions.MAX_CAPACITY + 1));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.hotThresholdNs(-3)).getMessage().contains("-3"));
        assertThrows(IllegalArgumentException.class, () -> d.maxNameBytes(0));
        assertThrows(IllegalArgumentException.class, () -> d.maxNameBytes(1025));
        // Issue 32 finding 2: below 33 a shortened name could not keep its whole digest, and distinct names merged.
        for (int tooSmall : new int[] {1, 2, 16, 17, 32}) {
            String message = assertThrows(IllegalArgumentException.class, () -> d.maxNameBytes(tooSmall)).getMessage();
            assertTrue(message.contains("maxNameBytes " + tooSmall + " is outside [33, 1024]"), message);
        }
        assertEquals(33, d.maxNameBytes(33).maxNameBytes());
    }

    @Test
    void optionsAreImmutableValues() {
        HintStoreOptions d = HintStoreOptions.defaults();
        HintStoreOptions c = d.capacity(10);
        assertEquals(256, d.capacity());
        assertEquals(10, c.capacity());
        assertTrue(c.isCapacitySet());
        assertTrue(!d.isCapacitySet());
        assertEquals(c, HintStoreOptions.defaults().capacity(10));
    }

    @Test
    void closedStoreThrowsIllegalStateForEveryOperation() {
        HintStore store = HintStore.inMemory(HintStoreOptions.defaults());
        store.record("a", 1, 1);
        Region region = store.region("a");
        store.close();
        store.close(); // idempotent
        for (Runnable call : new Runnable[] {
            () -> store.record("a", 1, 1), () -> store.isHot("a"), () -> store.readInto("a", new MutableRecord()),
            () -> store.recordFor("a"), store::size, () -> store.forEachView(v -> {}), store::snapshot,
            store::flush, () -> region.record(1, 1), () -> store.region("b"), store::capacity,
            store::hotThresholdNs, store::maxNameBytes, store::file, store::isReadOnly, store::info,
        }) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call::run);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }
}
