package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;

/**
 * The fields of the record copies of a mapping's slots (FORMAT.md §3.7), one accessor per
 * field and memory mode, named as {@link Memory} names its accesses. Every read or write of a
 * record copy goes through here, so the field a line touches is spelled out at the call site
 * (C: {@code hm_record_copy}'s members) and no offset arithmetic on a copy is repeated.
 *
 * <p>A copy is addressed by its offset, {@link Slots#copy(long, long)}, in the segment the
 * operation read once. Only plain accesses exist: a copy is written by the slot lock's holder
 * before the release store of {@code seq} publishes it, and read between the {@code seq}/{@code gen}
 * checks of §7.2.1, which reject a torn read; no other mode is needed by either side.
 */
final class RecordCopies {
    private RecordCopies() {}

    static long plainDispatchCount(MemorySegment seg, long copy) {
        return Memory.plainLong(seg, copy + Layouts.REC_DISPATCH_COUNT);
    }

    static void plainDispatchCount(MemorySegment seg, long copy, long value) {
        Memory.plainLong(seg, copy + Layouts.REC_DISPATCH_COUNT, value);
    }

    static long plainKernelNsTotal(MemorySegment seg, long copy) {
        return Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_TOTAL);
    }

    static void plainKernelNsTotal(MemorySegment seg, long copy, long value) {
        Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_TOTAL, value);
    }

    static long plainKernelNsMax(MemorySegment seg, long copy) {
        return Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_MAX);
    }

    static void plainKernelNsMax(MemorySegment seg, long copy, long value) {
        Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_MAX, value);
    }

    static long plainBytesTotal(MemorySegment seg, long copy) {
        return Memory.plainLong(seg, copy + Layouts.REC_BYTES_TOTAL);
    }

    static void plainBytesTotal(MemorySegment seg, long copy, long value) {
        Memory.plainLong(seg, copy + Layouts.REC_BYTES_TOTAL, value);
    }

    /**
     * Writes a whole copy, field by field in layout order, with plain stores: {@link Memory}
     * directly, not through the one-field setters above, so that the publish of a record
     * (StoreEngine.copyPublish, under the record's critical section) inlines one level less deep.
     */
    static void plainWrite(MemorySegment seg, long copy, long count, long total, long max, long bytes) {
        Memory.plainLong(seg, copy + Layouts.REC_DISPATCH_COUNT, count);
        Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_TOTAL, total);
        Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_MAX, max);
        Memory.plainLong(seg, copy + Layouts.REC_BYTES_TOTAL, bytes);
    }
}
