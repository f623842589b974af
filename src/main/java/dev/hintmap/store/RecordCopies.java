package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;

/**
 * The fields of the record copies of one mapping's slots (FORMAT.md §3.7), one accessor per
 * field and memory mode, named as {@link Memory} names its accesses. Every read or write of a
 * record copy goes through here, so the field a line touches is spelled out at the call site
 * (C: {@code hm_record_copy}'s members) and no offset arithmetic on a copy is repeated.
 *
 * <p>A copy is addressed by its offset, {@link Slots#copy(long, long)}. Only plain accesses
 * exist: a copy is written by the slot lock's holder before the release store of {@code seq}
 * publishes it, and read between the {@code seq}/{@code gen} checks of §7.2.1, which reject a
 * torn read; no other mode is needed by either side.
 *
 * <p>Holds nothing but the mapping: the engine keeps one in a final field, and the record path
 * allocates nothing through it.
 */
final class RecordCopies {
    private final Memory memory;

    RecordCopies(Memory memory) {
        this.memory = memory;
    }

    long plainDispatchCount(long copy) {
        return plainDispatchCount(memory.segment, copy);
    }

    void plainDispatchCount(long copy, long value) {
        plainDispatchCount(memory.segment, copy, value);
    }

    long plainKernelNsTotal(long copy) {
        return plainKernelNsTotal(memory.segment, copy);
    }

    void plainKernelNsTotal(long copy, long value) {
        plainKernelNsTotal(memory.segment, copy, value);
    }

    long plainKernelNsMax(long copy) {
        return plainKernelNsMax(memory.segment, copy);
    }

    void plainKernelNsMax(long copy, long value) {
        plainKernelNsMax(memory.segment, copy, value);
    }

    long plainBytesTotal(long copy) {
        return plainBytesTotal(memory.segment, copy);
    }

    void plainBytesTotal(long copy, long value) {
        plainBytesTotal(memory.segment, copy, value);
    }

    /** As {@link #plainDispatchCount(long)}, through the segment the record path read once. */
    long plainDispatchCount(MemorySegment seg, long copy) {
        return Memory.plainLong(seg, copy + Layouts.REC_DISPATCH_COUNT);
    }

    void plainDispatchCount(MemorySegment seg, long copy, long value) {
        Memory.plainLong(seg, copy + Layouts.REC_DISPATCH_COUNT, value);
    }

    /** As {@link #plainKernelNsTotal(long)}, through the segment the record path read once. */
    long plainKernelNsTotal(MemorySegment seg, long copy) {
        return Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_TOTAL);
    }

    void plainKernelNsTotal(MemorySegment seg, long copy, long value) {
        Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_TOTAL, value);
    }

    /** As {@link #plainKernelNsMax(long)}, through the segment the record path read once. */
    long plainKernelNsMax(MemorySegment seg, long copy) {
        return Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_MAX);
    }

    void plainKernelNsMax(MemorySegment seg, long copy, long value) {
        Memory.plainLong(seg, copy + Layouts.REC_KERNEL_NS_MAX, value);
    }

    /** As {@link #plainBytesTotal(long)}, through the segment the record path read once. */
    long plainBytesTotal(MemorySegment seg, long copy) {
        return Memory.plainLong(seg, copy + Layouts.REC_BYTES_TOTAL);
    }

    void plainBytesTotal(MemorySegment seg, long copy, long value) {
        Memory.plainLong(seg, copy + Layouts.REC_BYTES_TOTAL, value);
    }

    /** Writes a whole copy, field by field in layout order, with plain stores. */
    void plainWrite(long copy, long count, long total, long max, long bytes) {
        plainDispatchCount(copy, count);
        plainKernelNsTotal(copy, total);
        plainKernelNsMax(copy, max);
        plainBytesTotal(copy, bytes);
    }
}
