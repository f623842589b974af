package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Header;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.junit.jupiter.api.Test;

/**
 * Decay (FORMAT.md §7.6) runs its arithmetic while it holds the slot lock, which every writer of
 * every process spins on: it must not allocate there (issue 32 finding 11: it built a
 * {@code RegionRecord} and {@code BigInteger}s per slot, so a decay could trigger a garbage
 * collection with a cross-process lock held). And it must still age each record exactly as
 * {@link RegionRecord#scaled} says.
 */
class DecayWithoutAllocationTest {
    private static final int REGIONS = 64;
    private static final int MAX_NAME_BYTES = 256;

    /** {@code com.sun.management.ThreadMXBean.getCurrentThreadAllocatedBytes()}, reached reflectively (module tests). */
    private static final MethodHandle ALLOCATED;

    static {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            ALLOCATED = MethodHandles.publicLookup()
                    .findVirtual(Class.forName("com.sun.management.ThreadMXBean"), "getCurrentThreadAllocatedBytes",
                            MethodType.methodType(long.class))
                    .bindTo(bean);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static long allocated() {
        try {
            return (long) ALLOCATED.invokeExact();
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** A CUTLASS kernel name per region: long, templated, with spaces and punctuation. */
    private static String kernel(int i) {
        return "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)#" + i;
    }

    private static StoreEngine engine(Arena arena) {
        Header header = new Header(new FileGeometry(REGIONS, MAX_NAME_BYTES), 100_000, 0L);
        MemorySegment data = arena.allocate(header.geometry().fileBytes(), Layouts.PAGE);
        return MappedStore.anonymousEngine(data, header);
    }

    /** Records region i with totals large enough that their products with a count pass 2^63 (the 128-bit path). */
    private static void fill(StoreEngine engine) {
        SlotRecord scratch = new SlotRecord();
        for (int i = 0; i < REGIONS; i++) {
            EncodedName name = new EncodedName();
            name.encodeChecked(kernel(i), MAX_NAME_BYTES, false);
            long count = 1_000_000L + i;
            long max = (1L << 60) + i; // mean (~2^52) <= max <= total: a sound record
            engine.wholeRecords().add(name, count, Long.MAX_VALUE / 2 - i, max, (1L << 50) + i, scratch);
        }
    }

    @Test
    void decayingASlotAllocatesNothingWhileItHoldsTheLock() {
        try (Arena arena = Arena.ofConfined()) {
            StoreEngine engine = engine(arena);
            fill(engine);
            for (int i = 0; i < 20_000; i++) { // warm: class initialisation, C1 and C2 compiles
                engine.wholeRecords().decaySlot(i % REGIONS, 0.999999);
            }
            int calls = 20_000;
            long before = allocated();
            for (int i = 0; i < calls; i++) {
                engine.wholeRecords().decaySlot(i % REGIONS, i % 2 == 0 ? 0.999999 : 0.75);
            }
            double perCall = (double) (allocated() - before) / calls;
            assertTrue(perCall < 1, "decaySlot allocated " + perCall + " B per slot"); // one 16-byte object a call would read 16
        }
    }

    @Test
    void aDecayedSlotHoldsExactlyTheScaledRecord() {
        try (Arena arena = Arena.ofConfined()) {
            StoreEngine engine = engine(arena);
            fill(engine);
            SlotRecord s = new SlotRecord();
            for (double factor : new double[] {1.0, 0.999999, 0.75, 0.3, 1e-7}) {
                for (int k = 0; k < REGIONS; k++) {
                    assertTrue(engine.slotRead(k, null, s) > 0);
                    RegionRecord before = new RegionRecord("r", s.dispatchCount, s.kernelNsTotal, s.kernelNsMax, s.bytesTotal);
                    assertEquals(WholeRecords.Decay.AGED, engine.wholeRecords().decaySlot(k, factor));
                    assertTrue(engine.slotRead(k, null, s) > 0);
                    assertEquals(before.scaled(factor),
                            new RegionRecord("r", s.dispatchCount, s.kernelNsTotal, s.kernelNsMax, s.bytesTotal),
                            "slot " + k + " decayed by " + factor);
                }
            }
        }
    }
}
