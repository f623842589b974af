package dev.hintmap.store;

import dev.hintmap.RecordFigures;
import dev.hintmap.format.RecordRules;

/**
 * A consistent copy of one slot's record, filled in place by the read protocol (§7.2.1) so
 * queries allocate nothing. Also carries the resolved slot and generation. Its mean and hot answers
 * are {@link RecordFigures}'s, the API's shapes' own.
 */
public final class SlotRecord implements RecordFigures {
    int slot = -1;
    long gen;
    long dispatchCount;
    long kernelNsTotal;
    long kernelNsMax;
    long bytesTotal;

    @Override
    public long dispatchCount() {
        return dispatchCount;
    }

    @Override
    public long kernelNsTotal() {
        return kernelNsTotal;
    }

    @Override
    public long kernelNsMax() {
        return kernelNsMax;
    }

    @Override
    public long bytesTotal() {
        return bytesTotal;
    }

    /** The generation the slot had at the last successful read (a handle's half, §7.2.2). */
    public long gen() {
        return gen;
    }

    /**
     * The answer {@link StoreEngine#slotReadAt} gives for this record, read in full: what a query
     * that had to resolve the name by a full read returns.
     */
    public long answer(Answer answer, long thresholdNs) {
        return answer == Answer.RECORD ? 1 : answer.of(dispatchCount, kernelNsTotal, thresholdNs);
    }

    /** Whether the record is sound (§7.2.1, {@link RecordRules#isSound}): one a writer could have produced. */
    boolean isSound() {
        return RecordRules.isSound(dispatchCount, kernelNsTotal, kernelNsMax, bytesTotal);
    }

    /** The slot the last successful read came from, or -1. */
    public int slot() {
        return slot;
    }

    /** Fills this from one consistent read of slot {@code slot} at generation {@code gen}. */
    void set(int slot, long gen, long count, long total, long max, long bytes) {
        this.slot = slot;
        this.gen = gen;
        setRecord(count, total, max, bytes);
    }

    /** Sets the record, not the slot: how StoreEngine#record hands an inserted region its first record. */
    void setRecord(long count, long total, long max, long bytes) {
        dispatchCount = count;
        kernelNsTotal = total;
        kernelNsMax = max;
        bytesTotal = bytes;
    }

    /** Zero record, no slot: what an absent region reads as. */
    public void clear() {
        slot = -1;
        gen = 0;
        dispatchCount = 0;
        kernelNsTotal = 0;
        kernelNsMax = 0;
        bytesTotal = 0;
    }

    /** Copies {@code other}'s record (and slot) into this one. */
    public void copyFrom(SlotRecord other) {
        slot = other.slot;
        gen = other.gen;
        dispatchCount = other.dispatchCount;
        kernelNsTotal = other.kernelNsTotal;
        kernelNsMax = other.kernelNsMax;
        bytesTotal = other.bytesTotal;
    }
}
