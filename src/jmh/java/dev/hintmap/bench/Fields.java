package dev.hintmap.bench;

import dev.hintmap.MutableRecord;

/**
 * One thread's reusable holder for the allocation-free query benchmarks: the four fields every
 * store keeps, and hintmap's own {@link MutableRecord}, which hintmap fills and copies from (so
 * every store pays the same four stores into this holder).
 */
final class Fields {
    long count;
    long total;
    long max;
    long bytes;
    final MutableRecord holder = new MutableRecord();

    /** Copies hintmap's holder; true for convenience in a return statement. */
    boolean from(MutableRecord r) {
        count = r.dispatchCount();
        total = r.kernelNsTotal();
        max = r.kernelNsMax();
        bytes = r.bytesTotal();
        return true;
    }

    boolean set(long count, long total, long max, long bytes) {
        this.count = count;
        this.total = total;
        this.max = max;
        this.bytes = bytes;
        return true;
    }

    long meanKernelNs() {
        return count == 0 ? 0 : total / count;
    }
}
