package dev.hintmap.store;

/**
 * A consistent copy of one slot's record, filled in place by the read protocol (§7.2.1) so
 * queries allocate nothing. Also carries the resolved slot and generation.
 */
public final class Snapshot {
    int slot = -1;
    long gen;
    long dispatchCount;
    long kernelNsTotal;
    long kernelNsMax;
    long bytesTotal;

    public long dispatchCount() {
        return dispatchCount;
    }

    public long kernelNsTotal() {
        return kernelNsTotal;
    }

    public long kernelNsMax() {
        return kernelNsMax;
    }

    public long bytesTotal() {
        return bytesTotal;
    }

    public long meanKernelNs() {
        return dispatchCount == 0 ? 0 : kernelNsTotal / dispatchCount;
    }
}
